"""The event store's contract, held alike on one server and on a real Redis Cluster
(three masters, a replica each): every test here runs against both (the `store` fixture),
so that what the store promises does not depend on where it runs. Appends and reads,
versions and conflicts, idempotent retries and refused requests remembered, the finished
copy, the listing (shards merged, cursors, status filters), the seat tokens, the rate
limits and following a game live. What only a cluster has (a waiter per slot, failover)
is tests/cluster/test_store_on_cluster.py's."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import AsyncIterator
from operator import itemgetter

import pytest

from core.errors import RuleError
from events.games import Games
from events.limits import Rate, RateLimited, RateLimits
from events.poison.schema import CODEC, CardPlayed
from events.store import EventStore, Idempotency, IdempotencyKeyReused, UnknownGame, VersionConflict, shard_of
from tests.events.logs import followed, game_log, numbered, play_to_the_end, players
from tests.events.test_recorder_contract import server_url
from tests.waiting import until_async

pytestmark = pytest.mark.anyio

LOG, _ = game_log(4, seed=21)
CARD = CardPlayed(round=1, seat=1, card="R1", cauldron=0, total=1)


@pytest.fixture(params=["one server", pytest.param("cluster", marks=pytest.mark.cluster)])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[EventStore]:
    store = EventStore.from_url(server_url(request, request.param), namespace=f"c{uuid.uuid4().hex[:8]}")
    yield store
    await store.close()


async def test_appended_events_read_back_in_order_with_their_versions(store):
    first = await store.append("g1", LOG[:2], 0, codec=CODEC)
    rest = await store.append("g1", LOG[2:], 2, codec=CODEC)
    assert (first.version, first.count, rest.version, rest.first_version) == (2, 2, len(LOG), 3)
    assert await store.read("g1") == numbered(LOG)
    assert await store.read("g1", after=5, limit=3) == numbered(LOG)[5:8]
    assert await store.read("g1", after=len(LOG)) == []
    assert await store.version("g1") == len(LOG)


async def test_a_stale_version_is_a_conflict_carrying_the_current_version_and_appends_nothing(store):
    await store.append("g2", LOG[:3], 0, codec=CODEC)
    with pytest.raises(VersionConflict) as conflict:
        await store.append("g2", LOG[3:5], 2, codec=CODEC)
    assert (conflict.value.expected, conflict.value.current_version) == (2, 3)
    with pytest.raises(VersionConflict):
        await store.append("g2", LOG[3:5], 4, codec=CODEC)
    assert await store.read("g2") == numbered(LOG[:3])


async def test_a_game_that_does_not_exist_has_no_events_and_a_bad_id_none_at_all(store):
    assert await store.read("nobody") == []
    assert await store.version("nobody") == 0
    for bad in ["", "a" * 65, "a b", "x}{y", "é"]:
        with pytest.raises(UnknownGame):
            await store.read(bad)


async def test_an_idempotent_retry_returns_the_first_result_and_appends_nothing(store):
    await store.append("g3", LOG[:2], 0, codec=CODEC)
    key = Idempotency("retry-1", "fingerprint-a", b"first answer")
    first = await store.append("g3", LOG[2:4], 2, idempotency=key, codec=CODEC)
    again = await store.append("g3", LOG[2:4], 2, idempotency=key, codec=CODEC)
    assert (again.version, again.count, again.replayed, again.result) == (first.version, 2, True, b"first answer")
    assert await store.idempotency.recall("g3", key) == again
    assert await store.version("g3") == 4
    with pytest.raises(IdempotencyKeyReused):
        await store.append("g3", LOG[4:5], 4, idempotency=Idempotency("retry-1", "fingerprint-b"), codec=CODEC)
    with pytest.raises(IdempotencyKeyReused):
        await store.idempotency.recall("g3", Idempotency("retry-1", "fingerprint-b"))
    assert await store.idempotency.recall("g3", Idempotency("another", "x")) is None
    record = store.recorder.key("g3", "idempotency:" + hashlib.sha256(b"retry-1").hexdigest())
    ttl = await store.recorder.wire.execute("TTL", record)
    assert ttl > 24 * 3600


async def test_readers_never_see_part_of_a_move(store):
    await store.append("g4", LOG[:2], 0, codec=CODEC)
    seen: set[int] = set()
    done = asyncio.Event()

    async def reader():
        while not done.is_set():
            seen.add(await store.version("g4"))
            await asyncio.sleep(0)

    async def writer():
        version = 2
        for _ in range(200):
            await store.append("g4", [CARD, CARD, CARD], version, codec=CODEC)  # three events per "move"
            version += 3
        done.set()

    await asyncio.gather(reader(), reader(), writer())
    assert seen <= {2 + 3 * n for n in range(201)}
    assert len(seen) > 10


async def test_summaries_tokens_and_the_listing_newest_first_with_a_cursor(store):
    games = Games(store)

    for number in range(7):
        await games.create(
            f"list{number}",
            players(3 + number % 4),
            options={"rounds": 1},
            seed=number,
            token_hashes={0: f"hash{number}"},
            created_ms=1_700_000_000_000 + number,
        )
    await games.play("list2", *_first_move(await games.load("list2")))
    page, cursor = await store.listing.list_games(limit=3)
    assert [s.game_id for s in page] == ["list6", "list5", "list4"]
    page2, cursor2 = await store.listing.list_games(limit=3, cursor=cursor)
    assert [s.game_id for s in page2] == ["list3", "list2", "list1"]
    page3, cursor3 = await store.listing.list_games(limit=3, cursor=cursor2)
    assert ([s.game_id for s in page3], cursor3) == (["list0"], None)
    assert page2[1].version == 3
    assert page2[1].players == ["player0", "player1", "player2", "player3", "player4"][: 3 + 2 % 4]
    assert await store.tokens.token_hashes("list4") == {0: "hash4"}
    with pytest.raises(ValueError, match="cursor"):
        await store.listing.list_games(cursor="nonsense")


def _first_move(logged):
    card, cauldron = logged.game.legal_moves()[0]
    return logged.game.turn, card, cauldron


async def test_whole_games_of_both_rulesets_are_stored_and_read_back_with_their_finished_copy(store):
    games = Games(store)
    await games.create("poison-1", players(3), options={"rounds": 1}, seed=1, token_hashes={0: "h0"}, created_ms=1)
    await games.create("pot-1", players(3), ruleset="pot", options={}, seed=2, token_hashes={}, created_ms=2)
    for game_id in ("poison-1", "pot-1"):
        await play_to_the_end(games, game_id)
        log = await store.read(game_id)
        assert [version for version, _ in log] == list(range(1, len(log) + 1))
        assert await store.version(game_id) == len(log)
        assert await store.recorder.wire.execute("EXISTS", store.recorder.key(game_id, "finished")) == 1
        assert await store.read_log(game_id) == log
        assert (await Games(store).load(game_id)).finished
    assert await store.tokens.token_hashes("poison-1") == {0: "h0"}
    assert await store.tokens.token_hashes("pot-1") == {}


async def test_a_refused_request_is_remembered_once_under_its_key_and_recalled_for_its_retries(store):
    await store.append("refusal", LOG[:2], 0, codec=CODEC)
    refused = Idempotency("k", "fingerprint", b"refused", scope="seat0")
    assert await store.idempotency.recall("refusal", refused) is None
    kept = await store.idempotency.remember("refusal", refused)
    assert (kept.version, kept.count, kept.replayed, kept.result) == (2, 0, True, b"refused")
    # A second answer under the same key does not replace the first.
    assert (await store.idempotency.remember("refusal", refused._replace(result=b"other"))).result == b"refused"
    assert await store.idempotency.recall("refusal", refused) == kept
    assert await store.idempotency.recall("refusal", refused._replace(scope="seat1")) is None  # another caller's key
    with pytest.raises(IdempotencyKeyReused):
        await store.idempotency.recall("refusal", refused._replace(fingerprint="another request"))
    assert await store.version("refusal") == 2


async def test_a_callers_refusals_beyond_the_bound_are_forgotten_oldest_first_and_others_kept(store):
    await store.append("bounded", LOG[:2], 0, codec=CODEC)
    keys = [Idempotency(f"k{n}", f"request {n}", f"refused {n}".encode(), scope="seat0") for n in range(5)]
    for key in keys:
        assert (await store.idempotency.remember("bounded", key, kept=3)).result == key.result
    other = Idempotency("k0", "request 0", b"seat 1's", scope="seat1")
    await store.idempotency.remember("bounded", other, kept=3)
    kept = [await store.idempotency.recall("bounded", key) is not None for key in keys]
    assert kept == [False, False, True, True, True]
    assert (await store.idempotency.recall("bounded", other)) is not None  # another caller's refusals are its own


async def test_appends_racing_at_one_version_leave_exactly_one_winner(store):
    await store.append("race", LOG[:2], 0, codec=CODEC)

    async def attempt(n: int) -> str:
        try:
            await store.append("race", LOG[2:3], 2, summary={"version": 3, "by": n}, codec=CODEC)
        except VersionConflict:
            return "lost"
        return "won"

    outcomes = await asyncio.gather(*(attempt(n) for n in range(30)))
    assert outcomes.count("won") == 1
    assert [version for version, _ in await store.read("race")] == [1, 2, 3]


async def test_games_are_listed_newest_first_with_cursors_and_status_filters(store):
    games = Games(store)
    ids = [f"L{number}" for number in range(24)]
    for number, game_id in enumerate(ids):
        await games.create(game_id, players(3), options={"rounds": 1}, seed=number, token_hashes={}, created_ms=number)
    assert len({shard_of(game_id) for game_id in ids}) > 8  # spread over the listing's shards
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
            page, cursor = await store.listing.list_games(status=status, limit=5, cursor=cursor)
            seen += [summary.game_id for summary in page]
            if cursor is None:
                break
        assert seen == expected


async def test_a_client_over_its_move_limit_is_refused_and_its_move_not_stored(store):
    games = Games(store, limits=RateLimits(move=Rate(0.01, 3), seat_move=Rate(1000, 1000)))
    await games.create("limited", players(3), options={"rounds": 1}, seed=7, token_hashes={}, created_ms=1)
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


async def test_a_refused_move_takes_from_its_seats_and_its_clients_buckets(store):
    games = Games(store, limits=RateLimits(move=Rate(0.01, 2), seat_move=Rate(1000, 1000)))
    await games.create("refused", players(3), options={"rounds": 1}, seed=8, token_hashes={}, created_ms=1)
    logged = await games.load("refused")
    wrong_seat = (logged.game.turn + 1) % 3
    for _ in range(2):
        with pytest.raises(RuleError):
            await games.play("refused", wrong_seat, *logged.game.legal_moves()[0], client="10.0.0.3")
    with pytest.raises(RateLimited):  # the client's two tokens went to the refused moves
        await games.play("refused", logged.game.turn, *logged.game.legal_moves()[0], client="10.0.0.3")
    assert await store.version("refused") == logged.version


async def test_a_followed_game_brings_each_new_event_once_and_in_order(store):
    await store.append("followed", LOG[:2], 0, codec=CODEC)
    seen, following = followed(store.follow("followed", 1), itemgetter(0), last=5)
    for version in range(2, 5):
        # Each event appended once the follower has seen the one before: it comes live.
        await until_async(lambda v=version: bool(seen) and seen[-1] >= v, what=f"the follower at version {version}")
        await store.append("followed", LOG[version : version + 1], version, codec=CODEC)
    await asyncio.wait_for(following, 10)
    assert seen == [2, 3, 4, 5]
