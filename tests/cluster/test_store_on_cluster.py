"""The event store on a real Redis Cluster (three masters, a replica each): whole games of
both rulesets, idempotent retries, racing appends, the finished copy, the listing (its
shards merged, with cursors and status filters) and the rate limits, as on one server."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import aclosing

import pytest
from litestar.testing import AsyncTestClient

from core.errors import RuleError
from events.cluster import LocalCluster
from events.games import Games
from events.limits import Rate, RateLimited, RateLimits
from events.slots import slot_of
from events.store import EventStore, Idempotency, IdempotencyKeyReused, StoreUnavailable, VersionConflict
from service.app import create_app
from service.settings import Settings
from tests.events.logs import game_log, players
from tests.service.api import auth, create, view

pytestmark = pytest.mark.anyio

LOG, _ = game_log(4, seed=5)


@pytest.fixture
async def store(cluster: LocalCluster) -> AsyncIterator[EventStore]:
    store = EventStore.from_url(cluster.url, namespace=f"c{uuid.uuid4().hex[:8]}")
    yield store
    await store.close()


def masters_of(cluster: LocalCluster, keys: list[str]) -> set[int]:
    ranges = cluster.slots()
    return {next(port for first, last, port, _ in ranges if first <= slot_of(key) <= last) for key in keys}


async def play_to_the_end(games: Games, game_id: str, client: str | None = None) -> int:
    logged = await games.load(game_id)
    moves = 0
    while not logged.finished:
        _, logged = await games.play(game_id, logged.game.turn, *logged.game.legal_moves()[0], client=client)
        moves += 1
    return moves


async def test_whole_games_of_both_rulesets_are_stored_and_read_back_with_their_finished_copy(store, cluster):
    games = Games(store)
    await games.create("poison-1", players(3), rounds=1, seed=1, token_hashes={0: "h0"}, created_ms=1)
    await games.create("pot-1", players(3), ruleset="pot", options={}, seed=2, token_hashes={}, created_ms=2)
    assert len(masters_of(cluster, [store._key(game, "events") for game in ("poison-1", "pot-1")])) == 2
    for game_id in ("poison-1", "pot-1"):
        await play_to_the_end(games, game_id)
        log = await store.read(game_id)
        assert [version for version, _ in log] == list(range(1, len(log) + 1))
        assert await store.version(game_id) == len(log)
        assert await store.wire.execute("EXISTS", store._key(game_id, "finished")) == 1
        assert await store.read_log(game_id) == log
        assert (await Games(store).load(game_id)).finished
    assert await store.token_hashes("poison-1") == {0: "h0"}


async def test_an_idempotent_retry_is_answered_from_its_record_and_another_request_with_its_key_refused(store):
    await store.append("idem", LOG[:2], 0)
    key = Idempotency("retry", "fingerprint-a", b"answer")
    first = await store.append("idem", LOG[2:3], 2, idempotency=key)
    again = await store.append("idem", LOG[2:3], 2, idempotency=key)
    assert (again.version, again.replayed, again.result) == (first.version, True, b"answer")
    assert await store.recall("idem", key) == again
    with pytest.raises(IdempotencyKeyReused):
        await store.append("idem", LOG[3:4], 3, idempotency=Idempotency("retry", "fingerprint-b"))
    assert await store.version("idem") == 3


async def test_appends_racing_at_one_version_leave_exactly_one_winner(store):
    await store.append("race", LOG[:2], 0)

    async def attempt(n: int) -> str:
        try:
            await store.append("race", LOG[2:3], 2, summary={"version": 3, "by": n})
        except VersionConflict:
            return "lost"
        return "won"

    outcomes = await asyncio.gather(*(attempt(n) for n in range(30)))
    assert outcomes.count("won") == 1
    assert [version for version, _ in await store.read("race")] == [1, 2, 3]


async def test_games_on_three_masters_are_listed_newest_first_with_cursors_and_status_filters(store, cluster):
    games = Games(store)
    ids = [f"L{number}" for number in range(24)]
    for number, game_id in enumerate(ids):
        await games.create(game_id, players(3), rounds=1, seed=number, token_hashes={}, created_ms=number)
    assert len(masters_of(cluster, [store._key(game_id, "summary") for game_id in ids])) == 3
    assert len(masters_of(cluster, store._indexes(None))) == 3  # the listing's shards too
    finished = {"L2", "L11", "L19"}
    for game_id in sorted(finished):
        await play_to_the_end(games, game_id)
    for status, expected in [
        (None, ids[::-1]),
        ("active", [game_id for game_id in ids[::-1] if game_id not in finished]),
        ("finished", ["L19", "L11", "L2"]),
    ]:
        seen, cursor = [], None
        while True:
            page, cursor = await store.list_games(status=status, limit=5, cursor=cursor)
            seen += [summary.game_id for summary in page]
            if cursor is None:
                break
        assert seen == expected


async def test_a_client_over_its_move_limit_is_refused_and_its_move_not_stored(store):
    games = Games(store, limits=RateLimits(move=Rate(0.01, 3), seat_move=Rate(1000, 1000)))
    await games.create("limited", players(3), rounds=1, seed=7, token_hashes={}, created_ms=1)
    logged = await games.load("limited")
    for _ in range(3):
        _, logged = await games.play("limited", logged.game.turn, *logged.game.legal_moves()[0], client="10.0.0.1")
    version = logged.version
    with pytest.raises(RateLimited) as refused:
        await games.play("limited", logged.game.turn, *logged.game.legal_moves()[0], client="10.0.0.1")
    assert refused.value.what == "moves"
    assert await store.version("limited") == version
    # Another client's bucket is its own.
    await games.play("limited", logged.game.turn, *logged.game.legal_moves()[0], client="10.0.0.2")
    assert await store.version("limited") > version


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


async def test_a_refused_move_takes_from_its_seats_and_its_clients_buckets_of_two_slots(store):
    games = Games(store, limits=RateLimits(move=Rate(0.01, 2), seat_move=Rate(1000, 1000)))
    await games.create("refused", players(3), rounds=1, seed=8, token_hashes={}, created_ms=1)
    logged = await games.load("refused")
    wrong_seat = (logged.game.turn + 1) % 3
    for _ in range(2):
        with pytest.raises(RuleError):
            await games.play("refused", wrong_seat, *logged.game.legal_moves()[0], client="10.0.0.3")
    with pytest.raises(RateLimited):  # the client's two tokens went to the refused moves
        await games.play("refused", logged.game.turn, *logged.game.legal_moves()[0], client="10.0.0.3")
    assert await store.version("refused") == logged.version


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
