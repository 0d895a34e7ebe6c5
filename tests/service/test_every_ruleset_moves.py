"""Moves over HTTP, tested once and run for every ruleset of core.rulesets.RULESETS: a move
retried with its Idempotency-Key, played or refused, gets the same answer and appends
nothing, and no answer to any seat or to nobody shows a hand it may not see. Each game is
played against the ruleset's reference (tests/service/api.py Table)."""

from __future__ import annotations

import random

import pytest

from events.play import create_game, play_move
from tests.rulesets import EVERY_RULESET, seats
from tests.service.api import PROBLEM, Table, auth, body_of, check_no_leak, move_in, problem, shortest, view

pytestmark = pytest.mark.anyio


# ---- idempotent retries ------------------------------------------------------------------


@EVERY_RULESET
async def test_a_move_retried_with_its_idempotency_key_gets_the_same_answer_and_appends_nothing(client, ruleset):
    bots = {1: "greedy", 2: "random"}
    table = await Table.new(client, ruleset, 3, seed=14, bots=bots)
    game_id = table.game_id
    assert table.oracle.turn == 0  # the bots have moved: the human's turn
    legal = (await view(client, game_id, table.tokens[0]))["you"]["legal_moves"]
    # The move that causes the most events (the pot game's: a closing), as the event layer plays it.
    _, logged = create_game(ruleset.name, "g", seats(3, bots), seed=14, options={})

    def caused(move: dict) -> list[str]:
        return [type(event).__struct_config__.tag for event in play_move(logged, 0, move_in(ruleset, move))[0]]

    move = max(legal, key=lambda move: len(caused(move)))
    headers = {**auth(table.tokens[0]), "Idempotency-Key": "move-1"}
    first = await client.post(f"/v1/games/{game_id}/moves", json=move, headers=headers)
    assert first.status_code == 201, first.text
    events = first.json()["events"]
    assert [event["type"] for event in events] == caused(move)
    assert [event["data"]["seat"] for event in events if event["type"] == "card_played"] == [0, 1, 2]  # bots too
    version = first.json()["version"]
    again = await client.post(f"/v1/games/{game_id}/moves", json=move, headers=headers)
    assert again.status_code == 201
    assert again.content == first.content
    assert (await view(client, game_id))["version"] == version
    other = next(other for other in legal if other != move)
    problem(await client.post(f"/v1/games/{game_id}/moves", json=other, headers=headers), 422, "idempotency_key_reused")
    too_long = {**auth(table.tokens[0]), "Idempotency-Key": "k" * 201}
    problem(await client.post(f"/v1/games/{game_id}/moves", json=move, headers=too_long), 400, "invalid_request")
    assert (await view(client, game_id))["version"] == version


@EVERY_RULESET
async def test_a_refused_move_retried_with_its_key_is_refused_again_with_the_same_answer_even_once_legal(
    client, ruleset
):
    table = await Table.new(client, ruleset, 3, seed=31)
    game_id, tokens, oracle = table.game_id, table.tokens, table.oracle
    seat = oracle.turn
    now = oracle.legal_moves()[0]
    probe = oracle.copy()
    probe.play(seat, *now)
    following = probe.turn
    early = body_of(ruleset, probe.legal_moves()[0])  # legal for the next seat once this one has played
    headers = {**auth(tokens[following]), "Idempotency-Key": "too-early"}
    first = await client.post(f"/v1/games/{game_id}/moves", json=early, headers=headers)
    problem(first, 409, "not_your_turn")
    version = (await table.move(tuple(now))).json()["version"]
    assert early in (await view(client, game_id, tokens[following]))["you"]["legal_moves"]
    again = await client.post(f"/v1/games/{game_id}/moves", json=early, headers=headers)
    assert (again.status_code, again.content) == (409, first.content)
    assert again.headers["content-type"].startswith(PROBLEM)
    assert (await view(client, game_id))["version"] == version
    # A card the seat does not hold, refused, is remembered with its key too.
    hand = (await view(client, game_id, tokens[following]))["you"]["hand"]
    missing = {**early, "card": next(card for card in ruleset.card_codes if card not in hand)}
    headers = {**auth(tokens[following]), "Idempotency-Key": "not-held"}
    refused = await client.post(f"/v1/games/{game_id}/moves", json=missing, headers=headers)
    problem(refused, 422, "card_not_in_hand")
    retried = await client.post(f"/v1/games/{game_id}/moves", json=missing, headers=headers)
    assert (retried.status_code, retried.content) == (422, refused.content)
    assert (await view(client, game_id))["version"] == version


# ---- what an answer shows ----------------------------------------------------------------


@EVERY_RULESET
async def test_no_answer_to_any_seat_or_to_nobody_shows_a_hand_it_may_not_see(client, ruleset):
    table = await Table.new(client, ruleset, 4, seed=4242, bots={1: "greedy", 3: "random"}, options=shortest(ruleset))
    game_id, tokens = table.game_id, table.tokens
    rng = random.Random(5)
    callers = [None, *sorted(tokens)]
    check_no_leak(ruleset, table.created, None, table.hands(), False)
    while not table.finished:
        hands = table.hands()
        caller = rng.choice(callers)
        headers = auth(tokens[caller]) if caller is not None else {}
        for path in ["", "/events?limit=5000", "/scores", "/export", f"?version={rng.randint(1, 2)}"]:
            reader = caller if "?version" not in path else None  # time travel is read by nobody
            response = await client.get(f"/v1/games/{game_id}{path}", headers=headers if reader is not None else {})
            body = response.json() if "json" in response.headers["content-type"] else response.text
            check_no_leak(ruleset, body, reader, hands, False)
            for seat, hand in enumerate(hands):
                if seat != reader and len(hand) > 3:
                    assert " ".join(hand) not in str(body)
        # A random move from a random caller: its answer, refused or not, leaks nothing.
        wrong = {**body_of(ruleset, rng.choice(table.oracle.legal_moves())), "card": rng.choice(ruleset.card_codes)}
        answer = await client.post(f"/v1/games/{game_id}/moves", json=wrong, headers=headers)
        if answer.status_code == 201:
            table.follow(answer.json()["events"])
            check_no_leak(ruleset, answer.json(), caller, table.hands(), table.finished)
            continue
        assert answer.status_code in (401, 409, 422), answer.text
        check_no_leak(ruleset, answer.json(), caller, hands, False)
        seat = table.oracle.turn
        response = await table.move()
        check_no_leak(ruleset, response.json(), seat, table.hands(), table.finished)
    scores = (await client.get(f"/v1/games/{game_id}/scores")).json()
    assert (scores["totals"], scores["winners"]) == (list(table.oracle.totals), list(table.oracle.winners))
