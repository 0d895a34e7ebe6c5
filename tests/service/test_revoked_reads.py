"""Reads with a token that is given up while they run (issue 27, item 1, on /events): a
read shows a seat's hand only as its token's check allowed it. A token checked while its
seat was its own, whose player leaves the seat before the read reaches the log, is not
shown the hand dealt to whoever sits there next.

Through the real app on the real store, on the loop the app runs on. The read is held
between its token's check and its reading of the log (Games.read, released once the seat
has changed hands and the game has started), so that the order is the test's, not chance's."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any

import anyio
import httpx
import pytest
from litestar.testing import AsyncTestClient

from events.games import Games
from tests.service.api import auth

pytestmark = pytest.mark.anyio

DEALS = {"round_started", "cards_dealt"}


async def seat_given_up_mid_read(app: Any, options: dict[str, Any]) -> list[dict[str, Any]]:
    """The events sly's read answers: sly at seat 1 asks for the log; its token is checked;
    sly leaves, vic takes seat 1 and cal seat 2 (the game starts, vic is dealt a hand);
    then the read goes on."""
    games: Games = app.state.games
    checked, released = asyncio.Event(), asyncio.Event()

    async def held(game_id: str, after: int = 0, limit: int | None = None) -> Any:
        checked.set()
        await released.wait()
        return await Games.read(games, game_id, after, limit)

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as http:
        body = {"players": [{"name": "ann"}, {"open": True}, {"open": True}], **options}
        game_id = (await http.post("/v1/games", json=body)).json()["game_id"]
        sly = (await http.post(f"/v1/games/{game_id}/seats/1", json={"name": "sly"})).json()["token"]
        games.read = held  # type: ignore[method-assign]
        try:
            reading = asyncio.create_task(http.get(f"/v1/games/{game_id}/events", headers=auth(sly)))
            await asyncio.wait_for(checked.wait(), 10)  # sly's token was checked: seat 1 was sly's then
        finally:
            del games.read  # every later read is the real one at once
        assert (await http.delete(f"/v1/games/{game_id}/seats/1", headers=auth(sly))).status_code == 204
        vic = (await http.post(f"/v1/games/{game_id}/seats/1", json={"name": "vic"})).json()["token"]
        assert (await http.post(f"/v1/games/{game_id}/seats/2", json={"name": "cal"})).status_code == 201
        assert (await http.get(f"/v1/games/{game_id}", headers=auth(vic))).json()["you"]["hand"]  # vic's hand
        released.set()
        answer = await asyncio.wait_for(reading, 10)
        assert answer.status_code == 200, answer.text
        return answer.json()["events"]


@pytest.mark.parametrize("options", [{"rounds": 1}, {"ruleset": "pot"}], ids=["poison", "pot"])
async def test_an_events_read_whose_token_is_given_up_before_it_reads_the_log_shows_no_later_occupants_hand(
    client: AsyncTestClient, options: dict[str, Any]
) -> None:
    call = partial(seat_given_up_mid_read, client.app, options)
    events = await anyio.to_thread.run_sync(partial(client.blocking_portal.call, call))
    dealt = [event for event in events if event["type"] in DEALS]
    assert all(event["data"]["hands"][1] is None for event in dealt), "sly's read shows vic's hand"
