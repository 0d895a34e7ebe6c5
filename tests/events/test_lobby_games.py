"""The lobby over the store (events.games): joins and leaves as two processes see them, a
leave whose seat changed hands in between, and the rematch's one next game."""

from __future__ import annotations

import asyncio

import pytest

from core.errors import MoveConflict
from events.codec import Player
from events.games import LEFT, Games, SeatChanged

pytestmark = pytest.mark.anyio

TABLE = (Player(seat=0, name="ann"), Player(seat=1), Player(seat=2), Player(seat=3, name="robo", bot="random"))


async def waiting(games: Games, game_id: str = "w") -> None:
    await games.create(game_id, TABLE, seed=4, token_hashes={0: "hash-ann"}, created_ms=1, options={"rounds": 1})


async def test_a_leave_whose_seat_was_left_and_joined_again_meanwhile_leaves_nobody(store) -> None:
    one, two = Games(store), Games(store)  # as if in two processes
    await waiting(one)
    await one.join("w", 1, "bea", token_hash="hash-bea")
    await two.leave("w", 1, token_hash="hash-bea")
    await two.join("w", 1, "dee", token_hash="hash-dee")
    with pytest.raises(SeatChanged):
        await one.leave("w", 1, token_hash="hash-bea")  # bea's stale leave: dee stays
    assert (await one.load("w")).players[1].name == "dee"
    assert (await store.tokens.token_hashes("w"))[1] == "hash-dee"


async def test_a_waiting_games_tokens_are_read_afresh_by_every_process(store) -> None:
    one, two = Games(store), Games(store)
    await waiting(one)
    await one.load("w")
    await two.join("w", 1, "bea", token_hash="hash-bea")
    assert (await one.token_hashes("w"))[1] == "hash-bea"  # not a stale copy from before the join
    await two.leave("w", 1, token_hash="hash-bea")
    assert (await one.token_hashes("w"))[1] == LEFT  # the dead token's hash, seen at once
    await two.join("w", 1, "cal", token_hash="hash-cal")
    await two.join("w", 2, "dee", token_hash="hash-dee")  # the last open seat: started
    assert not (await one.load("w")).waiting
    assert (await one.token_hashes("w"))[2] == "hash-dee"


async def test_racing_joins_of_one_seat_give_one_seat_and_the_others_a_conflict(store) -> None:
    games = [Games(store) for _ in range(8)]
    await waiting(games[0])
    await games[0].join("w", 2, "cal", token_hash="hash-cal")  # seat 1 is the last open one
    outcomes = await asyncio.gather(
        *(g.join("w", 1, f"racer{n}", token_hash=f"h{n}") for n, g in enumerate(games)), return_exceptions=True
    )
    won = [o for o in outcomes if not isinstance(o, BaseException)]
    lost = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(won) == 1
    assert all(isinstance(o, MoveConflict) and o.code == "game_started" for o in lost)
    kinds = [type(event).__name__ for _, event in await store.read("w")]
    assert kinds.count("GameStarted") == 1
    assert kinds.count("RoundStarted") == 1
