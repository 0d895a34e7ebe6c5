"""The search bot (`mcts`) through a real `poison serve`: seats with and without playouts,
a whole pot game against it, the refusals of seats it cannot take, replay of its exported
log, and the event loop answering other requests while it searches. One server for the
module; small budgets (200 playouts) except where a slow search is the point."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from core.rulesets import POT
from service.documented import REPLAY_PLAYOUTS
from service.schemas import SERVICE_PLAYOUTS
from tests.service.served import serving
from tests.waiting import cpu_seconds, until_async

pytestmark = pytest.mark.subprocess

TABLE = [{"name": "ana"}, {"name": "bob", "bot": "mcts", "playouts": 200}, {"name": "cy", "bot": "mcts"}]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(tmp_path_factory.mktemp("search-bot-api")) as served:
        yield served


@pytest.fixture(scope="module")
def http(base: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base, timeout=60) as client:
        yield client


def create(http: httpx.Client, players: list[dict[str, Any]], **body: Any) -> httpx.Response:
    return http.post("/v1/games", json={"players": players, **body})


@pytest.fixture(scope="module")
def finished(http: httpx.Client) -> dict[str, Any]:
    """A whole pot game of ana (the first legal move each turn) against two mcts seats,
    with every answer she got on the way."""
    created = create(http, TABLE, ruleset="pot", seed=8)
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    token = created.json()["players"][0]["token"]
    answers = [created.json()["game"]]
    game = http.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"}).json()
    while game["status"] == "active":
        move = game["you"]["legal_moves"][0]
        played = http.post(f"/v1/games/{game_id}/moves", json=move, headers={"Authorization": f"Bearer {token}"})
        assert played.status_code == 201, played.text
        game = played.json()["game"]
        answers.append(game)
    return {"id": game_id, "created": created.json(), "answers": answers, "game": game}


def test_an_mcts_seat_shows_its_playouts_given_or_defaulted_and_no_other_seat_has_the_key(finished):
    players = finished["created"]["game"]["players"]
    assert [player.get("playouts") for player in players] == [None, 200, POT.default_playouts]
    assert "playouts" not in players[0]
    assert [player["bot"] for player in players] == [None, "mcts", "mcts"]


def test_a_whole_game_against_mcts_seats_is_played_to_its_end(finished):
    game = finished["game"]
    assert game["status"] == "finished"
    assert len(game["winners"]) >= 1
    assert len(finished["answers"]) > 2  # ana moved, and the bots answered each time


def test_no_answer_on_the_way_showed_a_hand_but_anas(finished):
    for answer in finished["answers"]:
        assert "all" not in answer
        if "you" in answer:
            assert answer["you"]["seat"] == 0


def test_the_exported_log_records_the_playouts_and_replays(http, finished):
    exported = http.get(f"/v1/games/{finished['id']}/export")
    assert exported.status_code == 200, exported.text
    created = json.loads(exported.text.splitlines()[0])
    assert [p.get("playouts") for p in created["data"]["players"]] == [None, 200, POT.default_playouts]
    replayed = http.post("/v1/replays", content=exported.text, headers={"Content-Type": "application/x-ndjson"})
    assert replayed.status_code == 200, replayed.text
    assert replayed.json()["game"]["totals"] == finished["game"]["totals"]


def _first_bot_move(lines: list[dict[str, Any]]) -> int:
    return next(i for i, line in enumerate(lines) if line["type"] == "card_played" and line["data"]["seat"] == 1)


def test_a_replayed_log_with_another_move_for_an_mcts_seat_is_refused(http, finished):
    lines = [json.loads(line) for line in http.get(f"/v1/games/{finished['id']}/export").text.splitlines()]
    at = _first_bot_move(lines)
    cut = lines[: at + 1]
    original = cut[at]["data"]
    # Another card of bob's hand just before his move, as a replay of the log up to it shows.
    before = http.post("/v1/replays", json={"events": lines[:at]}, params={"version": at})
    other = next(card for card in before.json()["game"]["all"]["hands"][1] if card != original["card"])
    cut[at] = {**cut[at], "data": {**original, "card": other}}
    refused = http.post("/v1/replays", json={"events": cut}, params={"version": len(cut)})
    assert refused.status_code == 422, refused.text
    assert refused.json()["code"] == "invalid_log"
    assert refused.json()["at_version"] == cut[at]["version"]
    assert "seat 1 is the mcts bot, which plays" in refused.json()["detail"]


def test_a_replayed_log_asking_more_search_than_a_replay_does_is_refused_before_searching(http, finished):
    lines = [json.loads(line) for line in http.get(f"/v1/games/{finished['id']}/export").text.splitlines()]
    lines[0]["data"]["players"][1]["playouts"] = 200_000  # the engine's most, for each of bob's moves
    worker = int(http.get("/health").headers["x-poison-worker"])  # the one worker
    before = cpu_seconds(worker)
    refused = http.post("/v1/replays", json={"events": lines})
    assert refused.status_code == 422, refused.text
    assert refused.json()["code"] == "search_limit"
    assert f"{REPLAY_PLAYOUTS:,} at most" in refused.json()["detail"]
    assert int(refused.headers["x-poison-worker"]) == worker
    # Measured in the worker's CPU time, which a busy machine does not stretch: bob's
    # searches alone would take over 10 s of it (a million playouts, the replay's most).
    assert cpu_seconds(worker) - before < 2


@pytest.mark.parametrize(
    ("players", "code", "says"),
    [
        ([{"name": "ana", "playouts": 500}, {"name": "bob", "bot": "mcts"}], "playouts_without_search", "players[0]"),
        ([{"name": "ana"}, {"name": "bob", "bot": "greedy", "playouts": 500}], "playouts_without_search", "greedy"),
        ([{"name": "ana", "bot": "mcts"}, {"name": "bob", "bot": "greedy"}], "search_without_person", "person"),
        ([{"open": True, "playouts": 9}, {"name": "bob", "bot": "mcts"}], "playouts_without_search", "nobody yet"),
    ],
)
def test_seats_the_search_bot_cannot_take_are_refused_422(http, players, code, says):
    refused = create(http, players, ruleset="pot")
    assert refused.status_code == 422, refused.text
    assert refused.json()["code"] == code
    assert says in refused.json()["detail"]


@pytest.mark.parametrize("playouts", [SERVICE_PLAYOUTS[0] - 1, SERVICE_PLAYOUTS[1] + 1, "200", 2.5])
def test_playouts_out_of_the_services_bounds_are_refused_400(http, playouts):
    refused = create(http, [{"name": "ana"}, {"name": "bob", "bot": "mcts", "playouts": playouts}], ruleset="pot")
    assert refused.status_code == 400, refused.text
    assert "playouts" in refused.json()["detail"]


def test_an_mcts_seat_beside_an_open_seat_waits_and_plays_once_it_is_joined(http):
    created = create(http, [{"open": True}, {"name": "bob", "bot": "mcts", "playouts": 50}], ruleset="pot")
    assert created.status_code == 201, created.text
    assert created.json()["game"]["status"] == "waiting"
    assert created.json()["game"]["players"][1]["playouts"] == 50
    joined = http.post(f"/v1/games/{created.json()['game_id']}/seats/0", json={"name": "dee"})
    assert joined.status_code == 201, joined.text
    game = joined.json()["game"]
    assert game["status"] == "active"
    assert game["turn"] == 0  # had bob been first, he has moved already
    assert game["players"][1]["playouts"] == 50


def test_a_rematch_keeps_every_mcts_seat_and_its_playouts(http, finished):
    token = finished["created"]["players"][0]["token"]
    rematch = http.post(f"/v1/games/{finished['id']}/rematch", headers={"Authorization": f"Bearer {token}"})
    assert rematch.status_code == 201, rematch.text
    players = rematch.json()["game"]["players"]
    expected = [(None, None), ("mcts", 200), ("mcts", POT.default_playouts)]
    assert [(p["bot"], p.get("playouts")) for p in players] == expected


def test_the_document_offers_mcts_and_states_the_playouts_bounds(http):
    document = http.get("/schema/openapi.json").json()
    schemas = document["components"]["schemas"]
    assert "mcts" in schemas["BotName"]["enum"]
    playouts = json.dumps(schemas)
    assert f'"maximum": {SERVICE_PLAYOUTS[1]}' in playouts


@pytest.mark.anyio
async def test_the_service_answers_other_requests_while_an_mcts_seat_searches(base):
    """ana's move lets three mcts seats search with the service's most playouts, about a
    second of CPU; a read sent meanwhile is answered before the move is."""
    most = SERVICE_PLAYOUTS[1]
    table = [{"name": "ana"}, *({"name": f"bot{s}", "bot": "mcts", "playouts": most} for s in (1, 2, 3))]
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        created = await http.post("/v1/games", json={"players": table, "seed": 3, "rounds": 1})
        assert created.status_code == 201, created.text
        game_id, token = created.json()["game_id"], created.json()["players"][0]["token"]
        headers = {"Authorization": f"Bearer {token}"}
        answer = await http.get(f"/v1/games/{game_id}", headers=headers)
        game, worker = answer.json(), int(answer.headers["x-poison-worker"])  # the one worker
        assert game["turn"] == 0
        done: list[str] = []

        async def request(name: str, method: str, path: str, **kwargs: Any) -> httpx.Response:
            response = await http.request(method, path, **kwargs)
            done.append(name)
            return response

        before = cpu_seconds(worker)
        move = asyncio.create_task(
            request("move", "POST", f"/v1/games/{game_id}/moves", json=game["you"]["legal_moves"][0], headers=headers)
        )
        # The move has arrived and its bots are searching: the worker has spent 50 ms of CPU on
        # it, where a move without a search costs a few (the searches, well over 100 ms more).
        await until_async(lambda: cpu_seconds(worker) - before >= 0.05, what="the bots searching")
        health = await request("health", "GET", "/health")
        read = await request("read", "GET", f"/v1/games/{game_id}")
        assert health.status_code == 200
        assert read.json()["version"] == game["version"]  # the move is not appended yet
        assert (await move).status_code == 201
        assert done == ["health", "read", "move"]
