"""Speed of the pot game's compiled engine against its reference, in one run.

Two groups, each with a `core` and a `reference` case doing the same work, so the ratio of
their times is a fair measure: `pot-simulate` (complete games, greedy against random) and
`pot-replay` (recorded four-player games, one per call). Each case asserts its result, so
a fast wrong answer fails. `python -m benchmarks.ratios` checks the bar for both groups.
"""

import itertools
from types import ModuleType
from typing import Any

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from core.pot import engine, reference
from core.results import Bot
from tests.core.pot.recorded import record_game

IMPLEMENTATIONS = pytest.mark.parametrize("rules", [engine, reference], ids=["core", "reference"])

# Many different games, so that the processor cannot learn one game's branches by heart.
SIMULATED_GAMES = 100
BOTS: list[Bot] = ["greedy", "random", "random", "random"]
RECORDED = [record_game(4, seed) for seed in range(2026, 2026 + 64)]
EXPECTED_SIMULATION = engine.simulate(4, SIMULATED_GAMES, seed=7, bots=BOTS)


@pytest.mark.benchmark(group="pot-simulate")
@IMPLEMENTATIONS
def test_pot_simulate(benchmark: BenchmarkFixture, rules: ModuleType) -> None:
    result = benchmark(rules.simulate, 4, SIMULATED_GAMES, seed=7, bots=BOTS)
    assert result == EXPECTED_SIMULATION  # the engine's figures, so the reference must agree
    assert result.games == SIMULATED_GAMES
    assert 40 * SIMULATED_GAMES < result.moves < 56 * SIMULATED_GAMES


@pytest.mark.benchmark(group="pot-replay")
@IMPLEMENTATIONS
def test_pot_replay(benchmark: BenchmarkFixture, rules: ModuleType) -> None:
    games = itertools.cycle(RECORDED)
    results: list[tuple[Any, list[tuple[int, str, bool]], engine.Game]] = []

    def replay_next() -> None:
        deal, moves, finished = next(games)
        results.append((rules.replay(4, moves, deal=deal), moves, finished))

    benchmark(replay_next)
    assert results != []  # each recorded game is checked once, however many rounds ran
    for result, moves, finished in results[: len(RECORDED)]:
        assert (result.error, result.applied) == (None, len(moves))
        assert result.game.results() == finished.results()
        assert result.game.totals == finished.totals
