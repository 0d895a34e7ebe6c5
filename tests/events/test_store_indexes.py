"""The store's per-caller idempotency records (including those written before keys had a
scope) and per-status listing indexes."""

from __future__ import annotations

import pytest

from events.games import Games
from events.poison.schema import CODEC
from events.store import EventStore, Idempotency, VersionConflict, listing_member, shard_of
from tests.events.logs import game_log, play_to_the_end, players

pytestmark = pytest.mark.anyio

LOG, _ = game_log(4, seed=21)


async def test_a_record_written_before_keys_had_a_scope_answers_only_the_very_same_request(store):
    await store.append("legacy", LOG[:2], 0, codec=CODEC)
    old = Idempotency("k", "fingerprint of seat 1's move", b"first answer")  # no scope: the old key name
    await store.append("legacy", LOG[2:3], 2, idempotency=old, codec=CODEC)
    same = await store.idempotency.recall("legacy", old._replace(result=b"", scope="seat1"))
    assert (same.version, same.result, same.replayed) == (3, b"first answer", True)
    other = Idempotency("k", "fingerprint of seat 2's move", scope="seat2")
    assert await store.idempotency.recall("legacy", other) is None  # not idempotency_key_reused: not its record
    mine = Idempotency("k", "fingerprint of seat 1's move", scope="seat1")
    assert await store.idempotency.recall("legacy", mine) is not None


async def _in(store: EventStore, index: str, member: str) -> bool:
    return await store.recorder.wire.execute("ZSCORE", index, member) is not None


async def test_a_status_change_whose_index_write_was_lost_is_repaired_by_the_next_listing_of_the_old_status(store):
    games = Games(store)
    await games.create("lost", players(3), options={"rounds": 1}, seed=3, token_hashes={}, created_ms=77)
    await play_to_the_end(games, "lost")
    member, shard = listing_member("lost", 77), shard_of("lost")
    # As if the store had stopped between the append that finished it and its index write.
    await store.recorder.wire.execute("ZADD", store.listing.index(shard, "active"), 0, member)
    await store.recorder.wire.execute("ZREM", store.listing.index(shard, "finished"), member)
    active, _ = await store.listing.list_games(status="active")
    assert "lost" not in [summary.game_id for summary in active]  # its summary says finished
    assert not await _in(store, store.listing.index(shard, "active"), member)
    finished, _ = await store.listing.list_games(status="finished")
    assert [summary.game_id for summary in finished] == ["lost"]


async def test_a_refused_creation_of_a_taken_id_leaves_no_second_entry_once_listed(store):
    games = Games(store)
    await games.create("taken", players(3), options={"rounds": 1}, seed=4, token_hashes={}, created_ms=10)
    stray = listing_member("taken", 20)
    with pytest.raises(VersionConflict):
        await store.append("taken", LOG[:2], 0, summary={"status": "active", "listed": stray}, codec=CODEC)
    assert await _in(store, store.listing.index(shard_of("taken")), stray)  # indexed with the attempt
    listed, _ = await store.listing.list_games()
    assert [summary.game_id for summary in listed] == ["taken"]
    by_status, _ = await store.listing.list_games(status="active")
    assert [summary.game_id for summary in by_status] == ["taken"]
    assert not await _in(store, store.listing.index(shard_of("taken")), stray)
    assert not await _in(store, store.listing.index(shard_of("taken"), "active"), stray)
