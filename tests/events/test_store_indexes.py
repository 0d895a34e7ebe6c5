"""The store's per-caller idempotency records and per-status listing indexes, including
what stores written before them hold."""

from __future__ import annotations

import pytest

from events.games import Games
from events.schema import Rules
from events.store import EventStore, Idempotency, VersionConflict, listing_member, shard_of
from tests.events.logs import game_log, play_to_the_end, players

pytestmark = pytest.mark.anyio

LOG, _ = game_log(4, seed=21)


async def test_a_record_written_before_keys_had_a_scope_answers_only_the_very_same_request(store):
    await store.append("legacy", LOG[:2], 0)
    old = Idempotency("k", "fingerprint of seat 1's move", b"first answer")  # no scope: the old key name
    await store.append("legacy", LOG[2:3], 2, idempotency=old)
    same = await store.recall("legacy", old._replace(result=b"", scope="seat1"))
    assert (same.version, same.result, same.replayed) == (3, b"first answer", True)
    other = Idempotency("k", "fingerprint of seat 2's move", scope="seat2")
    assert await store.recall("legacy", other) is None  # not idempotency_key_reused: not its record
    assert await store.recall("legacy", Idempotency("k", "fingerprint of seat 1's move", scope="seat1")) is not None


async def test_a_store_listed_before_the_status_indexes_is_indexed_when_first_listed_by_status(redis_url, namespace):
    store = EventStore.from_url(redis_url, namespace=namespace)
    games = Games(store)
    for number in range(7):
        await games.create(
            f"old{number}", players(3), rounds=1, rules=Rules(), seed=number, token_hashes={}, created_ms=1000 + number
        )
    for game_id in ("old1", "old4"):
        logged = await games.load(game_id)
        while not logged.finished:
            card, cauldron = logged.game.legal_moves()[0]
            _, logged = await games.play(game_id, logged.game.turn, card, cauldron)
    # As a store written before: no status index, no marker, no summary naming its entry.
    for key in await store.wire.execute("KEYS", f"{namespace}:games:status*"):
        await store.wire.execute("DEL", key)
    for number in range(7):
        await store.wire.execute("HDEL", store._key(f"old{number}", "summary"), "listed")
    await store.close()

    store = EventStore.from_url(redis_url, namespace=namespace)
    try:
        finished, cursor = await store.list_games(status="finished")
        assert ([s.game_id for s in finished], cursor) == (["old4", "old1"], None)
        active, _ = await store.list_games(status="active", limit=3)
        assert [s.game_id for s in active] == ["old6", "old5", "old3"]
        # Indexed games move between indexes as their status changes, as new ones do.
        games = Games(store)
        logged = await games.load("old6")
        while not logged.finished:
            card, cauldron = logged.game.legal_moves()[0]
            _, logged = await games.play("old6", logged.game.turn, card, cauldron)
        finished, _ = await store.list_games(status="finished")
        assert [s.game_id for s in finished] == ["old6", "old4", "old1"]
        active, _ = await store.list_games(status="active")
        assert [s.game_id for s in active] == ["old5", "old3", "old2", "old0"]
        # A cursor of the whole listing is a cursor of a status's listing too.
        _, cursor = await store.list_games(limit=2)
        rest, _ = await store.list_games(status="active", cursor=cursor)
        assert [s.game_id for s in rest] == ["old3", "old2", "old0"]
    finally:
        await store.close()


async def _in(store: EventStore, index: str, member: str) -> bool:
    return await store.wire.execute("ZSCORE", index, member) is not None


async def test_a_status_change_whose_index_write_was_lost_is_repaired_by_the_next_listing_of_the_old_status(store):
    games = Games(store)
    await games.create("lost", players(3), rounds=1, rules=Rules(), seed=3, token_hashes={}, created_ms=77)
    await play_to_the_end(games, "lost")
    member, shard = listing_member("lost", 77), shard_of("lost")
    # As if the store had stopped between the append that finished it and its index write.
    await store.wire.execute("ZADD", store._index(shard, "active"), 0, member)
    await store.wire.execute("ZREM", store._index(shard, "finished"), member)
    active, _ = await store.list_games(status="active")
    assert "lost" not in [summary.game_id for summary in active]  # its summary says finished
    assert not await _in(store, store._index(shard, "active"), member)
    finished, _ = await store.list_games(status="finished")
    assert [summary.game_id for summary in finished] == ["lost"]


async def test_a_refused_creation_of_a_taken_id_leaves_no_second_entry_once_listed(store):
    games = Games(store)
    await games.create("taken", players(3), rounds=1, rules=Rules(), seed=4, token_hashes={}, created_ms=10)
    stray = listing_member("taken", 20)
    with pytest.raises(VersionConflict):
        await store.append("taken", LOG[:2], 0, summary={"status": "active", "listed": stray})
    assert await _in(store, store._index(shard_of("taken")), stray)  # indexed with the attempt
    listed, _ = await store.list_games()
    assert [summary.game_id for summary in listed] == ["taken"]
    by_status, _ = await store.list_games(status="active")
    assert [summary.game_id for summary in by_status] == ["taken"]
    assert not await _in(store, store._index(shard_of("taken")), stray)
    assert not await _in(store, store._index(shard_of("taken"), "active"), stray)


async def test_games_in_the_single_index_from_before_the_shards_are_still_listed_and_move_between_statuses(store):
    games = Games(store)
    for number in range(5):
        await games.create(
            f"u{number}", players(3), rounds=1, rules=Rules(), seed=number, token_hashes={}, created_ms=number
        )
    # u0, u2 and u4 as a store before the shards holds them: in the single indexes only.
    for number in (0, 2, 4):
        member, shard = listing_member(f"u{number}", number), shard_of(f"u{number}")
        for status in (None, "active"):
            await store.wire.execute("ZREM", store._index(shard, status), member)
            await store.wire.execute("ZADD", store._index(None, status), 0, member)
    listed, _ = await store.list_games(limit=3)
    assert [summary.game_id for summary in listed] == ["u4", "u3", "u2"]
    await play_to_the_end(games, "u2")
    active, _ = await store.list_games(status="active")
    assert [summary.game_id for summary in active] == ["u4", "u3", "u1", "u0"]
    assert not await _in(store, store._index(None, "active"), listing_member("u2", 2))
    finished, _ = await store.list_games(status="finished")
    assert [summary.game_id for summary in finished] == ["u2"]
