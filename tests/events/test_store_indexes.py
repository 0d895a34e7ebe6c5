"""The store's per-caller idempotency records and per-status listing indexes, including
what stores written before them hold."""

from __future__ import annotations

import pytest

from events.games import Games
from events.schema import Rules
from events.store import EventStore, Idempotency
from tests.events.logs import game_log, players

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
    for key in await store.client.keys(f"{namespace}:games:status*"):
        await store.client.delete(key)
    for number in range(7):
        await store.client.hdel(store._key(f"old{number}", "summary"), "listed")
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
