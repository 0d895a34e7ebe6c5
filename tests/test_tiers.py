"""The fast tier keeps its word: tests/tiers.py knows a `poison` process by its command, and
an unmarked test that starts one fails, naming the marker it lacks, before the process runs."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import pytest

from tests.tiers import POISON_SCRIPT, SLOW_KINDS, starts_poison

pytest_plugins = ["pytester"]


@pytest.mark.parametrize(
    ("command", "is_poison"),
    [
        ([sys.executable, "-m", "service.cli", "serve"], True),
        ((sys.executable, "-m", "service.cli"), True),
        ([str(POISON_SCRIPT), "play"], True),
        ([sys.executable, "-m", "events"], False),
        (["valkey-server", "--port", "0"], False),
        (["/tmp/roofline/poison", "20000"], False),  # a plain-C loop named after the game
        ("git ls-files", False),
    ],
)
def test_a_poison_process_is_known_by_its_command_and_nothing_else_is(command, is_poison):
    assert starts_poison(command) is is_poison


def test_an_unmarked_test_that_starts_poison_fails_naming_the_marker_before_the_process_runs(pytester):
    pytester.makepyfile(
        test_inner="""
        import subprocess, sys

        def test_unmarked(tmp_path):
            subprocess.run([sys.executable, "-m", "service.cli", "--version"], cwd=tmp_path)
            (tmp_path / "ran").touch()

        def test_starts_something_else():
            assert subprocess.run([sys.executable, "-c", "pass"]).returncode == 0
        """
    )
    result = pytester.runpytest_inprocess("-p", "tests.tiers", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*starts a poison process*without the `subprocess` marker*"])
    assert not list(pytester.path.rglob("ran"))


def test_make_check_leaves_out_exactly_the_slow_kinds_and_each_is_a_declared_marker():
    root = Path(__file__).parent.parent
    selection = re.search(r"^SLOW_KINDS\s*:=\s*not \((.*)\)$", (root / "Makefile").read_text(), re.M)
    assert selection is not None
    assert tuple(kind.strip() for kind in selection.group(1).split(" or ")) == SLOW_KINDS
    markers = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["markers"]
    assert sorted(marker.split(":")[0] for marker in markers) == sorted(SLOW_KINDS)
