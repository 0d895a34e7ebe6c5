"""Whole games over HTTP, every move checked against core/poison/reference.py, and the hidden
information of every answer checked on the way."""

from __future__ import annotations

import asyncio
import random

import pytest

from core.poison import reference
from core.rulesets import POISON
from tests.service.api import auth, check_no_leak, create, view

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("players", [3, 4, 5, 6])
async def test_a_whole_game_over_http_follows_the_reference_move_by_move(client, players):
    seed = 1000 + players
    created, tokens = await create(
        client, players, seed=seed, rounds=2, rules={"cauldrons": "fixed" if players % 2 else "dynamic"}
    )
    game_id = created["game_id"]
    oracle = reference.Game(players, rounds=2, cauldrons="fixed" if players % 2 else "dynamic", seed=seed)
    rng = random.Random(seed)
    moves = 0
    while oracle.status != "finished":
        seat = oracle.turn
        hands = [oracle.hand(s) for s in range(players)]
        mine = await view(client, game_id, tokens[seat])
        check_no_leak(POISON, mine, seat, hands, False)
        assert tuple(sorted(mine["you"]["hand"])) == tuple(sorted(hands[seat]))
        assert [(m["card"], m["cauldron"]) for m in mine["you"]["legal_moves"]] == list(oracle.legal_moves())
        card, cauldron = rng.choice(oracle.legal_moves())
        response = await client.post(
            f"/v1/games/{game_id}/moves", json={"card": card, "cauldron": cauldron}, headers=auth(tokens[seat])
        )
        assert response.status_code == 201, response.text
        played = oracle.play(seat, card, cauldron)
        body = response.json()
        check_no_leak(POISON, body, seat, [oracle.hand(s) for s in range(players)], oracle.status == "finished")
        assert body["events"][0]["data"]["total"] == played.total
        overflow = [e for e in body["events"] if e["type"] == "cauldron_overflowed"]
        assert [tuple(e["data"]["taken"]) for e in overflow] == ([played.taken] if played.taken else [])
        game = body["game"]
        public = oracle.view()
        assert [(c["color"], c["total"], tuple(c["cards"])) for c in game["cauldrons"]] == list(public.cauldrons)
        assert [p["hand_size"] for p in game["players"]] == list(public.hand_sizes)
        assert [p["taken"] for p in game["players"]] == list(public.taken)
        assert game["turn"] == public.turn
        assert [tuple(row) for row in game["scores"]] == list(public.scores)
        moves += 1
    final = (await client.get(f"/v1/games/{game_id}/scores")).json()
    assert tuple(final["totals"]) == oracle.totals
    assert tuple(final["winners"]) == oracle.winners
    assert moves == 2 * (38 if players == 3 else 50)


async def test_sixteen_identical_moves_at_once_give_one_201_and_fifteen_409(client):
    created, tokens = await create(client, 4, seed=16)
    game_id = created["game_id"]
    mine = await view(client, game_id, tokens[1])
    move = mine["you"]["legal_moves"][0]
    responses = await asyncio.gather(
        *[client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(tokens[1])) for _ in range(16)]
    )
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [409] * 15
    assert {r.json()["code"] for r in responses if r.status_code == 409} <= {"not_your_turn", "version_conflict"}
    events = (await client.get(f"/v1/games/{game_id}/events")).json()
    assert events["version"] == 3
    assert [e["version"] for e in events["events"]] == [1, 2, 3]


async def test_sixteen_identical_moves_with_one_expected_version_give_one_201(client):
    created, tokens = await create(client, 4, seed=17)
    game_id = created["game_id"]
    move = (await view(client, game_id, tokens[1]))["you"]["legal_moves"][0]
    responses = await asyncio.gather(
        *[
            client.post(f"/v1/games/{game_id}/moves", json={**move, "expected_version": 2}, headers=auth(tokens[1]))
            for _ in range(16)
        ]
    )
    assert sorted(r.status_code for r in responses) == [201] + [409] * 15
    assert (await view(client, game_id))["version"] == 3


async def test_no_lobby_answer_leaks_a_hand_join_start_or_rematch(client, store):
    """A game whose seats 1 and 2 are joined: every join's answer (the winner's, the loser's
    409), every read by every caller, each move and each seat's rematch shows only the
    caller's own hand."""
    body = {"players": [{"name": "ann"}, {"open": True}, {"open": True}], "rounds": 1}
    created = (await client.post("/v1/games", json=body)).json()
    game_id = created["game_id"]
    # The service drew the seed (a game with open seats takes none): the store says which.
    seed = (await store.read(game_id, 0, 1))[0][1].seed
    tokens = {0: created["players"][0]["token"]}
    nothing: list[tuple[str, ...]] = [(), (), ()]
    check_no_leak(POISON, created, None, nothing, False)
    joined = await client.post(f"/v1/games/{game_id}/seats/1", json={"name": "bea"})
    check_no_leak(POISON, joined.json(), 1, nothing, False)
    tokens[1] = joined.json()["token"]
    oracle = reference.Game(3, rounds=1, seed=seed)
    last = await client.post(f"/v1/games/{game_id}/seats/2", json={"name": "cal"})
    check_no_leak(POISON, last.json(), 2, [oracle.hand(s) for s in range(3)], False)
    tokens[2] = last.json()["token"]
    late = await client.post(f"/v1/games/{game_id}/seats/2", json={"name": "dee"})
    assert late.status_code == 409
    check_no_leak(POISON, late.json(), None, nothing, False)
    rng = random.Random(3)
    while oracle.status != "finished":
        hands = [oracle.hand(s) for s in range(3)]
        caller = rng.choice([None, 0, 1, 2])  # one caller a move keeps the test quick
        headers = auth(tokens[caller]) if caller is not None else {}
        for path in ["", "/events?limit=5000", "?version=2"]:
            answer = (await client.get(f"/v1/games/{game_id}{path}", headers=headers)).json()
            check_no_leak(POISON, answer, caller if path != "?version=2" else None, hands, False)
        seat = oracle.turn
        card, cauldron = rng.choice(oracle.legal_moves())
        moved = await client.post(
            f"/v1/games/{game_id}/moves", json={"card": card, "cauldron": cauldron}, headers=auth(tokens[seat])
        )
        oracle.play(seat, card, cauldron)
        check_no_leak(POISON, moved.json(), seat, [oracle.hand(s) for s in range(3)], oracle.status == "finished")
    for seat in (2, 0, 1):
        claimed = (await client.post(f"/v1/games/{game_id}/rematch", headers=auth(tokens[seat]))).json()
        next_id = claimed["game"]["game_id"]
        own = (await client.get(f"/v1/games/{next_id}", headers=auth(claimed["token"]))).json()["you"]["hand"]
        next_hands = [tuple(own) if s == seat else () for s in range(3)]
        check_no_leak(POISON, claimed, seat, next_hands, False)
        assert "hands" not in str(claimed)
