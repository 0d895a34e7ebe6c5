"""The deadline index against a worker that dies between an append and its index write
(events/clocks.py): whatever deadline the append made, the index holds the game no later
than it, so the clock fires on time even then."""

from __future__ import annotations

import pytest

from events.codec import Clock, Player
from events.games import Games
from events.store import EventStore

pytestmark = pytest.mark.anyio

#: Two persons (one seat open) and two bots, under a clock: once the open seat is taken, a
#: person soon has the turn, and its deadline.
TABLE = (
    Player(seat=0, name="ann"),
    Player(seat=1),
    Player(seat=2, name="r1", bot="random"),
    Player(seat=3, name="r2", bot="random"),
)
#: A game may wait a day for its open seat: far later than a move's time.
A_DAY_MS = 86_400_000


class WorkerDied(Exception):
    """The worker stopped right after the append landed, before the index heard of it."""


async def test_a_waiting_game_started_by_a_join_is_due_by_its_first_deadline_though_its_worker_died_after_the_append(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = Games(store, waiting_ms=A_DAY_MS)
    await games.create(
        "w", TABLE, seed=4, token_hashes={0: "hash-ann"}, created_ms=1, options={"rounds": 1}, clock=Clock(60)
    )
    assert store.deadlines is not None
    waited = await store.deadlines.score("w")
    assert waited is not None  # the waiting game's last moment, a day away

    async def dies(game_id: str, deadline_ms: int) -> None:
        raise WorkerDied

    monkeypatch.setattr(games.deadlines, "set", dies)
    with pytest.raises(WorkerDied):
        await games.join("w", 1, "bea", token_hash="hash-bea")
    started = await Games(store).load("w")  # another worker reads what the store says
    assert not started.waiting
    assert started.deadline_ms is not None
    assert started.deadline_ms < waited
    indexed = await store.deadlines.score("w")
    assert indexed is not None
    assert indexed <= started.deadline_ms
