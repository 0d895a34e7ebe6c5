"""The machine's own two-core speed-up for `simulate`'s work, the yardstick of the threads
benchmarks (benchmarks/test_threads.py).

Two processes, each playing half of the games on one thread, at once: they share no memory,
no lock and no tally, so no `simulate(..., threads=2)` can beat them; whatever keeps them
under 2× one thread is the machine's (on a shared virtual machine, the host: two virtual
cores that are one physical core's two hyperthreads at times, or one of them faster alone).
The workers are spawned, not forked, and import only the engines.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

from core import Simulation
from core import engine as poison
from core.pot import engine as pot
from core.results import merged

#: The engines by the name a worker is told (a module cannot be sent to a process).
ENGINES = {"poison": poison, "pot": pot}
#: The seed of every game the threads benchmarks play.
SEED = 7
#: The players of every such game.
PLAYERS = 4


def play(game: str, games: int, first: int) -> Simulation:
    """Games first .. first + games - 1 of the benchmarks' simulation, on one thread."""
    return ENGINES[game].simulate(PLAYERS, games, seed=SEED, first=first)


@contextmanager
def two_processes() -> Iterator[ProcessPoolExecutor]:
    """Two worker processes, both started and their engines imported."""
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        # Two calls long enough that the first cannot finish before the second is handed
        # out: the pool starts a second process only when none is idle.
        warm = [pool.submit(play, "poison", 2000, 0), pool.submit(play, "poison", 2000, 0)]
        for future in warm:
            future.result()
        yield pool


def halves(pool: ProcessPoolExecutor, game: str, games: int) -> Callable[[], Simulation]:
    """A call that plays `games` games of `game`, each half in a process of its own at once,
    and merges their totals (equal to one thread's playing them all)."""
    half = games // 2

    def play_halves() -> Simulation:
        parts = [pool.submit(play, game, half, 0), pool.submit(play, game, games - half, half)]
        return merged([part.result() for part in parts])

    return play_halves
