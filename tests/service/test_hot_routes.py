"""The hot routes (service/hot.py): which requests skip Litestar's router, and that they are
answered exactly as Litestar answers them. A query string the routes ignore (`?via=router`)
sends the same request through Litestar, so each case is asked both ways and compared:
status, body and headers (but the request's id)."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from core import CARD_CODES
from service import hot
from service.hot import MOVES_TEMPLATE, READ_TEMPLATE, play_card, read_game, route
from tests.service.api import auth, create

CAP = 262_144
anyio = pytest.mark.anyio


def scope(method: str, path: str, query: bytes = b"", headers: dict[bytes, bytes] | None = None) -> Any:
    pairs = list((headers or {}).items())
    return {"type": "http", "method": method, "path": path, "query_string": query, "headers": pairs}


def served_by(method: str, path: str, **given: Any) -> tuple[str, str, str] | None:
    taken = route(scope(method, path, **given), CAP)
    return None if taken is None else (taken[0].__name__, taken[1], taken[2])


MOVE_HEADERS = {b"content-length": b"40", b"content-type": b"application/json"}


def test_a_plain_read_and_a_plain_move_take_the_hot_routes() -> None:
    assert served_by("GET", "/v1/games/abc_-9") == ("_read", "abc_-9", READ_TEMPLATE)
    assert served_by("POST", "/v1/games/abc/moves", headers=MOVE_HEADERS) == ("_play", "abc", MOVES_TEMPLATE)


@pytest.mark.parametrize(
    ("method", "path", "given"),
    [
        ("GET", "/v1/games/abc", {"query": b"version=3"}),  # time travel: Litestar reads the query
        ("GET", "/v1/games/", {}),  # the listing
        ("GET", "/v1/games/abc/", {}),  # a trailing slash
        ("GET", "/v1/games/abc/scores", {}),
        ("GET", "/v1/games/" + "a" * 65, {}),  # longer than any game id
        ("GET", "/v1/games/a.b", {}),  # not a game id's characters
        ("DELETE", "/v1/games/abc", {}),
        ("POST", "/v1/games/abc/moves", {}),  # no Content-Length: Litestar reads such a body
        ("POST", "/v1/games/abc/moves", {"headers": {b"content-length": b"x1"}}),
        ("POST", "/v1/games/abc/moves", {"headers": {b"content-length": str(CAP + 1).encode()}}),  # 413 there
        ("POST", "/v1/games/a/b/moves", {"headers": MOVE_HEADERS}),
        ("POST", "/v1/games/abc/seats/1", {"headers": MOVE_HEADERS}),
        ("GET", "/health", {}),
    ],
)
def test_a_request_out_of_the_ordinary_goes_to_litestar(method: str, path: str, given: dict[str, Any]) -> None:
    assert served_by(method, path, **given) is None


def test_the_hot_routes_name_the_handlers_the_litestar_routes_call() -> None:
    # One body of code for both roads: the Litestar routes call these too.
    from service.controllers import games

    assert games.read_game is read_game
    assert games.play_card is play_card


def same_answer(hot: Any, routed: Any) -> None:
    assert (hot.status_code, hot.content) == (routed.status_code, routed.content)
    differs = {"x-request-id", "date"}
    assert {k: v for k, v in hot.headers.items() if k not in differs} == {
        k: v for k, v in routed.headers.items() if k not in differs
    }


async def both(client: AsyncTestClient, method: str, path: str, **kwargs: Any) -> Any:
    """The request through the hot route and through Litestar; their answers, checked equal."""
    hot = await client.request(method, path, **kwargs)
    routed = await client.request(method, path, params={"via": "router"}, **kwargs)
    same_answer(hot, routed)
    return hot


@anyio
async def test_reads_are_answered_as_litestar_answers_them(client: AsyncTestClient) -> None:
    created, tokens = await create(client, 3)
    game_id = created["game_id"]
    assert (await both(client, "GET", f"/v1/games/{game_id}")).json()["game_id"] == game_id
    assert "hand" in (await both(client, "GET", f"/v1/games/{game_id}", headers=auth(tokens[1]))).json()["you"]
    assert (await both(client, "GET", "/v1/games/nosuchgame")).json()["code"] == "game_not_found"
    wrong = await both(client, "GET", f"/v1/games/{game_id}", headers=auth("x" * 43))
    assert wrong.json()["code"] == "unauthorized"
    malformed = await both(client, "GET", f"/v1/games/{game_id}", headers={"Authorization": "Basic abc"})
    assert malformed.status_code == 401
    head = await client.head(f"/v1/games/{game_id}")
    assert (head.status_code, head.content, head.headers["content-type"]) == (200, b"", "application/json")


@anyio
async def test_refused_moves_are_answered_as_litestar_answers_them(client: AsyncTestClient) -> None:
    created, tokens = await create(client, 3)
    game_id, turn = created["game_id"], created["game"]["turn"]
    waiting = (turn + 1) % 3
    me = auth(tokens[turn])
    hand = (await client.get(f"/v1/games/{game_id}", headers=me)).json()["you"]["hand"]
    moves = f"/v1/games/{game_id}/moves"
    elsewhere = next(card for card in CARD_CODES if card not in hand)
    cases: list[tuple[str, dict[str, Any]]] = [
        ("not_your_turn", {"json": {"card": hand[0], "cauldron": 0}, "headers": auth(tokens[waiting])}),
        ("card_not_in_hand", {"json": {"card": elsewhere, "cauldron": 0}, "headers": me}),
        ("version_conflict", {"json": {"card": hand[0], "cauldron": 0, "expected_version": 99}, "headers": me}),
        ("invalid_request", {"json": {"card": hand[0], "cauldron": "0"}, "headers": me}),  # strict: no coercion
        ("invalid_request", {"content": b"", "headers": {**me, "Content-Type": "application/json"}}),
        ("invalid_request", {"content": b"[" * 40 + b"]" * 40, "headers": {**me, "Content-Type": "application/json"}}),
        ("unsupported_media_type", {"content": b"R1 0", "headers": {**me, "Content-Type": "text/plain"}}),
        ("unauthorized", {"json": {"card": hand[0], "cauldron": 0}}),
        ("unauthorized", {"json": {"card": hand[0], "cauldron": 0}, "headers": auth("y" * 43)}),
    ]
    for code, kwargs in cases:
        answer = await both(client, "POST", moves, **kwargs)
        assert answer.json()["code"] == code, (code, answer.text)
    unknown = await both(client, "POST", "/v1/games/nosuchgame/moves", json={"card": hand[0], "cauldron": 0})
    assert unknown.json()["code"] == "game_not_found"
    # Nothing above changed the game.
    assert (await client.get(f"/v1/games/{game_id}")).json()["version"] == created["game"]["version"]


@anyio
async def test_a_move_through_the_hot_route_is_played_and_measured(client: AsyncTestClient) -> None:
    created, tokens = await create(client, 3)
    game_id, turn = created["game_id"], created["game"]["turn"]
    me = auth(tokens[turn])
    move = (await client.get(f"/v1/games/{game_id}", headers=me)).json()["you"]["legal_moves"][0]
    played = await client.post(f"/v1/games/{game_id}/moves", json=move, headers=me)
    assert played.status_code == 201, played.text
    assert played.json()["game"]["version"] > created["game"]["version"]
    assert played.headers["x-poison-worker"]
    assert played.headers["x-request-id"]
    metrics = (await client.get("/metrics")).text
    assert f'route="{MOVES_TEMPLATE}",status="201"' in metrics.replace('method="POST",', "")


@anyio
async def test_a_bug_behind_a_hot_route_is_a_logged_500_that_says_nothing_of_it(
    client: AsyncTestClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def broken(*args: Any) -> None:
        raise RuntimeError("the secret inner workings")

    monkeypatch.setattr(hot, "_read", broken)
    answer = await client.get("/v1/games/anygame")
    assert (answer.status_code, answer.json()["code"]) == (500, "internal_error")
    assert "secret" not in answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    logged = [record for record in caplog.records if record.getMessage().startswith("unexpected error on GET")]
    assert logged
    assert logged[0].exc_info is not None
    assert "/v1/games/anygame" in logged[0].getMessage()
