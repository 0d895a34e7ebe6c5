"""Refusals kept under idempotency keys are bounded (issue 27, defect 8): a refused move
appends nothing, so without a bound a client with fresh keys grows the store without end."""

from __future__ import annotations

import asyncio

import pytest

from core import RuleError
from events.games import KEPT_REFUSALS, Games
from events.store import Idempotency
from tests.events.logs import players

pytestmark = pytest.mark.anyio


async def refuse(games: Games, logged, seat: int, card: str, key: str) -> bytes:
    """A move the rules refuse, kept under its key as the service keeps it."""
    idempotency = Idempotency(key, f"seat {seat} plays {card}", scope=f"seat{seat}")
    try:
        await games.play("g", seat, card, 0, idempotency=idempotency)
    except RuleError as refused:
        return (await games.remember("g", idempotency._replace(result=refused.code.encode()))).result
    pytest.fail("the move was not refused")


async def test_two_thousand_refused_moves_under_fresh_keys_leave_at_most_the_bound_in_the_store(store, raw):
    games = Games(store)
    _, logged = await games.create("g", players(3), options={"rounds": 1}, seed=5, token_hashes={}, created_ms=1)
    idle = (logged.game.turn + 1) % 3
    card = logged.game.view(seat=idle).hand[0]
    for batch in range(0, 2000, 200):  # two hundred at once: their calls share the store's writes
        await asyncio.gather(*(refuse(games, logged, idle, card, f"fresh-{n}") for n in range(batch, batch + 200)))
    kept = [key async for key in raw.scan_iter(match=f"{store.recorder.namespace}:*idempotency*", count=1000)]
    assert 0 < len(kept) <= KEPT_REFUSALS
    # A kept refusal is still answered from its record, a forgotten one judged again.
    again = Idempotency("fresh-1999", f"seat {idle} plays {card}", scope=f"seat{idle}")
    assert (await games.recall("g", again)) is not None
    assert (await games.recall("g", again._replace(key="fresh-0"))) is None


async def test_each_seat_keeps_its_own_refusals_up_to_the_bound(store, raw):
    games = Games(store, kept_refusals=5)
    _, logged = await games.create("g", players(3), options={"rounds": 1}, seed=6, token_hashes={}, created_ms=1)
    idle = [seat for seat in range(3) if seat != logged.game.turn]
    for seat in idle:
        card = logged.game.view(seat=seat).hand[0]
        for n in range(8):
            await refuse(games, logged, seat, card, f"seat{seat}-{n}")
    kept = [key.decode() async for key in raw.scan_iter(match=f"{store.recorder.namespace}:*idempotency*")]
    assert sorted(key.rsplit(":", 2)[-2] for key in kept) == [f"seat{idle[0]}"] * 5 + [f"seat{idle[1]}"] * 5
