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
from events.slots import slot_of
from events.store import EventStore, StoreUnavailable, VersionConflict
from service.app import create_app
from service.settings import Settings
from tests.events.logs import game_log
from tests.service.api import auth, create, view

pytestmark = [pytest.mark.anyio, pytest.mark.cluster]

LOG, _ = game_log(4, seed=5)


@pytest.fixture
async def store(cluster: LocalCluster) -> AsyncIterator[EventStore]:
    store = EventStore.from_url(cluster.url, namespace=f"c{uuid.uuid4().hex[:8]}")
    yield store
    await store.close()


def masters_of(cluster: LocalCluster, keys: list[str]) -> set[int]:
    ranges = cluster.slots()
    return {next(port for first, last, port, _ in ranges if first <= slot_of(key) <= last) for key in keys}


async def test_games_their_listings_shards_and_a_clients_bucket_spread_over_the_masters(store, cluster):
    # Where the keys the contract suite (test_store_contract.py) writes on the cluster live.
    games = [f"L{number}" for number in range(24)]
    assert len(masters_of(cluster, [store._key(game_id, "events") for game_id in ("poison-1", "pot-1")])) == 2
    assert len(masters_of(cluster, [store._key(game_id, "summary") for game_id in games])) == 3
    assert len(masters_of(cluster, store._indexes(None))) == 3
    assert len(masters_of(cluster, store._indexes("finished"))) == 3
    seat, client = store.seat_limit_key("refused", 0), store.limit_key("moves", "10.0.0.3")
    assert slot_of(seat) == slot_of(store._key("refused", "events")) != slot_of(client)


async def test_games_on_three_masters_are_followed_live_one_waiter_a_slot(store, cluster):
    ids = [f"F{number}" for number in range(9)]
    assert len(masters_of(cluster, [store._key(game_id, "events") for game_id in ids])) == 3
    for game_id in ids:
        await store.append(game_id, LOG[:2], 0)

    async def follow(game_id: str) -> list[int]:
        seen: list[int] = []
        async with aclosing(store.follow(game_id, 2)) as batches:
            async for batch in batches:
                seen += [version for version, _ in batch]
                if seen[-1] >= 6:
                    return seen
        return seen

    following = [asyncio.ensure_future(follow(game_id)) for game_id in ids]
    await asyncio.sleep(0.2)  # every waiter blocked: each later game is read at once (CLIENT UNBLOCK)
    started = time.monotonic()
    for version in range(2, 6):
        for game_id in ids:
            await store.append(game_id, LOG[version : version + 1], version)
    assert await asyncio.wait_for(asyncio.gather(*following), 5) == [[3, 4, 5, 6]] * len(ids)
    assert time.monotonic() - started < 0.9  # not after a waiter's block time (1 s)
    assert store.follower is not None
    assert store.follower.followed == 0
    # Each waiter, once its XREAD (1 s at most) finds no game left, is gone.
    deadline = time.monotonic() + 3
    while store.follower._waiters and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert store.follower._waiters == {}


async def test_a_game_followed_while_its_slots_waiter_blocks_is_read_at_once(store, cluster):
    # Two games of one slot (ids with the same CRC16), so that one waiter reads both.
    first = "W0"
    second = next(
        f"W{n}"
        for n in range(1, 200_000)
        if slot_of(store._key(f"W{n}", "events")) == slot_of(store._key(first, "events"))
    )
    for game_id in (first, second):
        await store.append(game_id, LOG[:2], 0)
    quiet = asyncio.ensure_future(anext(aiter(store.follow(first, 2))))
    await asyncio.sleep(0.3)  # the slot's waiter now blocks on the first game alone (for up to 1 s)
    started = time.monotonic()
    following = asyncio.ensure_future(anext(aiter(store.follow(second, 2))))
    await asyncio.sleep(0.05)
    await store.append(second, LOG[2:3], 2)
    assert [version for version, _ in await asyncio.wait_for(following, 5)] == [3]
    assert time.monotonic() - started < 0.5  # not after the waiter's block time: CLIENT UNBLOCK
    assert store.follower is not None
    assert list(store.follower._waiters) == [slot_of(store._key(first, "events"))]
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
    await store.append(game_id, LOG[:2], 0)
    (victim_port,) = masters_of(cluster, [store._key(game_id, "events")])
    seen: list[int] = []

    async def follow() -> None:
        assert store.follower is not None
        # No stream's own read after an idle wait here: only the waiter can bring them.
        async with aclosing(store.follower.follow(game_id, 2, idle=60)) as batches:
            async for batch in batches:
                seen.extend(version for version, _ in batch)
                if seen[-1] >= 5:
                    return

    following = asyncio.ensure_future(follow())
    await asyncio.sleep(0.2)  # its slot's waiter blocks on the master
    victim = cluster.node_on(victim_port)
    try:
        victim.kill()  # kill -9
        version, deadline = 2, time.monotonic() + 15
        while version < 5:
            try:
                version = (await store.append(game_id, LOG[version : version + 1], version)).version
            except StoreUnavailable:  # until the replica is promoted
                assert time.monotonic() < deadline, "the game's slot was not served again"
                await asyncio.sleep(0.1)
            except VersionConflict as conflict:  # done, but its acknowledgement was lost
                version = conflict.current_version
        appended = time.monotonic()
        await asyncio.wait_for(following, 10)
        assert seen == [3, 4, 5]
        assert time.monotonic() - appended < 5
    finally:
        following.cancel()
        victim.start()  # it comes back as the promoted replica's replica
        cluster.wait_until_ok(30)
