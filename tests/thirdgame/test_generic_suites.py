"""The generic suites, run over high card, a game registered by the tests alone: create, play
to the end, export, replay, tampering, redaction and the live stream pass for it with no
line of theirs changed (docs/architecture.md, "Adding a game")."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

HOUSE = Path(__file__).resolve().parents[2]
SUITES = (
    "tests/events/test_every_ruleset.py",
    "tests/events/test_away_every_ruleset.py",
    "tests/service/test_every_ruleset_moves.py",
    "tests/service/test_every_ruleset_log.py",
)


def test_the_generic_suites_pass_over_a_third_game_registered_by_the_tests_alone() -> None:
    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "tests.thirdgame.plugin",
            "-p",
            "no:randomly",
            "-q",
            "-k",
            "highcard",
            *SUITES,
        ],
        cwd=HOUSE,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ran.returncode == 0, ran.stdout[-4000:]
    found = re.search(r"(\d+) passed", ran.stdout)
    assert found is not None, ran.stdout[-2000:]
    passed = int(found.group(1))
    # Every test of the three suites once for high card, and each other game's log tampered
    # with high card's card_played among its tamperings.
    assert passed >= 30, ran.stdout[-2000:]
