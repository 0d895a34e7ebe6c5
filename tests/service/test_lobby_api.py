"""The lobby through the real app: open seats, joining and leaving, the start, rematch, abandon.

A 4-seat game created with two open seats is joined by two other clients, each of whom only
ever sees its own hand; a seat is left and joined again; racing joins for the last seat
give exactly one 201 and one deal; every human seat claims the rematch in its own order and
all land in one next game, bots kept. Both rulesets.
"""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import pytest
from litestar.testing import AsyncTestClient

from service.app import create_app
from service.settings import Settings
from tests.service.api import auth, view

pytestmark = pytest.mark.anyio

RULESETS = [{"rounds": 1}, {"ruleset": "pot"}]
DEALS = {"round_started", "cards_dealt"}


async def open_game(client: AsyncTestClient, options: dict[str, Any], *, bot: bool = True) -> tuple[str, str]:
    """ann at seat 0, seats 1 and 3 open, seat 2 a bot (or ben): the game id and ann's token."""
    seat2 = {"name": "robo", "bot": "random"} if bot else {"name": "ben"}
    body = {"players": [{"name": "ann"}, {"open": True}, seat2, {"open": True}], **options}
    response = await client.post("/v1/games", json=body)
    assert response.status_code == 201, response.text
    created = response.json()
    assert [p.get("open") for p in created["players"]] == [None, True, None, True]
    assert "token" not in created["players"][1]
    assert created["players"][1]["name"] is None
    assert created["game"]["status"] == "waiting"
    return created["game_id"], created["players"][0]["token"]


async def join(client: AsyncTestClient, game_id: str, seat: int, name: str, **headers: str) -> Any:
    return await client.post(f"/v1/games/{game_id}/seats/{seat}", json={"name": name}, headers=headers)


async def kinds(client: AsyncTestClient, game_id: str) -> list[str]:
    response = await client.get(f"/v1/games/{game_id}/events")
    return [event["type"] for event in response.json()["events"]]


@pytest.mark.parametrize("options", RULESETS, ids=["poison", "pot"])
async def test_two_clients_join_the_open_seats_and_the_last_join_deals(client: AsyncTestClient, options) -> None:
    game_id, ann = await open_game(client, options)
    waiting = await view(client, game_id, ann)
    assert waiting["status"] == "waiting"
    assert waiting["turn"] is None
    assert [p.get("open", False) for p in waiting["players"]] == [False, True, False, True]
    assert waiting["you"]["hand"] == []
    assert waiting["you"]["legal_moves"] == []
    assert all(p["hand_size"] == 0 for p in waiting["players"])
    listed = (await client.get("/v1/games", params={"status": "waiting"})).json()["games"]
    assert any(g["game_id"] == game_id and g["players"] == ["ann", None, "robo", None] for g in listed)
    assert (await client.get(f"/v1/games/{game_id}/scores")).json()["totals"] == [0, 0, 0, 0]
    created = (await client.get(f"/v1/games/{game_id}/events", headers=auth(ann))).json()["events"][0]
    assert created["data"]["seed"] is None  # it deals every hand: hidden until the end
    assert (await client.get(f"/v1/games/{game_id}/export")).json()["code"] == "game_active"

    first = await join(client, game_id, 1, "bea")
    assert first.status_code == 201, first.text
    bea = first.json()
    assert bea["seat"] == 1
    assert bea["name"] == "bea"
    assert bea["game"]["status"] == "waiting"
    assert await kinds(client, game_id) == ["game_created", "seat_joined"]

    last = await join(client, game_id, 3, "cal")
    assert last.status_code == 201, last.text
    cal = last.json()
    assert cal["game"]["status"] == "active"
    assert cal["game"]["you"]["hand"]
    logged = await kinds(client, game_id)
    assert logged[:4] == ["game_created", "seat_joined", "seat_joined", "game_started"]
    assert logged[4] in DEALS
    assert logged.count(logged[4]) == 1

    # Each seat sees its own hand, and nobody else's, in the view and the log.
    hands = {}
    for seat, token in ((0, ann), (1, bea["token"]), (3, cal["token"])):
        seen = await view(client, game_id, token)
        assert seen["you"]["seat"] == seat
        hands[seat] = seen["you"]["hand"]
        events = (await client.get(f"/v1/games/{game_id}/events", headers=auth(token))).json()["events"]
        dealt = next(e for e in events if e["type"] in DEALS)["data"]["hands"]
        assert [hand is not None for hand in dealt] == [s == seat for s in range(4)]
        # No person has moved yet: the hand in the view is the one its seat was dealt.
        assert sorted(dealt[seat]) == sorted(hands[seat])


async def test_a_seat_left_is_open_again_its_token_dead_and_a_new_player_may_take_it(client: AsyncTestClient) -> None:
    game_id, _ = await open_game(client, {"rounds": 1})
    bea = (await join(client, game_id, 1, "bea")).json()
    mine = await client.delete(f"/v1/games/{game_id}/seats/0", headers=auth(bea["token"]))
    assert mine.status_code == 401  # seat 0 is ann's, not bea's
    left = await client.delete(f"/v1/games/{game_id}/seats/1", headers=auth(bea["token"]))
    assert left.status_code == 204, left.text
    assert (await client.get(f"/v1/games/{game_id}", headers=auth(bea["token"]))).status_code == 401
    again = (await view(client, game_id))["players"][1]
    assert again["name"] is None
    assert again["open"] is True
    dee = await join(client, game_id, 1, "dee")
    assert dee.status_code == 201
    assert dee.json()["game"]["players"][1]["name"] == "dee"
    assert (await kinds(client, game_id)) == ["game_created", "seat_joined", "seat_left", "seat_joined"]
    taken = await join(client, game_id, 1, "eve")
    assert taken.status_code == 409
    assert taken.json()["code"] == "seat_taken"
    clash = await join(client, game_id, 3, "dee")
    assert clash.status_code == 400
    assert clash.json()["reason"] == "name_taken"
    bot = await join(client, game_id, 2, "eve")
    assert bot.status_code == 409
    assert bot.json()["code"] == "seat_taken"


async def test_sixteen_racing_joins_for_the_last_seat_give_one_seat_and_one_deal(client: AsyncTestClient) -> None:
    game_id, _ = await open_game(client, {"rounds": 1})
    assert (await join(client, game_id, 1, "bea")).status_code == 201
    answers = await asyncio.gather(*(join(client, game_id, 3, f"racer{n}") for n in range(16)))
    statuses = sorted(answer.status_code for answer in answers)
    assert statuses == [201] + [409] * 15, [a.text for a in answers if a.status_code not in (201, 409)]
    assert {a.json()["code"] for a in answers if a.status_code == 409} <= {"seat_taken", "game_started"}
    logged = await kinds(client, game_id)
    assert logged.count("round_started") == 1
    assert logged.count("game_started") == 1


async def test_a_game_every_person_left_is_abandoned_and_listed_so(client: AsyncTestClient) -> None:
    game_id, ann = await open_game(client, {"ruleset": "pot"})
    assert (await client.delete(f"/v1/games/{game_id}/seats/0", headers=auth(ann))).status_code == 204
    gone = await view(client, game_id)
    assert gone["status"] == "abandoned"
    refused = await join(client, game_id, 1, "bea")
    assert refused.status_code == 409
    assert refused.json()["code"] == "game_started"
    assert "abandoned" in refused.json()["detail"]
    listed = (await client.get("/v1/games", params={"status": "abandoned"})).json()["games"]
    assert [g["game_id"] for g in listed] == [game_id]
    assert game_id not in [g["game_id"] for g in (await client.get("/v1/games?status=waiting")).json()["games"]]


async def test_a_started_game_refuses_joins_and_leaves(client: AsyncTestClient) -> None:
    game_id, ann = await open_game(client, {"rounds": 1})
    await join(client, game_id, 1, "bea")
    await join(client, game_id, 3, "cal")
    late = await client.delete(f"/v1/games/{game_id}/seats/0", headers=auth(ann))
    assert late.status_code == 409
    assert late.json()["code"] == "game_started"


async def finish(client: AsyncTestClient, game_id: str, tokens: dict[int, str]) -> None:
    """Play the game to its end, each person moving their first legal move on their turn."""
    while (seen := await view(client, game_id))["status"] == "active":
        turn = seen["turn"]
        mine = await view(client, game_id, tokens[turn])
        played = await client.post(
            f"/v1/games/{game_id}/moves", json=mine["you"]["legal_moves"][0], headers=auth(tokens[turn])
        )
        assert played.status_code == 201, played.text


async def rematch(client: AsyncTestClient, game_id: str, token: str) -> Any:
    return await client.post(f"/v1/games/{game_id}/rematch", headers=auth(token))


@pytest.mark.parametrize("options", RULESETS, ids=["poison", "pot"])
async def test_every_seat_claims_the_rematch_in_any_order_and_all_land_in_one_next_game(client, options) -> None:
    game_id, ann = await open_game(client, options)
    bea = (await join(client, game_id, 1, "bea")).json()["token"]
    cal = (await join(client, game_id, 3, "cal")).json()["token"]
    tokens = {0: ann, 1: bea, 3: cal}
    early = await rematch(client, game_id, ann)
    assert early.status_code == 409
    assert early.json()["code"] == "game_active"
    await finish(client, game_id, tokens)
    assert "next_game" not in await view(client, game_id)

    # The first claims race; later ones, in another order, find the same game.
    raced = await asyncio.gather(*(rematch(client, game_id, tokens[seat]) for seat in (3, 0, 1)))
    assert [answer.status_code for answer in raced] == [201, 201, 201], [a.text for a in raced]
    claimed = {answer.json()["seat"]: answer.json() for answer in raced}
    next_ids = {answer["game"]["game_id"] for answer in claimed.values()}
    assert len(next_ids) == 1
    (next_id,) = next_ids
    assert next_id != game_id
    assert len({answer["token"] for answer in claimed.values()}) == 3
    for seat in (1, 0, 3):
        again = (await rematch(client, game_id, tokens[seat])).json()
        assert (again["token"], again["name"]) == (claimed[seat]["token"], claimed[seat]["name"])
        mine = await view(client, next_id, again["token"])
        assert mine["you"]["seat"] == seat
    following = await view(client, next_id)
    assert [(p["name"], p["bot"]) for p in following["players"]] == [
        ("ann", None),
        ("bea", None),
        ("robo", "random"),
        ("cal", None),
    ]
    assert following["status"] == "active"
    assert (await view(client, game_id))["next_game"] == next_id
    logged = await kinds(client, game_id)
    assert logged[-2:] == ["game_finished", "rematch_created"]
    assert logged.count("rematch_created") == 1
    listed = [g["game_id"] for g in (await client.get("/v1/games?limit=200")).json()["games"]]
    assert listed.count(next_id) == 1
    # The finished game's old token is no token of the next game.
    assert (await client.get(f"/v1/games/{next_id}", headers=auth(ann))).status_code == 401

    # The finished game's stream still ends, though its log goes on past game_finished.
    streamed = await asyncio.wait_for(client.get(f"/v1/games/{game_id}/events/stream?after=1"), timeout=10)
    assert (
        streamed.text.replace("\r\n", "\n")
        .rstrip()
        .split("\n\n")[-1]
        .startswith(f"id: {len(logged)}\nevent: rematch_created")
    )

    exported = await client.get(f"/v1/games/{game_id}/export")
    replayed = await client.post(
        "/v1/replays", content=exported.content, headers={"content-type": "application/x-ndjson"}
    )
    assert replayed.status_code == 200, replayed.text
    assert replayed.json()["game"]["next_game"] == next_id


async def test_a_waiting_game_can_be_read_as_it_was_and_its_moves_are_nobodys_turn(client) -> None:
    game_id, ann = await open_game(client, {"rounds": 1})
    await join(client, game_id, 1, "bea")
    then = (await client.get(f"/v1/games/{game_id}", params={"version": 1})).json()
    assert then["status"] == "waiting"
    assert [p["name"] for p in then["players"]] == ["ann", None, "robo", None]
    moved = await client.post(f"/v1/games/{game_id}/moves", json={"card": "R1", "cauldron": 0}, headers=auth(ann))
    assert moved.status_code == 409
    assert moved.json()["code"] == "not_your_turn"


async def test_a_join_retried_with_its_key_gets_the_same_answer_and_appends_nothing(client) -> None:
    game_id, _ = await open_game(client, {"rounds": 1})
    key = {"Idempotency-Key": "join-bea-1"}
    first = await join(client, game_id, 1, "bea", **key)
    again = await join(client, game_id, 1, "bea", **key)
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    assert await kinds(client, game_id) == ["game_created", "seat_joined"]


async def test_a_new_game_refuses_seats_that_are_both_open_and_named_or_an_open_bot(client) -> None:
    for seat in ({"open": True, "name": "x"}, {"open": True, "bot": "random"}, {}):
        body = {"players": [{"name": "ann"}, {"name": "ben"}, seat]}
        refused = await client.post("/v1/games", json=body)
        assert refused.status_code == 400, seat
        assert refused.json()["code"] == "invalid_request"


async def test_joins_and_leaves_beyond_an_address_burst_are_429_and_change_nothing(settings: Settings) -> None:
    tight = msgspec.structs.replace(settings, move_rate=0.5, move_burst=2)
    async with AsyncTestClient(create_app(tight)) as client:
        game_id, _ = await open_game(client, {"rounds": 1})
        joined = await join(client, game_id, 1, "bob")
        assert joined.status_code == 201, joined.text
        token = joined.json()["token"]
        left = await client.delete(f"/v1/games/{game_id}/seats/1", headers={"Authorization": f"Bearer {token}"})
        assert left.status_code == 204, left.text
        refused = await join(client, game_id, 1, "cy")
        assert refused.status_code == 429, refused.text
        assert refused.json()["code"] == "rate_limited"
        assert int(refused.headers["retry-after"]) >= 1
        assert await kinds(client, game_id) == ["game_created", "seat_joined", "seat_left"]
