"""Moving games to the archive is safe under any crash: a mover killed with SIGKILL at
random moments, fifty-five times, leaves every game in Redis or in the archive (never in
neither), and once a mover has finished, every game is in the archive exactly once and
reads back as it was; two movers at once archive disjoint games."""

from __future__ import annotations

import multiprocessing
import random
import signal
from pathlib import Path

import pytest

from events.archive import Archive
from events.store import EventStore
from tests.archive import games
from tests.archive.games import finished_games, logs_of, rows

pytestmark = [pytest.mark.anyio, pytest.mark.faults]

KILLS = 55


#: Movers are forked from a server that has imported them once: a kill costs no start-up.
PROCESSES = multiprocessing.get_context("forkserver")
PROCESSES.set_forkserver_preload(["tests.archive.games"])


class Mover:
    """A mover in a process of its own, started and connected to the store."""

    def __init__(self, redis_url: str, namespace: str, url: str, batch_games: int) -> None:
        ready, self.moved = PROCESSES.Event(), PROCESSES.Value("i", 0)
        self.process = PROCESSES.Process(
            target=games.move, args=(redis_url, namespace, url, batch_games, ready, self.moved)
        )
        self.process.start()
        assert ready.wait(timeout=30), "the mover did not connect"

    def finish(self) -> int:
        """Wait for the mover to end by itself; how many games it moved."""
        self.process.join(timeout=120)
        assert self.process.exitcode == 0
        return int(self.moved.value)


async def nowhere(store: EventStore, ids: list[str], raw) -> list[str]:
    """The games neither in Redis nor indexed as archived."""
    pipe = raw.pipeline(transaction=False)
    for game_id in ids:
        pipe.exists(f"{store.recorder.namespace}:{{{game_id}}}:events")
        pipe.hexists(f"{store.recorder.namespace}:{{{game_id}}}:summary", "archived")
    found = await pipe.execute()
    return [game_id for i, game_id in enumerate(ids) if not found[2 * i] and not found[2 * i + 1]]


async def test_a_mover_killed_fifty_five_times_loses_and_duplicates_no_game(
    redis_url: str, namespace: str, tmp_path: Path, raw
) -> None:
    url = str(tmp_path / "archive")
    store = EventStore.from_url(redis_url, namespace=namespace, archive=Archive(url))
    ids = await finished_games(store, 800)
    before = await logs_of(store, ids)
    chance = random.Random(31)
    kills = 0
    while kills < KILLS:
        mover = Mover(redis_url, namespace, url, batch_games=4)
        mover.process.join(timeout=chance.uniform(0.0, 0.1))
        assert mover.process.exitcode is None, "every game was archived before the last kill: make more games"
        mover.process.kill()  # SIGKILL
        mover.process.join()
        assert mover.process.exitcode == -signal.SIGKILL
        kills += 1
        assert await nowhere(store, ids, raw) == []
    assert store.due is not None
    assert await store.due.count() > 0  # the kills left work to finish
    Mover(redis_url, namespace, url, batch_games=400).finish()  # the batch a kill left, then the rest
    assert await store.due.count() == 0
    cold = EventStore.from_url(redis_url, namespace=namespace, archive=Archive(url))  # nothing cached
    assert await logs_of(cold, ids) == before
    await cold.close()
    total = sum(len(entries) for entries in before.values())
    assert rows(url) == (total, len(ids), total)
    for game_id in ids:
        assert await raw.exists(f"{namespace}:{{{game_id}}}:events") == 0
    await store.close()


async def test_two_movers_at_once_archive_disjoint_games_and_every_game_once(
    redis_url: str, namespace: str, tmp_path: Path
) -> None:
    url = str(tmp_path / "archive")
    store = EventStore.from_url(redis_url, namespace=namespace, archive=Archive(url))
    ids = await finished_games(store, 600)
    before = await logs_of(store, ids)
    first, second = Mover(redis_url, namespace, url, 10), Mover(redis_url, namespace, url, 10)
    moved = first.finish(), second.finish()
    assert sum(moved) == len(ids)  # and with every game in the files once, no game by both
    assert min(moved) > 0
    total = sum(len(entries) for entries in before.values())
    assert rows(url) == (total, len(ids), total)
    assert await logs_of(store, ids) == before
    await store.close()
