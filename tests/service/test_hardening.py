"""The hardening issue's defects 1, 5, 6, 7 and 10 (and HEAD, Allow on 405), through the real
app on the real store: each test fails on the service as it was before its fix."""

from __future__ import annotations

import asyncio

import msgspec
import pytest

from tests.service.api import auth, create, view
from tests.service.test_games_api import finish, play_first, problem

pytestmark = pytest.mark.anyio

JSON = {"content-type": "application/json"}
NDJSON = {"content-type": "application/x-ndjson"}
DEEP = b"[" * 1000 + b"]" * 1000
OPEN_ONLY = b"[" * 1000
THREE = {"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}


async def bounded(request, seconds: float = 10):
    """A request that would otherwise wait for ever on a stream that never ends."""
    return await asyncio.wait_for(request, seconds)


async def finished_game(client) -> tuple[str, dict[int, str], int]:
    created, tokens = await create(client, 3, rounds=1, seed=3, bots={2: "greedy"})
    await finish(client, created["game_id"], tokens)
    return created["game_id"], tokens, (await view(client, created["game_id"]))["version"]


# ---- 1. deeply nested JSON -----------------------------------------------------------------


def _nested_bodies() -> list:
    event = b'{"version": 1, "type": "game_created", "data": {"x": ' + DEEP + b"}}"
    return [
        pytest.param("/v1/games", JSON, DEEP, id="create-bare"),
        pytest.param("/v1/games", JSON, b'{"players": [], "x": ' + DEEP + b"}", id="create-unknown-field"),
        pytest.param("/v1/games", JSON, b'{"ruleset": "pot", "x": ' + OPEN_ONLY, id="create-unclosed"),
        pytest.param("/v1/games/nosuchgame/moves", JSON, DEEP, id="move-unknown-game-no-token"),
        pytest.param("/v1/games/nosuchgame/moves", JSON, b'{"card": "R1", "x": ' + DEEP + b"}", id="move-field"),
        pytest.param("/v1/replays", JSON, b'{"events": [' + event + b"]}", id="replay-json"),
        pytest.param("/v1/replays", NDJSON, event + b"\n", id="replay-ndjson"),
        pytest.param("/v1/replays", NDJSON, b"\n\n" + OPEN_ONLY + b"\n", id="replay-ndjson-unclosed"),
    ]


@pytest.mark.parametrize(("path", "headers", "body"), _nested_bodies())
async def test_a_body_nested_a_thousand_levels_deep_is_400_on_every_route_with_a_body(client, path, headers, body):
    response = await client.post(path, content=body, headers=headers)
    assert "nests deeper" in problem(response, 400, "invalid_request")["detail"]
    assert (await client.get("/v1/games")).json()["games"] == []


async def test_a_deep_body_is_refused_before_the_game_or_the_token_is_looked_at(client):
    created, tokens = await create(client, 3, seed=1)
    game_id = created["game_id"]
    for headers in ({}, auth("garbage"), auth(tokens[1])):
        response = await client.post(f"/v1/games/{game_id}/moves", content=DEEP, headers={**JSON, **headers})
        problem(response, 400, "invalid_request")
    assert (await view(client, game_id))["version"] == created["game"]["version"]


async def test_ordinary_nesting_and_brackets_inside_strings_are_not_depth(client):
    # 40 brackets inside a name are text, not nesting: the name is refused for its length only.
    body = {"players": [{"name": "[" * 20}, {"name": "{" * 20}, {"name": "c"}]}
    assert (await client.post("/v1/games", json=body)).status_code == 201


# ---- 5. the live stream's resume point -----------------------------------------------------


@pytest.mark.parametrize("where", ["header", "query"])
async def test_a_stream_resumed_beyond_the_games_version_is_400_not_a_stream_that_never_ends(client, where):
    created, _ = await create(client, 3, seed=9)
    game_id = created["game_id"]
    beyond = created["game"]["version"] + 1000
    headers, params = ({"Last-Event-ID": str(beyond)}, {}) if where == "header" else ({}, {"after": beyond})

    async def opened() -> int:
        async with client.stream("GET", f"/v1/games/{game_id}/events/stream", headers=headers, params=params) as stream:
            await stream.aread()
            return stream.status_code

    assert await asyncio.wait_for(opened(), 10) == 400
    response = await bounded(client.get(f"/v1/games/{game_id}/events/stream", headers=headers, params=params))
    assert "beyond the game's version" in problem(response, 400, "invalid_request")["detail"]


async def _stream_ids(client, game_id: str, **kwargs) -> list[int]:
    async def read() -> str:
        async with client.stream("GET", f"/v1/games/{game_id}/events/stream", **kwargs) as stream:
            assert stream.status_code == 200
            return "".join([chunk async for chunk in stream.aiter_text()])

    text = await asyncio.wait_for(read(), 10)
    return [int(line[4:]) for line in text.splitlines() if line.startswith("id: ")]


async def test_after_on_the_stream_is_honoured_as_on_the_event_log(client):
    game_id, _, version = await finished_game(client)
    after = version - 4
    assert await _stream_ids(client, game_id, params={"after": after}) == list(range(after + 1, version + 1))
    log = (await client.get(f"/v1/games/{game_id}/events", params={"after": after})).json()
    assert [event["version"] for event in log["events"]] == list(range(after + 1, version + 1))
    # A reconnecting EventSource sends Last-Event-ID with the URL it first opened: the header wins.
    headers = {"Last-Event-ID": str(version - 1)}
    assert await _stream_ids(client, game_id, params={"after": 2}, headers=headers) == [version]
    assert await _stream_ids(client, game_id, params={"after": version}) == []


async def test_after_on_the_stream_is_bounded_as_on_the_event_log(client):
    created, _ = await create(client, 3)
    for bad in ("-1", "x", str(2**60)):
        path = f"/v1/games/{created['game_id']}/events/stream"
        problem(await bounded(client.get(path, params={"after": bad})), 400, "invalid_request")


# ---- 6. replay names the event, not the line -----------------------------------------------


async def test_a_bad_event_after_blank_lines_is_named_by_its_version_not_its_line(client):
    game_id, _, _ = await finished_game(client)
    lines = (await client.get(f"/v1/games/{game_id}/export")).content.splitlines()
    body = b"\n\n" + lines[0] + b"\n\n\n" + lines[1] + b"\n" + b"not an event\n" + b"\n".join(lines[2:])
    problem_body = problem(await client.post("/v1/replays", content=body, headers=NDJSON), 422, "invalid_log")
    assert problem_body["at_version"] == 3
    assert "line 7" in problem_body["detail"]
    # Blank lines alone change nothing: the whole log still replays.
    spaced = b"\n\n".join(lines) + b"\n\n"
    assert (await client.post("/v1/replays", content=spaced, headers=NDJSON)).status_code == 200


# ---- 7. one token rule on every read -------------------------------------------------------


@pytest.mark.parametrize("path", ["", "?version=2", "/scores", "/events", "/export", "/events/stream"])
async def test_a_garbage_or_foreign_token_is_401_on_every_read(client, path):
    game_id, _, _ = await finished_game(client)
    _, foreign = await create(client, 3)
    for headers in (auth("garbage"), auth(foreign[0]), {"Authorization": "Basic abc"}):
        problem(await bounded(client.get(f"/v1/games/{game_id}{path}", headers=headers)), 401, "unauthorized")


@pytest.mark.parametrize("path", ["", "?version=2", "/scores", "/events", "/export", "/events/stream"])
async def test_a_valid_token_is_taken_on_every_read(client, path):
    game_id, tokens, _ = await finished_game(client)
    assert (await client.get(f"/v1/games/{game_id}{path}", headers=auth(tokens[0]))).status_code == 200


async def test_time_travel_with_a_token_can_show_your_hand_as_it_was_then(client):
    created, tokens = await create(client, 3, seed=21)
    game_id = created["game_id"]
    first = created["game"]["version"]
    mover = created["game"]["turn"]
    before = await view(client, game_id, tokens[mover])
    response, _, move = await play_first(client, game_id, tokens)
    assert response.status_code == 201
    path = f"/v1/games/{game_id}?version={first}"
    then = (await client.get(f"{path}&you=true", headers=auth(tokens[mover]))).json()
    assert then["version"] == first
    assert then["you"] == before["you"]
    assert move["card"] in then["you"]["hand"]
    assert (await view(client, game_id, tokens[mover]))["you"]["hand"] != then["you"]["hand"]
    # The contract's time travel is the public view, token or not; `you` is asked for.
    assert "you" not in (await client.get(path, headers=auth(tokens[mover]))).json()
    problem(await client.get(f"{path}&you=true"), 401, "unauthorized")


# ---- 10. a body route takes the media type it documents ------------------------------------


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "application/xml"])
async def test_a_body_that_is_not_json_is_415_and_creates_or_plays_nothing(client, content_type):
    headers = {"content-type": content_type}
    body = msgspec.json.encode(THREE)
    problem(await client.post("/v1/games", content=body, headers=headers), 415, "unsupported_media_type")
    assert (await client.get("/v1/games")).json()["games"] == []
    created, tokens = await create(client, 3, seed=2)
    game_id = created["game_id"]
    seat = created["game"]["turn"]
    move = (await view(client, game_id, tokens[seat]))["you"]["legal_moves"][0]
    response = await client.post(
        f"/v1/games/{game_id}/moves", content=msgspec.json.encode(move), headers={**headers, **auth(tokens[seat])}
    )
    problem(response, 415, "unsupported_media_type")
    assert (await view(client, game_id))["version"] == created["game"]["version"]
    lines = b'{"version": 1, "type": "game_created", "data": {}}\n'
    problem(await client.post("/v1/replays", content=lines, headers=headers), 415, "unsupported_media_type")


async def test_json_with_parameters_and_both_replay_media_types_are_taken(client):
    headers = {"content-type": "Application/JSON; charset=utf-8"}
    assert (await client.post("/v1/games", content=msgspec.json.encode(THREE), headers=headers)).status_code == 201
    game_id, _, _ = await finished_game(client)
    exported = (await client.get(f"/v1/games/{game_id}/export")).content
    for kind in ("application/x-ndjson", "application/ndjson"):
        assert (await client.post("/v1/replays", content=exported, headers={"content-type": kind})).status_code == 200
    events = [msgspec.json.decode(line) for line in exported.splitlines()]
    assert (await client.post("/v1/replays", json={"events": events})).status_code == 200


# ---- HEAD and 405 --------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["", "/scores", "/events", "/export", "/events/stream"])
async def test_every_get_route_answers_head_with_its_head_and_no_body(client, path):
    game_id, _, _ = await finished_game(client)
    got = await client.get(f"/v1/games/{game_id}{path}")
    head = await asyncio.wait_for(client.head(f"/v1/games/{game_id}{path}"), 10)
    assert head.status_code == got.status_code == 200
    assert head.headers["content-type"] == got.headers["content-type"]
    assert head.content == b""
    for other in ("/v1/games", "/health"):
        assert (await client.head(other)).status_code == 200
    assert (await client.head("/v1/games/nosuchgame")).status_code == 404


async def test_an_active_games_stream_answers_head_at_once(client):
    created, _ = await create(client, 3)
    head = await asyncio.wait_for(client.head(f"/v1/games/{created['game_id']}/events/stream"), 10)
    assert head.status_code == 200
    assert head.headers["content-type"].startswith("text/event-stream")


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("DELETE", "/v1/games", {"GET", "HEAD", "POST"}),
        ("PUT", "/v1/games/abc", {"GET", "HEAD"}),
        ("TRACE", "/v1/games/abc/moves", {"POST"}),
        ("GET", "/v1/replays", {"POST"}),
        ("PATCH", "/health", {"GET", "HEAD"}),
    ],
)
async def test_a_wrong_method_is_405_naming_the_allowed_ones(client, method, path, allowed):
    response = await client.request(method, path)
    problem(response, 405, "method_not_allowed")
    assert {m.strip() for m in response.headers["allow"].split(",")} - {"OPTIONS"} == allowed
