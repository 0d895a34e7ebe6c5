"""A batch of the mover is the same games in the same places however often, and by however
many workers, it is run: a batch finished after a crash, and a batch two workers run at once
after a lease ran out, while a game of the shard that was not over yet ends in between.
Every game then reads back as it was, and the one that ended is archived by a later batch."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from events.archive import Archive, ArchivedGame, Placed
from events.archiving import SWAP, Archiver, Batch
from events.calls import Script
from events.games import Games
from events.listing import shard_of
from events.records import Entries
from events.store import EventStore
from tests.archive.games import finished_games
from tests.rulesets import seats

pytestmark = pytest.mark.anyio


@pytest.fixture
async def store(redis_url: str, namespace: str, tmp_path: Path) -> AsyncIterator[EventStore]:
    """A store whose games are archived in the test's folder."""
    store = EventStore.from_url(redis_url, namespace=namespace, archive=Archive(str(tmp_path / "archive")))
    yield store
    await store.close()


def two_of_one_shard() -> tuple[str, str, int]:
    """Two game ids of one shard, the first sorting before the second (so in one file, the
    game not over yet comes first)."""
    for n in range(1000):
        first, second = f"a{n}", f"b{n}"
        if shard_of(first) == shard_of(second):
            return first, second, shard_of(first)
    raise AssertionError("no two ids of one shard")


@dataclass
class Scene:
    """A shard with a finished game (`over`, its log `before`) and a game still being played
    whose ending append is on its way (`ending`, entered as due, which comes just before it),
    the first sorting before the second (so in one file, the game not over yet comes first);
    the archive at `url`."""

    ending: str
    over: str
    shard: int
    before: Entries
    url: str


@pytest.fixture
async def scene(store: EventStore, tmp_path: Path) -> Scene:
    ending, over, shard = two_of_one_shard()
    games = Games(store)
    await games.create(over, seats(2, {0: "random", 1: "random"}), seed=1, token_hashes={}, created_ms=1, ruleset="pot")
    await games.create(ending, seats(2, {1: "random"}), seed=2, token_hashes={0: "h" * 64}, created_ms=2, ruleset="pot")
    assert store.due is not None
    await store.due.add(ending, int(time.time() * 1000))
    return Scene(ending, over, shard, await store.entries(over), str(tmp_path / "archive"))


async def end(raw: Any, namespace: str, game_id: str) -> None:
    """The ending append lands (as far as the mover sees: the summary's status)."""
    await raw.hset(f"{namespace}:{{{game_id}}}:summary", "status", "finished")


class DiesBeforeClearing(Archiver):
    """A mover killed just before it clears its batch's record."""

    async def script(self, script: Script, keys: list[str], args: list[Any], *, repeatable: bool = False) -> Any:
        if script is SWAP and args[1] == "":
            raise ConnectionResetError("killed")
        return await super().script(script, keys, args, repeatable=repeatable)


async def test_a_batch_finished_after_a_crash_is_the_games_it_froze_and_a_game_ended_since_moves_next(
    store: EventStore, raw: Any, namespace: str, scene: Scene, redis_url: str
) -> None:
    ending, over, shard, before, url = scene.ending, scene.over, scene.shard, scene.before, scene.url
    dying = DiesBeforeClearing(store.recorder.wire, Archive(url), namespace=namespace, after_ms=0, lease_ms=200)
    assert await dying.lease(shard)
    with pytest.raises(ConnectionResetError):
        await dying.shard_once(shard, everything=True)
    await end(raw, namespace, ending)
    await asyncio.sleep(0.3)  # the dead mover's lease runs out
    mover = Archiver(store.recorder.wire, Archive(url), namespace=namespace, after_ms=0)
    assert await mover.lease(shard)
    assert await raw.get(mover.batch_key(shard)) is not None  # the dead mover's batch, frozen as `over`
    assert (await mover.shard_once(shard, everything=True)).games == 0  # `over` was dropped before it died
    assert await raw.get(mover.batch_key(shard)) is None
    assert (await mover.shard_once(shard, everything=True)).games == 1  # `ending`, in a batch of its own
    cold = EventStore.from_url(redis_url, namespace=namespace, archive=Archive(url))
    assert await cold.entries(over) == before
    assert (await cold.placed(ending)) is not None
    assert (await cold.placed(over)) != (await cold.placed(ending))
    await cold.close()


class Held(Archive):
    """An archive that waits at a step (its write, or just after its read-back) until let go."""

    def __init__(self, url: str, *, at: str) -> None:
        super().__init__(url)
        self.at, self.reached, self.go = at, threading.Event(), threading.Event()

    def _hold(self, step: str) -> None:
        if step == self.at:
            self.reached.set()
            assert self.go.wait(30)

    def write(self, batch: str, games: Sequence[ArchivedGame]) -> dict[str, Placed]:
        self._hold("write")
        return super().write(batch, games)

    def read_file(self, path: str) -> tuple[list[str], Entries]:
        found = super().read_file(path)
        self._hold("read")
        return found


async def test_two_workers_on_one_batch_after_a_lease_ran_out_put_every_game_where_its_entry_says(
    store: EventStore, raw: Any, namespace: str, scene: Scene, redis_url: str
) -> None:
    ending, over, shard, before, url = scene.ending, scene.over, scene.shard, scene.before, scene.url
    slow, late = Held(url, at="read"), Held(url, at="write")
    first = Archiver(store.recorder.wire, slow, namespace=namespace, after_ms=0, lease_ms=200, holder="first")
    second = Archiver(store.recorder.wire, late, namespace=namespace, after_ms=0, lease_ms=200, holder="second")
    assert await first.lease(shard)
    running = asyncio.create_task(first.shard_once(shard, everything=True))
    await asyncio.to_thread(slow.reached.wait, 30)  # the first wrote its file and read it back
    await end(raw, namespace, ending)
    await asyncio.sleep(0.3)  # its lease runs out meanwhile
    assert await second.lease(shard)
    following = asyncio.create_task(second.shard_once(shard, everything=True))
    await asyncio.to_thread(late.reached.wait, 30)  # the second is about to write the same batch
    slow.go.set()
    await running
    late.go.set()
    await following
    await second.release(shard)  # as its pass would, done with the shard
    mover = Archiver(store.recorder.wire, Archive(url), namespace=namespace, after_ms=0)
    await mover.pass_once(everything=True)
    cold = EventStore.from_url(redis_url, namespace=namespace, archive=Archive(url))
    assert await cold.entries(over) == before
    assert await cold.placed(ending) is not None
    assert len(await cold.entries(ending)) == (await cold.placed(ending)).rows  # type: ignore[union-attr]
    await cold.close()


class Stalled(Archiver):
    """A mover that stalls just after it read (or made) the shard's record, before sealing."""

    def __init__(self, *args: Any, **options: Any) -> None:
        super().__init__(*args, **options)
        self.reached, self.go = asyncio.Event(), asyncio.Event()

    async def move(self, shard: int, batch: Batch, record: bytes, now: int) -> Any:
        self.reached.set()
        await self.go.wait()
        return await super().move(shard, batch, record, now)


async def test_a_worker_that_stalled_before_sealing_leaves_no_seal_behind_when_another_finished_its_batch(
    store: EventStore, raw: Any, namespace: str, scene: Scene, redis_url: str
) -> None:
    stalled = Stalled(store.recorder.wire, Archive(scene.url), namespace=namespace, after_ms=0, lease_ms=200)
    assert await stalled.lease(scene.shard)
    stalling = asyncio.create_task(stalled.shard_once(scene.shard, everything=True))
    await stalled.reached.wait()  # its batch's record is set, not frozen yet
    await asyncio.sleep(0.3)  # its lease runs out
    other = Archiver(store.recorder.wire, Archive(scene.url), namespace=namespace, after_ms=0)
    assert await other.lease(scene.shard)
    assert (await other.shard_once(scene.shard, everything=True)).games == 1  # froze it as `over` alone
    await other.release(scene.shard)
    await end(raw, namespace, scene.ending)
    stalled.go.set()
    assert (await stalling).games == 0  # it sealed `ending`, found the batch frozen without it, unsealed
    summary = await raw.hgetall(f"{namespace}:{{{scene.ending}}}:summary")
    assert b"sealed" not in summary
    assert not await store.archiving(scene.ending)
    await Archiver(store.recorder.wire, Archive(scene.url), namespace=namespace, after_ms=0).pass_once()
    assert await store.placed(scene.ending) is not None  # archived by a batch of its own


class Slow(Archive):
    """An archive whose writes take longer than a mover's lease; `writing` is set while one
    runs."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.writing = threading.Event()

    def write(self, batch: str, games: Sequence[ArchivedGame]) -> dict[str, Placed]:
        self.writing.set()
        try:
            time.sleep(0.6)
            return super().write(batch, games)
        finally:
            self.writing.clear()


async def test_a_batch_longer_than_a_lease_keeps_its_shard_and_ends_while_others_keep_asking(
    store: EventStore, namespace: str, scene: Scene
) -> None:
    archive = Slow(scene.url)
    slow = Archiver(store.recorder.wire, archive, namespace=namespace, after_ms=0, lease_ms=200)
    others = [Archiver(store.recorder.wire, Archive(scene.url), namespace=namespace, after_ms=0) for _ in range(3)]
    working = asyncio.create_task(slow.pass_once())
    asked = taken = 0
    while not working.done():
        if archive.writing.is_set():  # the batch is under way, for three leases' time
            for other in others:
                asked += 1
                if await other.lease(scene.shard):
                    taken += 1
                    await other.release(scene.shard)
        await asyncio.sleep(0.02)
    assert (await working).games == 1  # `over` (`ending` is not over)
    assert asked > 0
    assert taken == 0  # nobody took the shard while its batch ran
    assert await store.placed(scene.over) is not None


async def test_a_pass_of_everything_moves_games_that_ended_before_there_was_an_archive(
    redis_url: str, namespace: str, tmp_path: Path
) -> None:
    before_archives = EventStore.from_url(redis_url, namespace=namespace)  # no archive: no due index
    ids = await finished_games(before_archives, 6)
    await before_archives.close()
    store = EventStore.from_url(redis_url, namespace=namespace, archive=Archive(str(tmp_path / "archive")))
    archiver = store.archiver(after_ms=0)
    assert await archiver.count() == 0
    assert (await archiver.pass_once()).games == 0  # nothing is due
    assert (await archiver.pass_once(everything=True)).games == len(ids)
    assert None not in [await store.placed(game_id) for game_id in ids]
    await store.close()
