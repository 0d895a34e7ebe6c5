"""The machine's own two-core speed-up for `simulate`'s work, the yardstick the threads
benchmarks (benchmarks/test_threads.py) are printed beside.

Two processes, each playing half of the games on one thread, at once. They share no memory,
no lock and no tally, so what keeps them under 2× one thread is the machine's, not
`simulate`'s: threads sharing nothing of note should land about where they do (either may be
the faster in a run). On a shared virtual machine the host decides how much two busy cores
get, and one thread alone may run faster than either of two. The workers are spawned, not
forked, and import only the engines.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from threading import Barrier

from core import Simulation
from core.results import merged
from core.rulesets import RULESETS

#: Seconds the two workers may take to start and meet before the yardstick gives up.
START_PATIENCE = 120.0

_meeting: Barrier | None = None  # in a worker: where the two meet once started


def play(ruleset: str, players: int, games: int, seed: int, first: int) -> Simulation:
    """Games first .. first + games - 1 of a simulation of `ruleset`, on one thread."""
    return RULESETS[ruleset].engine.simulate(players, games, seed=seed, first=first)


def _enter(meeting: Barrier) -> None:
    global _meeting
    _meeting = meeting


def _meet() -> int:
    """Wait until the other worker is here too; this worker's process id."""
    assert _meeting is not None
    _meeting.wait(START_PATIENCE)
    return os.getpid()


@contextmanager
def two_processes() -> Iterator[ProcessPoolExecutor]:
    """Two worker processes, both started and their engines imported before any timing: two
    calls that can only return once both are in, which one process alone never is."""
    context = multiprocessing.get_context("spawn")
    meeting = context.Barrier(2)
    with ProcessPoolExecutor(2, mp_context=context, initializer=_enter, initargs=(meeting,)) as pool:
        met = [pool.submit(_meet), pool.submit(_meet)]
        if len({arrival.result(START_PATIENCE) for arrival in met}) != 2:
            raise RuntimeError("the two calls meant to start two workers ran in one")
        yield pool


def halves(pool: ProcessPoolExecutor, ruleset: str, players: int, games: int, seed: int) -> Callable[[], Simulation]:
    """A call that plays `games` games of `ruleset`, each half in a process of its own at
    once, and merges their totals (equal to one thread's playing them all)."""
    half = games // 2

    def play_halves() -> Simulation:
        parts = [
            pool.submit(play, ruleset, players, half, seed, 0),
            pool.submit(play, ruleset, players, games - half, seed, half),
        ]
        return merged([part.result() for part in parts])

    return play_halves
