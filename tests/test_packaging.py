"""What a non-editable install of the project carries, read from pyproject.toml by the
setuptools that builds it (no wheel is built: that compiles the core, too slow here).

Every directory of core/, events/ and service/ that holds Python is a package the build
finds, and nothing else is shipped; every other file in them (the Cython sources and stubs,
the pages and assets the service serves) is matched by a package-data pattern, so an
installed service finds it; the built metadata carries the licence file.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from email.parser import Parser
from pathlib import Path

import pytest
from setuptools.config.pyprojecttoml import read_configuration

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ("core", "events", "service")
CONFIGURATION = read_configuration(ROOT / "pyproject.toml", ignore_option_errors=False)
SETUPTOOLS = CONFIGURATION["tool"]["setuptools"]


def project_files() -> list[Path]:
    """Every file of the shipped folders that git would keep (tracked, or new and not
    ignored): build products (core/*.c, *.so, annotated HTML, __pycache__) are left out."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", *SHIPPED],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [ROOT / name for name in listed.split("\0") if name and (ROOT / name).is_file()]


def package_of(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).parts)


def test_every_folder_of_the_package_that_holds_python_is_found_as_a_package() -> None:
    folders = {package_of(path.parent) for path in project_files() if path.suffix in (".py", ".pyx", ".pyi")}
    assert {
        "core",
        "core.poison",
        "core.pot",
        "events",
        "events.poison",
        "events.pot",
        "service.poison",
        "service.pot",
        "service.commands.screens",
    } <= folders
    assert folders - set(SETUPTOOLS["packages"]) == set()


def test_only_the_three_layers_are_shipped_never_the_tests_or_the_benchmarks() -> None:
    assert sorted(SETUPTOOLS["packages"]) != []
    assert {package.split(".")[0] for package in SETUPTOOLS["packages"]} == set(SHIPPED)


def matched_by_package_data() -> set[Path]:
    """The files the package-data patterns take, resolved as setuptools resolves them
    (a glob from the package's folder, `**` crossing folders)."""
    matched: set[Path] = set()
    for package, patterns in SETUPTOOLS["package-data"].items():
        folder = ROOT.joinpath(*package.split("."))
        for pattern in patterns:
            matched.update(Path(name) for name in glob.glob(os.path.join(folder, pattern), recursive=True))
    return matched


def test_every_file_of_the_package_that_is_not_python_is_package_data() -> None:
    assert SETUPTOOLS["include-package-data"] is False  # so the patterns alone decide what is carried
    data = [path for path in project_files() if path.suffix != ".py"]
    assert any(path.suffix == ".pyi" for path in data)  # the listing saw the stubs at least
    missing = sorted(str(path.relative_to(ROOT)) for path in set(data) - matched_by_package_data())
    assert missing == [], f"not in [tool.setuptools.package-data], so an installed service lacks them: {missing}"


@pytest.fixture(scope="module")
def metadata(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[str]]]:
    """The wheel's metadata as the build backend prepares it (no compilation)."""
    out = tmp_path_factory.mktemp("metadata")
    made = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from setuptools import build_meta; "
            "print(build_meta.prepare_metadata_for_build_wheel(sys.argv[1]))",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr[-3000:]
    dist_info = out / made.stdout.strip().splitlines()[-1]
    parsed = Parser().parsestr((dist_info / "METADATA").read_text())
    return dist_info, {key: parsed.get_all(key) or [] for key in set(parsed.keys())}


def test_the_built_metadata_carries_the_mit_licence_and_its_file(
    metadata: tuple[Path, dict[str, list[str]]],
) -> None:
    dist_info, fields = metadata
    assert fields["License-Expression"] == ["MIT"] == [CONFIGURATION["project"]["license"]]
    assert fields["License-File"] == ["LICENSE"]
    carried = (dist_info / "licenses" / "LICENSE").read_text()
    assert carried == (ROOT / "LICENSE").read_text()
    assert carried.startswith("MIT License\n\nCopyright (c) 2026 The Poison service authors\n")


def test_the_poison_command_is_an_entry_point_of_the_build(metadata: tuple[Path, dict[str, list[str]]]) -> None:
    dist_info, _ = metadata
    assert "poison = service.cli:main" in (dist_info / "entry_points.txt").read_text()
