"""The layers' boundary (issue 13): the service reaches the event store only through the
games layer (events/games.py), never its `store` attribute, so that the store's parts can
change behind Games without touching a controller."""

from __future__ import annotations

import ast
from pathlib import Path

SERVICE = Path(__file__).resolve().parent.parent / "service"


def reaches_into_the_store(path: Path) -> list[str]:
    """Where a module reads some object's `store` attribute (`games.store.version(...)`)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return [
        f"{path.name}:{node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "store"
    ]


def test_the_check_finds_a_module_that_reaches_into_the_store(tmp_path):
    module = tmp_path / "controller.py"
    module.write_text("async def version(games):\n    return await games.store.version('g')\n")
    assert reaches_into_the_store(module) == ["controller.py:2"]


def test_no_module_of_the_service_reaches_the_store_past_the_games_layer():
    modules = sorted(SERVICE.rglob("*.py"))
    assert len(modules) > 10
    assert [where for module in modules for where in reaches_into_the_store(module)] == []


def imports_the_store(path: Path) -> list[str]:
    """Where a module imports events.store (or a name of it) itself."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return [
        f"{path.name}:{node.lineno}"
        for node in ast.walk(tree)
        if (isinstance(node, ast.ImportFrom) and node.module == "events.store")
        or (isinstance(node, ast.ImportFrom) and node.module == "events" and any(a.name == "store" for a in node.names))
        or (isinstance(node, ast.Import) and any(alias.name == "events.store" for alias in node.names))
    ]


def test_the_check_finds_a_module_that_imports_the_store(tmp_path):
    module = tmp_path / "problems.py"
    module.write_text("import json\nfrom events.store import UnknownGame\nfrom events import games, store\n")
    assert imports_the_store(module) == ["problems.py:2", "problems.py:3"]


def test_no_module_of_the_service_imports_the_event_store():
    modules = sorted(SERVICE.rglob("*.py"))
    assert len(modules) > 10
    assert [where for module in modules for where in imports_the_store(module)] == []
