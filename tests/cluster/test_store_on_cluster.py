"""The event store on a real Redis Cluster (three masters, a replica each): what only a
cluster has: keys spread over the masters, a live streams' waiter per slot woken at once,
a followed game's master killed, and the service played whole there. What the store
promises everywhere runs on both one server and this cluster in test_store_contract.py."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import aclosing

import pytest
from litestar.testing import AsyncTestClient

from events.cluster import LocalCluster
from events.poison.schema import CODEC
from events.records import version_of
from events.slots import slot_of
from events.store import EventStore, StoreUnavailable, VersionConflict
from service.app import create_app
from service.settings import Settings
from tests.events.logs import game_log
from tests.service.api import auth, create, view
from tests.waiting import blocked, calls, until_async

pytestmark = [pytest.mark.anyio, pytest.mark.cluster]

LOG, _ = game_log(4, seed=5)


@pytest.fixture
async def store(cluster: LocalCluster) -> AsyncIterator[EventStore]:
    store = EventStore.from_url(cluster.url, namespace=f"c{uuid.uuid4().hex[:8]}")
    yield store
    await store.close()


@pytest.fixture
async def patient(cluster: LocalCluster) -> AsyncIterator[EventStore]:
    """A store whose waiters block for 30 s at a time (and whose connections wait 60 s for a
    reply): a follower that is not woken at once waits that long, far past any deadline of
    the tests, so that they prove a prompt wake-up without timing it."""
    store = EventStore.from_url(cluster.url, namespace=f"c{uuid.uuid4().hex[:8]}", timeout=60)
    assert store.recorder.follower is not None
    store.recorder.follower.block_ms = 30_000
    yield store
    await store.close()


def node_of(store: EventStore, slot: int) -> str:
    """The URL of the node the waiter of `slot` blocks on."""
    options = store.recorder.follower._waiters[slot].connection.options
    return f"redis://:{options['password']}@{options['host']}:{options['port']}"


def waiter_blocked(store: EventStore, slot: int) -> bool:
    """Whether the waiter of `slot` is blocked in its XREAD: it knows its connection's id (it
    can be unblocked), and its node shows that client blocked."""
    waiter = store.recorder.follower._waiters.get(slot)
    return bool(
        waiter is not None
        and waiter.client_id is not None
        and blocked(node_of(store, slot), "xread", client_id=waiter.client_id)
    )


def masters_of(cluster: LocalCluster, keys: list[str]) -> set[int]:
    ranges = cluster.slots()
    return {next(port for first, last, port, _ in ranges if first <= slot_of(key) <= last) for key in keys}


async def test_games_their_listings_shards_and_a_clients_bucket_spread_over_the_masters(store, cluster):
    # Where the keys the contract suite (test_store_contract.py) writes on the cluster live.
    games = [f"L{number}" for number in range(24)]
    assert len(masters_of(cluster, [store.recorder.key(game_id, "events") for game_id in ("poison-1", "pot-1")])) == 2
    assert len(masters_of(cluster, [store.recorder.key(game_id, "summary") for game_id in games])) == 3
    assert len(masters_of(cluster, store.listing.indexes(None))) == 3
    assert len(masters_of(cluster, store.listing.indexes("finished"))) == 3
    seat, client = store.buckets.seat_limit_key("refused", 0), store.buckets.limit_key("moves", "10.0.0.3")
    assert slot_of(seat) == slot_of(store.recorder.key("refused", "events")) != slot_of(client)


async def test_games_on_three_masters_are_followed_live_one_waiter_a_slot(patient, cluster):
    store = patient
    ids = [f"F{number}" for number in range(9)]
    assert len(masters_of(cluster, [store.recorder.key(game_id, "events") for game_id in ids])) == 3
    slots = {slot_of(store.recorder.key(game_id, "events")) for game_id in ids}
    for game_id in ids:
        await store.append(game_id, LOG[:2], 0, codec=CODEC)

    async def follow(game_id: str) -> list[int]:
        seen: list[int] = []
        # No stream's own read after an idle wait here: only the waiters can bring them.
        async with aclosing(store.recorder.follower.follow(game_id, 2, idle=60)) as batches:
            async for batch in batches:
                seen += [version_of(raw) for raw in batch]
                if seen[-1] >= 6:
                    return seen
        return seen

    following = [asyncio.ensure_future(follow(game_id)) for game_id in ids]
    # Every slot's waiter blocked (a game followed while its slot's waiter blocks is read at
    # once: CLIENT UNBLOCK).
    await until_async(lambda: all(waiter_blocked(store, slot) for slot in slots), what="every waiter blocked")
    for version in range(2, 6):
        for game_id in ids:
            await store.append(game_id, LOG[version : version + 1], version, codec=CODEC)
    # A waiter not reading a game would bring its events after its block time: 30 s.
    assert await asyncio.wait_for(asyncio.gather(*following), 10) == [[3, 4, 5, 6]] * len(ids)
    assert store.recorder.follower.followed == 0
    # Each waiter, once its XREAD (here woken by one more event of its games) finds no game
    # left, is gone.
    for game_id in ids:
        await store.append(game_id, LOG[6:7], 6, codec=CODEC)
    await until_async(lambda: not store.recorder.follower._waiters, deadline=10, what="every waiter gone")


async def test_a_game_followed_while_its_slots_waiter_blocks_is_read_at_once(patient, cluster):
    store = patient
    # Two games of one slot (ids with the same CRC16), so that one waiter reads both.
    first = "W0"
    second = next(
        f"W{n}"
        for n in range(1, 200_000)
        if slot_of(store.recorder.key(f"W{n}", "events")) == slot_of(store.recorder.key(first, "events"))
    )
    for game_id in (first, second):
        await store.append(game_id, LOG[:2], 0, codec=CODEC)
    slot = slot_of(store.recorder.key(first, "events"))
    # No stream's own read after an idle wait here: only the waiter brings events.
    quiet = asyncio.ensure_future(anext(aiter(store.recorder.follower.follow(first, 2, idle=60))))
    await until_async(lambda: waiter_blocked(store, slot), what="the slot's waiter blocked on the first game alone")
    node = node_of(store, slot)
    unblocked = calls(node, "client|unblock")
    following = asyncio.ensure_future(anext(aiter(store.recorder.follower.follow(second, 2, idle=60))))
    # Following the second game sends CLIENT UNBLOCK to the node after its first read of the
    # log (XRANGE), on the same connection: once the node has run it, that read is done, and
    # the event appended now can only come through the waiter.
    await until_async(lambda: calls(node, "client|unblock") > unblocked, what="the waiter unblocked")
    await store.append(second, LOG[2:3], 2, codec=CODEC)
    # Not unblocked, the waiter would read the second game after its block time: 30 s.
    assert [version_of(raw) for raw in await asyncio.wait_for(following, 10)] == [3]
    assert list(store.recorder.follower._waiters) == [slot]
    quiet.cancel()


async def test_the_service_on_the_cluster_plays_a_whole_game_lists_it_and_reads_its_events(cluster):
    settings = Settings(redis_url=cluster.url, namespace=f"c{uuid.uuid4().hex[:8]}")
    async with AsyncTestClient(create_app(settings)) as client:
        created, tokens = await create(client, 3, rounds=1)
        game_id = created["game_id"]
        other, _ = await create(client, 3, bots={1: "random", 2: "random"}, rounds=1)
        while (seen := await view(client, game_id, tokens[0]))["status"] != "finished":
            seat = seen["turn"]
            mine = await view(client, game_id, tokens[seat])
            move = mine["you"]["legal_moves"][0]
            response = await client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(tokens[seat]))
            assert response.status_code == 201, response.text
        finished = (await client.get("/v1/games", params={"status": "finished"})).json()
        assert [game["game_id"] for game in finished["games"]] == [game_id]
        every = (await client.get("/v1/games")).json()
        assert [game["game_id"] for game in every["games"]] == [other["game_id"], game_id]
        events = (await client.get(f"/v1/games/{game_id}/events", headers=auth(tokens[0]))).json()
        assert events["events"][-1]["type"] == "game_finished"


async def test_a_game_followed_when_its_master_is_killed_is_followed_on_the_promoted_replica(store, cluster):
    game_id = f"failover-{uuid.uuid4().hex[:6]}"
    await store.append(game_id, LOG[:2], 0, codec=CODEC)
    (victim_port,) = masters_of(cluster, [store.recorder.key(game_id, "events")])
    seen: list[int] = []

    async def follow() -> None:
        assert store.recorder.follower is not None
        # No stream's own read after an idle wait here: only the waiter can bring them.
        async with aclosing(store.recorder.follower.follow(game_id, 2, idle=60)) as batches:
            async for batch in batches:
                seen.extend(version_of(raw) for raw in batch)
                if seen[-1] >= 5:
                    return

    following = asyncio.ensure_future(follow())
    slot = slot_of(store.recorder.key(game_id, "events"))
    await until_async(lambda: waiter_blocked(store, slot), what="its slot's waiter blocked on the master")
    victim = cluster.node_on(victim_port)
    try:
        victim.kill()  # kill -9
        version, deadline = 2, time.monotonic() + 30
        while version < 5:
            try:
                version = (await store.append(game_id, LOG[version : version + 1], version, codec=CODEC)).version
            except StoreUnavailable:  # until the replica is promoted
                assert time.monotonic() < deadline, "the game's slot was not served again"
                await asyncio.sleep(0.1)
            except VersionConflict as conflict:  # done, but its acknowledgement was lost
                version = conflict.current_version
        # The waiter, its read failed, reads the map again and reads on the promoted replica
        # (its retries at most its block time apart, 1 s): within 10 s of the last append.
        await asyncio.wait_for(following, 10)
        assert seen == [3, 4, 5]
    finally:
        following.cancel()
        victim.start()  # it comes back as the promoted replica's replica
        cluster.wait_until_ok(30)
