"""The one registry of the games (core.rulesets): every registered game has its facet in every
layer, each layer's registry is made of the core's entries and holds no game of its own, and
a game joins only before a layer has read the registry (docs/architecture.md, "Adding a game")."""

from __future__ import annotations

import ast
import re
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from core.rulesets import FACETS, POT, RULESETS, register
from events.rulesets import EVENT_RULES
from service.commands.screens import SCREENS
from service.rulesets import SERVICE_RULES

HOUSE = Path(__file__).resolve().parent.parent
PAGE = HOUSE / "service" / "static" / "js"


def test_every_registered_game_has_its_events_its_service_and_its_screen_each_for_its_own_entry():
    for layer, registry in (("events", EVENT_RULES), ("service", SERVICE_RULES), ("screen", SCREENS)):
        assert list(registry) == list(RULESETS), layer  # the same games, in the registry's order
        for name, facet in registry.items():
            assert facet.ruleset is RULESETS[name], (layer, name)


def test_every_registered_game_has_a_browser_table_that_the_pages_list_of_games_imports():
    games = (PAGE / "games.js").read_text()
    imported = re.findall(r'^import \* as \w+ from "\./([\w-]+\.js)";$', games, flags=re.MULTILINE)
    tables = {name: ruleset.facet("table") for name, ruleset in RULESETS.items()}
    assert all(tables.values())  # no game the product ships is without one
    assert sorted(imported) == sorted(tables.values())
    for name, table in tables.items():
        assert f'export const name = "{name}";' in (PAGE / str(table)).read_text(), table


def test_a_games_facets_are_found_by_its_name_unless_its_entry_says_where():
    assert POT.facet("events") == "events.pot.rules:EVENTS"
    assert POT.facet("screen") == "service.pot.screen:SCREEN"
    elsewhere = replace(POT, facets={"events": "tests.thirdgame.events:EVENTS", "table": None})
    assert elsewhere.facet("events") == "tests.thirdgame.events:EVENTS"
    assert elsewhere.facet("service") == FACETS["service"].format(name="pot")
    assert elsewhere.facet("table") is None


def test_a_game_cannot_join_once_a_layer_has_read_the_registry_nor_under_a_name_taken():
    with pytest.raises(ValueError, match="'pot' is registered already"):
        register(POT)
    with pytest.raises(RuntimeError, match=r"before importing the layers: .*events"):
        register(replace(POT, name="late"))
    assert "late" not in RULESETS


def test_the_compiled_modules_built_and_stubtested_are_every_pyx_of_core_and_its_games_folders():
    pyx = sorted(".".join(path.relative_to(HOUSE).with_suffix("").parts) for path in HOUSE.glob("core/**/*.pyx"))
    assert {"core.search", "core.poison.engine", "core.pot.rules"} <= set(pyx)
    # setup.py's own lines that make MODULES, run without the build that follows them.
    source = ast.parse((HOUSE / "setup.py").read_text())
    made = ("HERE", "MODULES")
    kept = [
        node
        for node in source.body
        if (isinstance(node, ast.ImportFrom) and node.module == "pathlib")
        or (isinstance(node, ast.Assign) and any(getattr(target, "id", None) in made for target in node.targets))
    ]
    namespace: dict = {"__file__": str(HOUSE / "setup.py")}
    exec(compile(ast.Module(body=kept, type_ignores=[]), "setup.py", "exec"), namespace)
    built = namespace["MODULES"]
    assert sorted(built) == pyx
    listed = subprocess.run(
        ["make", "-s", "--no-print-directory", "-f", "Makefile", "-f", "-", "print-compiled"],
        input="print-compiled:\n\t@echo $(COMPILED)\n",
        cwd=HOUSE,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert sorted(listed) == pyx
