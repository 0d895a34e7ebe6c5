"""What high card's engine lacks (core.rulesets.Ruleset.lacks) is asked before the CLI calls
it: `poison simulate` and `poison ladder` refuse the game in words naming the games they can
play, and change nothing. Each run is its own process, where high card is registered before
the CLI reads the registry, so the suite's own registry stays the product's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.rulesets import RULESETS
from tests.service.command import assert_one_line_refusal

HOUSE = Path(__file__).resolve().parents[2]
#: The product's own games, all compiled (high card is registered only in the runs below).
PRODUCT_GAMES = tuple(name for name in RULESETS if name != "highcard")
REGISTERED_CLI = """
import sys
from core.rulesets import register
from tests.thirdgame.ruleset import HIGH_CARD
register(HIGH_CARD)
from service.cli import main
sys.exit(main(sys.argv[1:]))
"""


def poison(*argv: str, lang: str = "en") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", REGISTERED_CLI, *argv, "--lang", lang],
        cwd=HOUSE,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("command", ["simulate", "ladder"])
def test_a_command_that_simulates_refuses_a_game_whose_engine_cannot_naming_those_that_can(command: str) -> None:
    ran = poison(command, "--ruleset", "highcard", "--games", "2")
    assert_one_line_refusal(ran, command, "the engine of 'highcard' offers no 'simulate': choose one of ")
    offered = ran.stderr.split("choose one of ", 1)[1]
    assert "highcard" not in offered
    assert all(f"'{name}'" in offered for name in PRODUCT_GAMES)


def test_the_refusal_of_a_game_that_cannot_simulate_is_in_the_readers_language() -> None:
    ran = poison("simulate", "--ruleset", "highcard", lang="pt")
    assert_one_line_refusal(ran, "simulate", "o motor de 'highcard' não oferece 'simulate'")


def test_a_game_whose_engine_simulates_is_still_simulated_in_the_same_registry() -> None:
    ran = poison("simulate", "--ruleset", "pot", "--games", "2", "--json")
    assert ran.returncode == 0, ran.stderr
    report = json.loads(ran.stdout)
    assert (report["ruleset"], report["games"]) == ("pot", 2)
