"""Deadlines through kill -9: of the whole service (workers, store and all) while deadlines
are pending and being fired, then started again on the same data; of one of two workers. No
deadline is lost, none fires twice: every person of every game times out exactly once, and
every game ends abandoned."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import httpx
import pytest

from tests.reliability.service import serve
from tests.service.clocked import abandoned, create_clocked, each_timed_out_once, logged, timed_out
from tests.waiting import gone, until

pytestmark = pytest.mark.faults

#: Seconds per move: long enough that the kill comes with most deadlines still pending.
SECONDS = 2
GAMES = 12


def firing(http: httpx.Client, games: list[str]) -> None:
    """Until the clocks are at work: a first person of one of the games has timed out."""
    until(lambda: any(timed_out(logged(http, game)) for game in games), what="a first time-out")


def test_a_service_killed_whole_with_deadlines_pending_fires_each_once_after_a_restart(tmp_path: Path):
    data = tmp_path / "data"
    served = serve(workers=2, data_dir=data)
    port = int(served.base.rsplit(":", 1)[1])
    with httpx.Client(base_url=served.base, timeout=10) as http:
        games = [create_clocked(http, SECONDS, seed).game_id for seed in range(GAMES)]
        firing(http, games)
    processes = [*served.workers(), served.store(), served.process.pid]
    for pid in processes:  # kill -9, every process of it at once
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
    served.process.wait()
    served.log.close()  # type: ignore[attr-defined]
    until(lambda: all(gone(pid) for pid in processes if pid is not None), what="the killed service's processes gone")
    again = serve(workers=2, data_dir=data, port=port)
    try:
        with httpx.Client(base_url=again.base, timeout=10) as http:
            abandoned(http, games)
            each_timed_out_once(http, games)
    finally:
        again.stop()


def test_one_of_two_workers_killed_with_deadlines_pending_loses_and_doubles_none(tmp_path: Path):
    served = serve(workers=2, data_dir=tmp_path / "data")
    try:
        with httpx.Client(base_url=served.base, timeout=10) as http:
            games = [create_clocked(http, SECONDS, seed).game_id for seed in range(GAMES)]
            firing(http, games)
        os.kill(served.workers()[0], signal.SIGKILL)  # what it claimed comes due again
        # A new client: a kept connection may be the killed worker's.
        with httpx.Client(base_url=served.base, timeout=10) as http:
            abandoned(http, games)
            each_timed_out_once(http, games)
    finally:
        served.stop()
