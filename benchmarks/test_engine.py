"""Speed of the compiled engine against the reference, in one run.

Three groups, each with a `core` and a `reference` case doing the same work, so the ratio
of their times is a fair measure: `simulate` (complete random games), `replay` (a recorded
four-player, four-round game) and `play` (one move through the Python face). Each case
asserts its result, so a fast wrong answer fails. `python -m benchmarks.ratios` turns the
JSON of a run into the ratios and checks the bar (core ≥ 50× in simulate and replay).
"""

import itertools
from types import ModuleType
from typing import Any

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from core.poison import engine, reference
from core.results import Played
from tests.core.recorded import record_game

IMPLEMENTATIONS = pytest.mark.parametrize("rules", [engine, reference], ids=["core", "reference"])

# Enough different games per call that the processor cannot learn one game's branches by
# heart: replaying a single game over and over ran far faster than real work (figures:
# docs/performance.md).
SIMULATED_GAMES = 100
RECORDED = [record_game(4, seed, rounds=4) for seed in range(2026, 2026 + 64)]
EXPECTED_SIMULATION = engine.simulate(4, SIMULATED_GAMES, seed=7)


@pytest.mark.benchmark(group="simulate")
@IMPLEMENTATIONS
def test_simulate(benchmark: BenchmarkFixture, rules: ModuleType) -> None:
    result = benchmark(rules.simulate, 4, SIMULATED_GAMES, seed=7)
    assert result == EXPECTED_SIMULATION  # the engine's figures, so the reference must agree
    assert result.moves == SIMULATED_GAMES * 4 * 50


@pytest.mark.benchmark(group="replay")
@IMPLEMENTATIONS
def test_replay(benchmark: BenchmarkFixture, rules: ModuleType) -> None:
    games = itertools.cycle(RECORDED)
    results: list[tuple[Any, engine.Game]] = []

    def replay_next() -> None:
        deals, moves, finished = next(games)
        results.append((rules.replay(4, moves, deals=deals), finished))

    benchmark(replay_next)
    assert results != []  # each recorded game is checked once, however many rounds ran
    for result, finished in results[: len(RECORDED)]:
        assert (result.error, result.applied) == (None, 200)
        assert result.game.results() == finished.results()


@pytest.mark.benchmark(group="play")
@IMPLEMENTATIONS
def test_play(benchmark: BenchmarkFixture, rules: ModuleType) -> None:
    game = rules.Game(4, seed=11)
    for _ in range(20):  # into the middle of the round, cauldrons in use
        game.play(game.turn, *game.legal_moves()[0])
    move = (game.turn, *game.legal_moves()[-1])
    expected = game.copy().play(*move)

    def fresh_game() -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (game.copy(), *move), {}

    def play(twin: Any, seat: int, card: str, cauldron: int) -> Played:
        return twin.play(seat, card, cauldron)

    result = benchmark.pedantic(play, setup=fresh_game, rounds=20000, warmup_rounds=100)
    assert result == expected
