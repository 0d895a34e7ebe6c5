"""The service uses its server and its framework through their public names alone: no module
under service/ imports a private name (one with a leading underscore, or from a module
path with one, or from uvicorn's `protocols` and `supervisors` internals) of uvicorn,
granian, Litestar or Starlette, so that a release of any of them cannot break it by
changing what it never promised."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SERVICE = Path(__file__).resolve().parents[2] / "service"
LIBRARIES = frozenset({"uvicorn", "granian", "litestar", "starlette"})
INTERNALS = frozenset({"protocols", "supervisors"})


def private_imports(source: str) -> list[str]:
    """Each import of `source` that names a private part of one of LIBRARIES."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            paths = [alias.name for alias in node.names]
            names: list[str] = []
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            paths = [node.module]
            names = [alias.name for alias in node.names]
        else:
            continue
        for path in paths:
            parts = path.split(".")
            if parts[0] not in LIBRARIES:
                continue
            if any(part.startswith("_") or part in INTERNALS for part in parts[1:]) or any(
                name.startswith("_") for name in names
            ):
                found.append(f"line {node.lineno}: {path} {', '.join(names)}".rstrip())
    return found


@pytest.mark.parametrize("module", sorted(SERVICE.rglob("*.py")), ids=lambda path: str(path.relative_to(SERVICE)))
def test_no_module_of_the_service_imports_a_private_name_of_its_server_or_framework(module: Path):
    assert private_imports(module.read_text()) == []


@pytest.mark.parametrize(
    "source",
    [
        "from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol",
        "from uvicorn.supervisors import Multiprocess",
        "from granian._granian import ASGIWorker",
        "import granian._signals",
        "from litestar.app import _lifespan",
        "from starlette._utils import is_async_callable",
    ],
)
def test_the_check_sees_each_kind_of_private_import(source: str):
    assert private_imports(source) != []


def test_the_check_lets_public_names_and_other_libraries_by():
    source = "from granian import Granian\nfrom granian.constants import Interfaces\nfrom msgspec import _core\n"
    assert private_imports(source) == []
