"""Speed of `simulate` on one thread and on two, in one run, for both games.

Groups `threads` (Poison) and `pot-threads` (the pot game), each with a `1` and a `2` case
playing the same games; `python -m benchmarks.roofline RESULT.json` prints the ratio of
their medians and checks the bar (two threads ≥ 1.7× one on a two-core machine). Each case
asserts its figures, which the number of threads must not change.
"""

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from core import engine
from core.pot import engine as pot

THREADS = pytest.mark.parametrize("threads", [1, 2], ids=["1", "2"])

# Enough games per call (about 70 ms on one thread here) that starting a thread, and a
# stray slow millisecond on a shared machine, are lost in the work: a pot game is about six
# times quicker than a game of Poison.
POISON_GAMES = 4000
POT_GAMES = 24000
EXPECTED_POISON = engine.simulate(4, POISON_GAMES, seed=7)
EXPECTED_POT = pot.simulate(4, POT_GAMES, seed=7)


@pytest.mark.benchmark(group="threads")
@THREADS
def test_poison_simulate_threads(benchmark: BenchmarkFixture, threads: int) -> None:
    result = benchmark(engine.simulate, 4, POISON_GAMES, seed=7, threads=threads)
    assert result == EXPECTED_POISON
    assert result.moves == POISON_GAMES * 4 * 50


@pytest.mark.benchmark(group="pot-threads")
@THREADS
def test_pot_simulate_threads(benchmark: BenchmarkFixture, threads: int) -> None:
    result = benchmark(pot.simulate, 4, POT_GAMES, seed=7, threads=threads)
    assert result == EXPECTED_POT
    assert result.games == POT_GAMES
