"""The core's `simulate` as a fraction of a plain-C random-play loop, in one run.

Groups `roofline` (Poison: four players, four rounds a game, rounds/s) and `pot-roofline`
(the pot game: four players, games/s). Each benchmark times the core, then runs the C loop
of benchmarks/roofline/ (compiled here with `cc -O2`) on as many rounds or games, and
records both rates and their fraction in the run's JSON (`extra_info`);
`python -m benchmarks.roofline RESULT.json` checks the bar (≥ 50%). Each checks its result:
the core's figures, and the C loop's count of every card.
"""

from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks.roofline import compile_loop, loop_rate
from core.poison import engine
from core.pot import engine as pot

# Four-player games: Poison's of four rounds (one per player, the default), the pot game's
# of the whole deck. Enough per call that the call's own cost is lost in the games.
POISON_GAMES = 5000
POT_GAMES = 20000
EXPECTED_POISON = engine.simulate(4, POISON_GAMES, seed=7)
EXPECTED_POT = pot.simulate(4, POT_GAMES, seed=7)


@pytest.fixture(scope="module")
def loops(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    build = tmp_path_factory.mktemp("roofline")
    return {name: compile_loop(name, build) for name in ("poison", "pot")}


def record(benchmark: BenchmarkFixture, core_work: int, c_rate: float, unit: str) -> None:
    """The core's and the C loop's rates and their fraction, when the run is timed."""
    if benchmark.stats is None:  # --benchmark-disable: one untimed call, nothing to compare
        return
    core_rate = core_work / benchmark.stats.stats.median
    benchmark.extra_info.update(unit=unit, core_rate=core_rate, c_rate=c_rate, fraction=core_rate / c_rate)


@pytest.mark.benchmark(group="roofline")
def test_poison_simulate_against_the_plain_c_loop(benchmark: BenchmarkFixture, loops: dict[str, Path]) -> None:
    result = benchmark(engine.simulate, 4, POISON_GAMES, seed=7)
    assert result == EXPECTED_POISON
    assert result.moves == POISON_GAMES * 4 * 50
    rounds = POISON_GAMES * 4
    c_rate = loop_rate(loops["poison"], rounds)
    assert c_rate > 0
    record(benchmark, rounds, c_rate, "rounds/s")


@pytest.mark.benchmark(group="pot-roofline")
def test_pot_simulate_against_the_plain_c_loop(benchmark: BenchmarkFixture, loops: dict[str, Path]) -> None:
    result = benchmark(pot.simulate, 4, POT_GAMES, seed=7)
    assert result == EXPECTED_POT
    assert result.games == POT_GAMES
    c_rate = loop_rate(loops["pot"], POT_GAMES)
    assert c_rate > 0
    record(benchmark, POT_GAMES, c_rate, "games/s")
