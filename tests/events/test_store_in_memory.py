"""The store over the in-memory recorder (events/memory.py): a game's log kept without a
server, appended and read as events through the mapper, rebuilt and followed as a log in
Redis is; and what it leaves out refused in words."""

from __future__ import annotations

import asyncio
from operator import itemgetter

import pytest

from events.games import Games
from events.limits import Limit, Rate
from events.memory import MemoryRecorder
from events.poison.schema import CODEC
from events.records import Append, StoredEvent, VersionConflict
from events.restore import restore
from events.store import EventStore
from tests.events.logs import followed, game_log, numbered
from tests.waiting import until_async

pytestmark = pytest.mark.anyio

LOG, FINISHED = game_log(4, seed=21)


async def test_a_whole_game_appended_through_the_store_in_memory_reads_back_and_rebuilds_as_played():
    store = EventStore(MemoryRecorder())
    for version, event in enumerate(LOG):
        await store.append("g", [event], version, codec=CODEC, summary={"status": "active"}, tokens={0: "h0"})
    with pytest.raises(VersionConflict):
        await store.append("g", LOG[:1], 3, codec=CODEC)
    assert await store.read("g") == numbered(LOG)
    assert await store.read_log("g") == numbered(LOG)
    assert restore(await store.read_log("g")).game.totals == FINISHED.game.totals
    assert await store.tokens.token_hashes("g") == {0: "h0"}
    assert await store.version("g") == len(LOG)


async def test_a_follower_of_a_game_in_memory_gets_its_events_as_they_are_appended():
    store = EventStore(MemoryRecorder())
    await store.append("f", LOG[:2], 0, codec=CODEC)
    seen, following = followed(store.follow("f", 0), itemgetter(0), last=4)
    await until_async(lambda: seen == [1, 2], what="the events already appended")
    await store.append("f", LOG[2:4], 2, codec=CODEC)
    await asyncio.wait_for(following, 10)
    assert seen == [1, 2, 3, 4]


async def test_what_the_in_memory_recorder_leaves_out_is_refused_in_words_and_changes_nothing():
    recorder = MemoryRecorder()
    bucket = Limit("poison:limits:moves:10.0.0.9", Rate(1, 1))
    with pytest.raises(ValueError, match="keeps no rate-limit buckets"):
        await recorder.append("g", Append([StoredEvent("kind", 1, b"")], 0, limits=[bucket]))
    assert await recorder.version("g") == 0
    with pytest.raises(ValueError, match="need a store with a listing"):
        Games(EventStore(recorder))
