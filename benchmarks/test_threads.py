"""Speed of `simulate` on one thread and on two, in one run, for both games, beside what the
machine gives two processes doing the same work.

Groups `threads` (Poison) and `pot-threads` (the pot game), each with a `1` and a `2` case
playing the same games, and a `processes` case: the same games split between two processes
at once (benchmarks/processes.py), about the most two cores give this work here. `python -m
benchmarks.roofline RESULT.json` prints the ratios of their medians and checks the bar (two
threads ≥ 1.7× one on a two-core machine). Each case asserts its figures, which the number
of threads or processes must not change.
"""

from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks.processes import halves, two_processes
from benchmarks.roofline import PROCESSES_CASE
from core.poison import engine
from core.pot import engine as pot

THREADS = pytest.mark.parametrize("threads", [1, 2], ids=["1", "2"])
PLAYERS = 4
SEED = 7

# Enough games per call (figures: docs/performance.md) that starting a thread, and a
# stray slow millisecond on a shared machine, are lost in the work: a pot game is about six
# times quicker than a game of Poison.
POISON_GAMES = 4000
POT_GAMES = 24000
EXPECTED_POISON = engine.simulate(PLAYERS, POISON_GAMES, seed=SEED)
EXPECTED_POT = pot.simulate(PLAYERS, POT_GAMES, seed=SEED)


@pytest.fixture(scope="module")
def processes() -> Iterator[ProcessPoolExecutor]:
    with two_processes() as pool:
        yield pool


@pytest.mark.benchmark(group="threads")
@THREADS
def test_poison_simulate_threads(benchmark: BenchmarkFixture, threads: int) -> None:
    result = benchmark(engine.simulate, PLAYERS, POISON_GAMES, seed=SEED, threads=threads)
    assert result == EXPECTED_POISON
    assert result.moves == POISON_GAMES * PLAYERS * 50  # a round per seat, 50 cards each


@pytest.mark.benchmark(group="threads")
def test_poison_simulate_on_two_processes(benchmark: BenchmarkFixture, processes: ProcessPoolExecutor) -> None:
    benchmark.extra_info["case"] = PROCESSES_CASE
    assert benchmark(halves(processes, "poison", PLAYERS, POISON_GAMES, SEED)) == EXPECTED_POISON


@pytest.mark.benchmark(group="pot-threads")
@THREADS
def test_pot_simulate_threads(benchmark: BenchmarkFixture, threads: int) -> None:
    result = benchmark(pot.simulate, PLAYERS, POT_GAMES, seed=SEED, threads=threads)
    assert result == EXPECTED_POT
    assert result.games == POT_GAMES


@pytest.mark.benchmark(group="pot-threads")
def test_pot_simulate_on_two_processes(benchmark: BenchmarkFixture, processes: ProcessPoolExecutor) -> None:
    benchmark.extra_info["case"] = PROCESSES_CASE
    assert benchmark(halves(processes, "pot", PLAYERS, POT_GAMES, SEED)) == EXPECTED_POT
