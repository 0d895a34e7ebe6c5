"""The layers' boundaries: the service reaches the event store only through the games layer
(events/games.py), never its `store` attribute or the parts it holds, so that the store's
parts can change behind Games without touching a controller (issue 13); and no module of
the house imports itself back through others (issue 29).

An import circle counts every import a module's source writes: at its top, inside a
function (a lazy import still ties the two modules together) and under TYPE_CHECKING (a
type named across a circle is a dependency across it). Compiled modules (.pyx) are left
out: their imports are Cython's. A package's `__init__` is a module of its own, reached by
importing the package's name (`from core import Game`), not by importing a submodule."""

from __future__ import annotations

import ast
from pathlib import Path

HOUSE = Path(__file__).resolve().parent.parent
SERVICE = HOUSE / "service"
#: Where the house's modules are: every package of it, the tests and benchmarks too.
PACKAGES = ("core", "events", "service", "benchmarks", "tests")
#: What the games layer holds of the store: the service reaches none of them itself.
STORE_PARTS = frozenset({"store", "recorder", "listing", "idempotency", "buckets"})


def reaches_into_the_store(path: Path) -> list[str]:
    """Where a module reads some object's `store` attribute (`games.store.version(...)`), or
    one of the store's parts that Games holds (`games.listing.list_games(...)`)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return [
        f"{path.name}:{node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in STORE_PARTS
    ]


def test_the_check_finds_a_module_that_reaches_into_the_store(tmp_path):
    module = tmp_path / "controller.py"
    module.write_text(
        "async def version(games):\n    return await games.store.version('g')\n\n"
        "async def page(games):\n    return await games.listing.list_games()\n"
    )
    assert reaches_into_the_store(module) == ["controller.py:2", "controller.py:5"]


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


def module_names(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Every Python module of these packages under `root`, by its dotted name."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of `modules` that module `name` imports anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name
                while target and target not in modules:  # `import a.b.c` of a module a.b
                    target = target.rpartition(".")[0]
                if target:
                    found.add(target)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from its package, `level - 1` packages up
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:  # `from events import commitment`
                    found.add(f"{base}.{alias.name}")
                elif base in modules:
                    found.add(base)
    found.discard(name)
    return found


def import_circles(root: Path, packages: tuple[str, ...]) -> list[str]:
    """Every import circle among these packages' modules, each named as the modules it
    goes through, back to the first (`a -> b -> a`): one per set of modules that import
    each other (Tarjan's strongly connected components), walked from its first module."""
    modules = module_names(root, packages)
    graph = {name: sorted(imported(name, path, modules)) for name, path in modules.items()}
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[str] = []

    def visit(name: str) -> None:
        order[name] = low[name] = len(order)
        stack.append(name)
        for other in graph[name]:
            if other not in order:
                visit(other)
                low[name] = min(low[name], low[other])
            elif other in stack:
                low[name] = min(low[name], order[other])
        if low[name] == order[name]:
            component = set()
            while True:
                member = stack.pop()
                component.add(member)
                if member == name:
                    break
            if len(component) > 1:
                circles.append(walk(graph, sorted(component)[0], component))

    for name in graph:
        if name not in order:
            visit(name)
    return sorted(circles)


def walk(graph: dict[str, list[str]], start: str, component: set[str]) -> str:
    """A shortest way round from `start` back to it, inside its component."""
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for name in frontier:
            for other in graph[name]:
                if other == start:
                    return " -> ".join([*paths[name], start])
                if other in component and other not in paths:
                    paths[other] = [*paths[name], other]
                    following.append(other)
        frontier = following
    raise AssertionError(f"{start} is in no circle")


def test_the_check_finds_an_import_circle_however_it_is_written_and_names_it(tmp_path):
    house = tmp_path / "house"
    (house / "pkg").mkdir(parents=True)
    (house / "pkg" / "__init__.py").write_text("")
    (house / "pkg" / "a.py").write_text("from pkg.b import thing\n")
    (house / "pkg" / "b.py").write_text("def later():\n    from . import c\n")  # lazy, relative
    (house / "pkg" / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.a\n")
    (house / "pkg" / "d.py").write_text("import pkg.a\nfrom pkg import e\n")  # into the circle, not of it
    (house / "pkg" / "e.py").write_text("")
    assert import_circles(house, ("pkg",)) == ["pkg.a -> pkg.b -> pkg.c -> pkg.a"]
    (house / "pkg" / "c.py").write_text("import json\n")
    assert import_circles(house, ("pkg",)) == []


def test_no_module_of_the_house_imports_itself_back_through_others():
    assert len(module_names(HOUSE, PACKAGES)) > 100
    assert import_circles(HOUSE, PACKAGES) == []


#: The recorders and the contract they keep (events/records.py): below every game.
RECORDERS = ("events.records", "events.recorder", "events.memory")


def reached(graph: dict[str, list[str]], start: str) -> set[str]:
    """Every module `start` imports, itself or through others."""
    seen: set[str] = set()
    waiting = [start]
    while waiting:
        for other in graph[waiting.pop()]:
            if other not in seen:
                seen.add(other)
                waiting.append(other)
    return seen


def test_no_recorder_reaches_any_game_event_or_rule_even_through_others():
    modules = module_names(HOUSE, PACKAGES)
    graph = {name: sorted(imported(name, path, modules)) for name, path in modules.items()}
    # The events (events.codec and all that decodes them) and the rules (core, bar the
    # error wording every layer shares) are above the recorders.
    above = {
        recorder: sorted(
            name
            for name in reached(graph, recorder)
            if name == "events.codec" or (name.split(".")[0] == "core" and name != "core.errors")
        )
        for recorder in RECORDERS
    }
    assert above == {recorder: [] for recorder in RECORDERS}
    assert "events.codec" in reached(graph, "events.mapper")  # the check sees what it looks for
