"""The event store against one real Redis-compatible server: contenders from many threads
and processes, stored events of older or broken forms, the bounded scan of a sparse
listing and unreachable stores counted. What the store promises wherever it runs is the
contract suite's (tests/cluster/test_store_contract.py: one server and a cluster alike)."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing import get_context

import msgspec
import pytest
from prometheus_client import REGISTRY

from events.games import Games
from events.limits import Limit, Rate
from events.poison.schema import CODEC, CardPlayed, RoundScored
from events.replay import InvalidLog
from events.server import free_port
from events.store import (
    EventStore,
    StoreUnavailable,
    VersionConflict,
    listing_member,
    shard_of,
)
from tests.events.logs import game_log, players, xadd

pytestmark = pytest.mark.anyio


LOG, FINISHED = game_log(4, seed=21)
CARD = CardPlayed(round=1, seat=1, card="R1", cauldron=0, total=1)


def _append_once(url: str, namespace: str, barrier) -> str:
    """One contender: connect, wait for every other one, then append at version 2."""

    async def attempt() -> str:
        store = EventStore.from_url(url, namespace=namespace, timeout=10)
        try:
            await store.ping()
            await asyncio.to_thread(barrier.wait)
            await store.append("race", [CARD], 2, codec=CODEC)
            return "won"
        except VersionConflict:
            return "lost"
        finally:
            await store.close()

    return asyncio.run(attempt())


def _race(pool, barrier, redis_url, namespace):
    asyncio.run(_prepare_race(redis_url, namespace))
    with pool:
        outcomes = list(pool.map(_append_once, [redis_url] * 50, [namespace] * 50, [barrier] * 50))
    return outcomes, asyncio.run(_read_race(redis_url, namespace))


async def _prepare_race(url, namespace):
    store = EventStore.from_url(url, namespace=namespace)
    await store.append("race", LOG[:2], 0, codec=CODEC)
    await store.close()


async def _read_race(url, namespace):
    store = EventStore.from_url(url, namespace=namespace)
    try:
        return await store.read("race")
    finally:
        await store.close()


def test_fifty_threads_appending_at_one_version_leave_exactly_one_winner(redis_url, namespace):
    outcomes, log = _race(ThreadPoolExecutor(max_workers=50), threading.Barrier(50), redis_url, namespace)
    assert outcomes.count("won") == 1
    assert outcomes.count("lost") == 49
    assert [version for version, _ in log] == [1, 2, 3]


def test_fifty_processes_appending_at_one_version_leave_exactly_one_winner(redis_url, namespace):
    # Each contender is forked from a server process that imported the store once (not this
    # process: it runs threads and event loops, which a fork must not copy): fifty fresh
    # interpreters each importing everything took 20-30 s of the test command's budget.
    context = get_context("forkserver")
    context.set_forkserver_preload([__name__])
    with context.Manager() as manager:
        pool = ProcessPoolExecutor(max_workers=50, mp_context=context)
        outcomes, log = _race(pool, manager.Barrier(50), redis_url, namespace)
    assert outcomes.count("won") == 1
    assert outcomes.count("lost") == 49
    assert [version for version, _ in log] == [1, 2, 3]


async def test_an_unreadable_stored_event_is_named_by_its_version(store):
    await store.append("bad", LOG[:2], 0, codec=CODEC)
    await xadd(store, store.recorder.key("bad", "events"), {"t": "card_played", "s": 1, "d": b"\xc1"}, "0-3")
    with pytest.raises(InvalidLog) as refused:
        await store.read("bad")
    assert refused.value.at_version == 3


@pytest.mark.parametrize(
    "fields",
    [{"t": "card_played", "s": 1}, {"t": "card_played", "s": "one", "d": b"\x80"}, {"s": 1, "d": b"\x80"}],
    ids=["no data", "a schema that is no number", "no type"],
)
async def test_a_stored_event_missing_its_fields_is_named_by_its_version(store, fields):
    await store.append("holey", LOG[:2], 0, codec=CODEC)
    await xadd(store, store.recorder.key("holey", "events"), fields, "0-3")
    with pytest.raises(InvalidLog) as refused:
        await store.read("holey")
    assert refused.value.at_version == 3


async def test_an_older_stored_event_is_upcast_when_read(store):
    await store.append("old", LOG[:2], 0, codec=CODEC)
    v1 = msgspec.msgpack.encode(
        {"round": 1, "scores": [0, 0, 0, 0], "taken": [[0, 0, 0, 0]] * 4, "discarded": [[], [], [], []]}
    )
    await xadd(store, store.recorder.key("old", "events"), {"t": "round_scored", "s": 1, "d": v1}, "0-3")
    ((_, event),) = await store.read("old", after=2)
    assert isinstance(event, RoundScored)
    assert event.taken[0].red == 0


async def test_a_sparse_listing_stops_after_a_bounded_scan_and_hands_back_a_cursor(store, monkeypatch):
    import events.listing

    monkeypatch.setattr(events.listing, "MAX_LISTING_BATCHES", 1)
    await Games(store).create("real", players(3), options={"rounds": 1}, seed=1, token_hashes={}, created_ms=1)
    for number in range(150):  # newer games whose first append never happened: skipped
        game_id = f"orphan{number}"
        index = store.listing.index(shard_of(game_id))
        await store.recorder.wire.execute("ZADD", index, 0, listing_member(game_id, 1000 + number))
    page, cursor = await store.listing.list_games(limit=10)
    assert page == []
    assert cursor is not None
    seen = []
    while cursor is not None:
        page, cursor = await store.listing.list_games(limit=10, cursor=cursor)
        seen += [summary.game_id for summary in page]
    assert seen == ["real"]


async def test_every_kind_of_store_call_that_cannot_reach_the_store_is_counted_as_a_store_error(namespace):
    down = EventStore.from_url(f"redis://127.0.0.1:{free_port()}/0", namespace=namespace, timeout=0.5)
    counted = REGISTRY.get_sample_value("poison_store_errors_total") or 0.0
    calls = [
        down.version("g"),
        down.append("g", LOG[:2], 0, codec=CODEC),
        down.listing.list_games(),
        down.buckets.limit([Limit(down.buckets.limit_key("moves", "10.0.0.9"), Rate(1, 1))]),
        down.tokens.token_hashes("g"),
        down.read_log("g"),
    ]
    try:
        for call in calls:
            with pytest.raises(StoreUnavailable):
                await call
    finally:
        await down.close()
    assert REGISTRY.get_sample_value("poison_store_errors_total") == counted + len(calls)


async def test_an_append_of_no_events_is_refused_before_it_lists_the_game(store):
    listed = {"status": "active", "listed": listing_member("none", 5)}
    with pytest.raises(ValueError, match="at least one event"):
        await store.append("none", [], 0, codec=CODEC, summary=listed)
    index = store.listing.index(shard_of("none"))
    assert await store.recorder.wire.execute("ZRANGE", index, 0, -1) == []
    assert await store.version("none") == 0
