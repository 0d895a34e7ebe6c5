"""When a live stream may show a game's secrets (its seed and salt, every hand): only once
the game is over. A stream that ends because its own seat changed hands ends in a game that
still waits, so nothing it sends may be revealed, even when its last batch holds the game's
creation; one that ends because the game was abandoned reveals the whole log, as /events
does. Judged on the stream's own cut of the batches, with the real store."""

from __future__ import annotations

import pytest

from events.codec import Player
from events.games import Games
from service.controllers.games import _Ending
from service.views import public_events

pytestmark = pytest.mark.anyio

TABLE = (Player(seat=0, name="ann"), Player(seat=1), Player(seat=2))


async def test_a_stream_ended_by_its_own_seats_leave_shows_no_seed_or_salt_even_from_one_batch(store) -> None:
    games = Games(store)
    await games.create("w", TABLE, seed=4, token_hashes={0: "hash-ann"}, created_ms=1, options={"rounds": 1})
    await games.join("w", 1, "sly", token_hash="hash-sly")
    checked = await games.load("w")  # the stream checked sly's token here
    await games.leave("w", 1, token_hash="hash-sly")
    ending = _Ending(checked, seat=1)
    sent, ends = ending.cut(await games.read("w"))  # its first read: creation to the leave at once
    assert ends
    assert [type(event).__name__ for _, event in sent][-1] == "SeatLeft"
    created = public_events(sent, 1, ending.over, checked.rules)[0]
    assert created.type == "game_created"
    assert (created.data["seed"], created.data["salt"]) == (None, None)
    assert created.data["seed_commitment"]


async def test_a_stream_ended_by_the_games_abandonment_shows_the_whole_log(store) -> None:
    games = Games(store)
    await games.create("a", TABLE, seed=4, token_hashes={0: "hash-ann"}, created_ms=1, options={"rounds": 1})
    checked = await games.load("a")
    await games.leave("a", 0, token_hash="hash-ann")  # the only person leaves: abandoned
    ending = _Ending(checked, seat=None)
    sent, ends = ending.cut(await games.read("a"))
    assert ends
    assert ending.over
    created = public_events(sent, None, ending.over, checked.rules)[0]
    assert created.data["seed"] == 4
    assert created.data["salt"]
