"""Every endpoint of http-api.md and every error code, through the real Litestar app, in a
game of Poison. What holds of a game of every ruleset (idempotent retries, export and
replay, redaction, the stream, time travel, tampered logs, leaks) is tested once for all of
them in tests/service/test_every_ruleset*.py."""

from __future__ import annotations

import asyncio

import pytest

from core import seeded_deal
from tests.service.api import auth, create, problem, view

pytestmark = pytest.mark.anyio


async def play_first(client, game_id, tokens, **extra):
    game = await view(client, game_id)
    seat = game["turn"]
    mine = await view(client, game_id, tokens[seat])
    move = mine["you"]["legal_moves"][0]
    response = await client.post(f"/v1/games/{game_id}/moves", json={**move, **extra}, headers=auth(tokens[seat]))
    return response, seat, move


async def finish(client, game_id, tokens):
    while (await view(client, game_id))["status"] == "active":
        response, _, _ = await play_first(client, game_id, tokens)
        assert response.status_code == 201, response.text


# ---- creating ------------------------------------------------------------------------------


async def test_creating_a_game_answers_201_with_its_location_tokens_for_humans_and_its_view(client):
    created, tokens = await create(client, 4, bots={3: "greedy"}, seed=12345, rounds=2)
    game_id = created["game_id"]
    assert set(tokens) == {0, 1, 2}
    assert all(len(token) >= 40 for token in tokens.values())
    assert len(set(tokens.values())) == 3
    assert "token" not in created["players"][3]
    game = created["game"]
    assert (game["game_id"], game["status"], game["rounds"], game["round"], game["dealer"]) == (
        game_id,
        "active",
        2,
        1,
        0,
    )
    assert game["rules"] == {"cauldrons": "dynamic"}
    assert [p["bot"] for p in game["players"]] == [None, None, None, "greedy"]
    assert "you" not in game
    mine = await view(client, game_id, tokens[1])
    assert tuple(mine["you"]["hand"]) == seeded_deal(12345, 4, 1).hands[1]


async def test_the_location_header_names_the_new_game(client):
    response = await client.post("/v1/games", json={"players": [{"name": n} for n in "abc"]})
    assert response.headers["location"] == f"/v1/games/{response.json()['game_id']}"
    assert (await client.get(response.headers["location"])).status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        {"players": [{"name": "a"}, {"name": "b"}]},
        {"players": [{"name": str(n)} for n in range(7)]},
        {"players": [{"name": ""}, {"name": "b"}, {"name": "c"}]},
        {"players": [{"name": "x" * 33}, {"name": "b"}, {"name": "c"}]},
        {"players": [{"name": "a"}, {"name": "a"}, {"name": "c"}]},
        {"players": [{"name": "a", "bot": "smart"}, {"name": "b"}, {"name": "c"}]},
        {"players": [{"name": "a", "colour": "red"}, {"name": "b"}, {"name": "c"}]},
        {"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "rounds": 0},
        {"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "rounds": 21},
        {"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "seed": -1},
        {"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "seed": "12"},
        {"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "rules": {"cauldrons": "magic"}},
        {"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "rules": {"overflow": 12}},
        {"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "ruleset": "chess"},
        {"players": "abc"},
        {},
        [],
        None,
    ],
)
async def test_a_malformed_creation_is_400_invalid_request_and_creates_nothing(client, body):
    problem(await client.post("/v1/games", json=body), 400, "invalid_request")
    listed = (await client.get("/v1/games")).json()
    assert listed["games"] == []


async def test_a_body_that_is_not_json_is_400(client):
    response = await client.post("/v1/games", content=b"{players: nope", headers={"content-type": "application/json"})
    problem(response, 400, "invalid_request")


async def test_a_body_over_the_limit_is_413_payload_too_large(client):
    huge = {"players": [{"name": "a" * 30}] * 3, "padding": "x" * 300_000}
    problem(await client.post("/v1/games", json=huge), 413, "payload_too_large")


# ---- reading -------------------------------------------------------------------------------


async def test_a_game_read_without_a_token_shows_no_hand(client):
    created, _tokens = await create(client, 3, seed=5)
    game = await view(client, created["game_id"])
    assert "you" not in game
    assert [p["hand_size"] for p in game["players"]] == [12, 13, 13]


async def test_your_token_shows_your_hand_and_your_legal_moves_on_your_turn(client):
    created, tokens = await create(client, 3, seed=5)
    game_id = created["game_id"]
    to_move = await view(client, game_id, tokens[1])
    waiting = await view(client, game_id, tokens[2])
    assert to_move["you"]["seat"] == 1
    assert len(to_move["you"]["legal_moves"]) > 0
    assert waiting["you"]["seat"] == 2
    assert waiting["you"]["legal_moves"] == []
    assert len(waiting["you"]["hand"]) == 13


@pytest.mark.parametrize(
    "authorization", ["Bearer nonsense-that-is-long-enough-to-look-right", "Token abc", "Bearer", "Bearer a b"]
)
async def test_an_unknown_or_malformed_token_is_401(client, authorization):
    created, _ = await create(client, 3)
    response = await client.get(f"/v1/games/{created['game_id']}", headers={"Authorization": authorization})
    problem(response, 401, "unauthorized")


async def test_a_token_is_valid_only_for_its_own_game(client):
    _first, tokens = await create(client, 3)
    second, _ = await create(client, 3)
    problem(await client.get(f"/v1/games/{second['game_id']}", headers=auth(tokens[0])), 401, "unauthorized")


async def test_an_unknown_game_is_404_game_not_found_on_every_route(client):
    for path in ["", "/scores", "/events", "/export", "/events/stream"]:
        problem(await client.get(f"/v1/games/nosuchgame{path}"), 404, "game_not_found")
    response = await client.post(
        "/v1/games/nosuchgame/moves", json={"card": "R1", "cauldron": 0}, headers=auth("x" * 43)
    )
    problem(response, 404, "game_not_found")


# ---- listing -------------------------------------------------------------------------------


async def test_games_are_listed_newest_first_a_page_at_a_time(client):
    ids = []
    for _ in range(5):
        created, _ = await create(client, 3)
        ids.append(created["game_id"])
        await asyncio.sleep(0.002)
    first = (await client.get("/v1/games?limit=2")).json()
    second = (await client.get(f"/v1/games?limit=2&cursor={first['next']}")).json()
    third = (await client.get(f"/v1/games?limit=2&cursor={second['next']}")).json()
    listed = [g["game_id"] for page in (first, second, third) for g in page["games"]]
    assert listed == ids[::-1]
    assert third["next"] is None
    assert first["games"][0] == {
        "game_id": ids[-1],
        "status": "active",
        "players": ["p0", "p1", "p2"],
        "round": 1,
        "rounds": 3,
        "version": 2,
    }


async def test_the_listing_filters_by_status(client):
    done, _ = await create(client, 3, bots={0: "random", 1: "random", 2: "greedy"})
    going, _ = await create(client, 3)
    finished = (await client.get("/v1/games?status=finished")).json()["games"]
    active = (await client.get("/v1/games?status=active")).json()["games"]
    assert [g["game_id"] for g in finished] == [done["game_id"]]
    assert [g["game_id"] for g in active] == [going["game_id"]]


@pytest.mark.parametrize("query", ["limit=0", "limit=201", "status=paused", "cursor=zzz", "limit=x"])
async def test_a_bad_listing_query_is_400(client, query):
    problem(await client.get(f"/v1/games?{query}"), 400, "invalid_request")


# ---- moves ---------------------------------------------------------------------------------


async def test_a_move_is_201_with_its_events_and_your_view(client):
    created, tokens = await create(client, 4, seed=3)
    response, seat, move = await play_first(client, created["game_id"], tokens)
    assert response.status_code == 201
    body = response.json()
    assert body["version"] == 3
    assert body["events"] == [
        {
            "version": 3,
            "type": "card_played",
            "data": {
                "round": 1,
                "seat": seat,
                "card": move["card"],
                "cauldron": move["cauldron"],
                "total": int(move["card"][1]),
            },
        }
    ]
    assert body["game"]["you"]["seat"] == seat
    assert body["game"]["turn"] == (seat + 1) % 4


async def test_a_move_without_a_token_is_401(client):
    created, _ = await create(client, 3)
    response = await client.post(f"/v1/games/{created['game_id']}/moves", json={"card": "R1", "cauldron": 0})
    problem(response, 401, "unauthorized")


async def test_a_move_out_of_turn_is_409_not_your_turn(client):
    created, tokens = await create(client, 3, seed=2)
    hand = (await view(client, created["game_id"], tokens[2]))["you"]["hand"]
    response = await client.post(
        f"/v1/games/{created['game_id']}/moves", json={"card": hand[0], "cauldron": 0}, headers=auth(tokens[2])
    )
    problem(response, 409, "not_your_turn")


async def test_a_card_you_do_not_hold_is_422_card_not_in_hand(client):
    created, tokens = await create(client, 3, seed=2)
    hand = set((await view(client, created["game_id"], tokens[1]))["you"]["hand"])
    missing = next(card for card in ["R1", "R2", "R4", "R5", "R7", "B1", "B2", "B4"] if card not in hand)
    response = await client.post(
        f"/v1/games/{created['game_id']}/moves", json={"card": missing, "cauldron": 0}, headers=auth(tokens[1])
    )
    problem(response, 422, "card_not_in_hand")


async def test_a_potion_into_the_wrong_cauldron_is_422_illegal_cauldron(client):
    created, tokens = await create(client, 3, seed=2, rules={"cauldrons": "fixed"})
    hand = (await view(client, created["game_id"], tokens[1]))["you"]["hand"]
    potion = next(card for card in hand if card != "G4")
    wrong = ({"R": 0, "B": 1, "P": 2}[potion[0]] + 1) % 3
    response = await client.post(
        f"/v1/games/{created['game_id']}/moves", json={"card": potion, "cauldron": wrong}, headers=auth(tokens[1])
    )
    problem(response, 422, "illegal_cauldron")


async def test_a_stale_expected_version_is_409_version_conflict_with_the_current_version(client):
    created, tokens = await create(client, 3, seed=2)
    response, _, _ = await play_first(client, created["game_id"], tokens, expected_version=1)
    assert problem(response, 409, "version_conflict")["current_version"] == 2
    response, _, _ = await play_first(client, created["game_id"], tokens, expected_version=2)
    assert response.status_code == 201


async def test_a_move_in_a_finished_game_is_409_game_finished(client):
    created, tokens = await create(client, 3, rounds=1, seed=4)
    await finish(client, created["game_id"], tokens)
    response = await client.post(
        f"/v1/games/{created['game_id']}/moves", json={"card": "R1", "cauldron": 0}, headers=auth(tokens[0])
    )
    problem(response, 409, "game_finished")


@pytest.mark.parametrize(
    "body",
    [
        {"card": "R3", "cauldron": 0},
        {"card": "R1", "cauldron": 3},
        {"card": "R1"},
        {"card": "R1", "cauldron": 0, "seat": 1},
        {"card": 1, "cauldron": 0},
        {"card": "R1", "cauldron": "0"},
        {"card": "R1", "cauldron": 0, "expected_version": -1},
    ],
)
async def test_a_malformed_move_is_400_and_changes_nothing(client, body):
    created, tokens = await create(client, 3)
    response = await client.post(f"/v1/games/{created['game_id']}/moves", json=body, headers=auth(tokens[1]))
    problem(response, 400, "invalid_request")
    assert (await view(client, created["game_id"]))["version"] == 2


async def test_bots_answer_a_human_move_in_the_same_response(client):
    created, tokens = await create(client, 4, seed=6, bots={2: "greedy", 3: "random"})
    response, seat, _ = await play_first(client, created["game_id"], tokens)
    body = response.json()
    assert seat == 1
    assert [e["data"]["seat"] for e in body["events"] if e["type"] == "card_played"] == [1, 2, 3]
    assert body["game"]["turn"] == 0
    assert body["version"] == 2 + len(body["events"])


# ---- scores and the stream -----------------------------------------------------------------


async def test_scores_list_finished_rounds_with_taken_counts_and_discards(client):
    created, tokens = await create(client, 3, rounds=2, seed=10)
    game_id = created["game_id"]
    assert (await client.get(f"/v1/games/{game_id}/scores")).json() == {
        "ruleset": "poison",  # every score sheet names its ruleset since the pot game's has pots, not rounds
        "status": "active",
        "totals": [0, 0, 0],
        "winners": [],
        "rounds": [],
    }
    await finish(client, game_id, tokens)
    scores = (await client.get(f"/v1/games/{game_id}/scores")).json()
    assert scores["status"] == "finished"
    assert [r["round"] for r in scores["rounds"]] == [1, 2]
    assert [r["dealer"] for r in scores["rounds"]] == [0, 1]
    assert scores["totals"] == [sum(r["scores"][s] for r in scores["rounds"]) for s in range(3)]
    assert set(scores["rounds"][0]["taken"][0]) == {"red", "blue", "purple", "poison"}
    assert scores["winners"] == [s for s, t in enumerate(scores["totals"]) if t == min(scores["totals"])]


async def test_a_bad_last_event_id_is_400(client):
    created, _ = await create(client, 3)
    problem(
        await client.get(f"/v1/games/{created['game_id']}/events/stream", headers={"Last-Event-ID": "x"}),
        400,
        "invalid_request",
    )


# ---- replays, health, routing --------------------------------------------------------------


async def test_a_replay_in_an_unknown_format_is_415_and_a_json_body_of_another_shape_400(client):
    problem(
        await client.post("/v1/replays", content=b"x", headers={"content-type": "text/plain"}),
        415,
        "unsupported_media_type",
    )
    problem(await client.post("/v1/replays", json={"lines": []}), 400, "invalid_request")


async def test_health_is_ok_while_the_store_answers(client):
    response = await client.get("/health")
    assert (response.status_code, response.json()) == (200, {"status": "ok"})


async def test_unknown_routes_and_methods_are_problems_too(client):
    problem(await client.get("/v2/games"), 404, "not_found")
    problem(await client.delete("/v1/games"), 405, "method_not_allowed")


async def test_the_openapi_document_and_its_pages_are_served(client):
    document = (await client.get("/schema/openapi.json")).json()
    assert document["openapi"].startswith("3.1")
    assert {"/v1/games", "/v1/games/{game_id}/moves", "/v1/replays", "/health"} <= document["paths"].keys()
    assert (await client.get("/schema/swagger")).status_code == 200


async def test_a_store_that_cannot_be_reached_is_503_store_unavailable_quickly(namespace):
    import time

    from litestar.testing import AsyncTestClient

    from service.app import create_app
    from service.settings import Settings

    down = Settings(redis_url="redis://127.0.0.1:1/0", namespace=namespace, store_timeout=1.0)
    async with AsyncTestClient(create_app(down)) as unreachable:
        for method, path, body in [
            ("GET", "/health", None),
            ("POST", "/v1/games", {"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}),
            ("GET", "/v1/games/abc", None),
            ("GET", "/v1/games", None),
        ]:
            started = time.monotonic()
            response = await unreachable.request(method, path, json=body)
            problem(response, 503, "store_unavailable")
            assert time.monotonic() - started < 3


# ---- found in review -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/events?after=18446744073709551616", {}),
        ("/events/stream", {"Last-Event-ID": "99999999999999999999999"}),
        ("/events/stream", {"Last-Event-ID": "-1"}),
        ("?version=18446744073709551616", {}),
    ],
)
async def test_versions_beyond_any_log_are_400_not_a_server_error(client, path, headers):
    created, _ = await create(client, 3)
    problem(await client.get(f"/v1/games/{created['game_id']}{path}", headers=headers), 400, "invalid_request")


async def test_the_bearer_scheme_is_case_insensitive(client):
    created, tokens = await create(client, 3)
    mine = await client.get(f"/v1/games/{created['game_id']}", headers={"Authorization": f"bearer {tokens[1]}"})
    assert mine.json()["you"]["seat"] == 1


async def test_the_longest_possible_game_replays_within_the_body_limit(client):
    from events.poison.schema import encode_public, to_public
    from tests.events.logs import game_log

    log, logged = game_log(6, seed=1, rounds=20)
    body = b"".join(encode_public(to_public(v, e)) + b"\n" for v, e in enumerate(log, 1))
    response = await client.post("/v1/replays", content=body, headers={"content-type": "application/x-ndjson"})
    assert response.status_code == 200, response.text
    assert response.json()["scores"]["totals"] == list(logged.game.totals)
