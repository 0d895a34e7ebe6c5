"""Issue 27's small defects, through the real app on the real store: the table's files
under /static answer every path they do not hold 404 (never 500); a client that leaves in
the middle of its body is counted as having left (never as a 500); no problem repeats more
than 64 characters of what was sent; and a whole number written as `3.0` is taken where the
OpenAPI document says `integer`, in a body and in a replayed log's events alike. Each test
failed on the service as it was before its fix.

Some requests are made straight through the application's ASGI callable, with a scope
written by hand: an HTTP client would tidy the path (`/js/api.js/..` becomes `/js`), and
none lets a test leave in the middle of its body.
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar.testing import AsyncTestClient

from core import RuleError
from core.errors import QUOTED_CHARACTERS, clipped, quoted
from core.rulesets import RULESETS
from service.app import create_app
from service.controllers.table import FILES
from service.logs import ACCESS_LOGGER, FIELDS
from service.observed import CLIENT_LEFT
from service.settings import Settings
from tests.service.api import auth, create, http_scope, problem

pytestmark = pytest.mark.anyio

THREE = [{"name": "a"}, {"name": "b"}, {"name": "c"}]
BIG = "x" * 100_000  # what no problem may hand back whole
LONG = "q" * 3_000  # as long as a query string or a header may be


async def asgi(client, method: str, path: str, body: list[dict[str, Any]] | None = None, **headers: str):
    """The messages the app sends for one request whose path is exactly `path` (bytes as
    sent, before any percent-decoding) and whose `receive` hands out `body`'s messages, then
    a disconnect."""
    messages = list(body or [{"type": "http.request", "body": b"", "more_body": False}])
    raw = path.encode("latin-1")
    decoded = raw.decode("latin-1").replace("%00", "\x00")
    named = {name.replace("_", "-"): value for name, value in headers.items()}
    # The path whole, as sent: a '?' in it is the path's, not a query's.
    scope = {**http_scope(method, "/", named, raw_path=raw), "path": decoded}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await client.app(scope, receive, send)
    return sent


def answered(sent: list[dict[str, Any]]) -> tuple[int, dict[str, Any]]:
    start = next(message for message in sent if message["type"] == "http.response.start")
    body = b"".join(message.get("body", b"") for message in sent if message["type"] == "http.response.body")
    return start["status"], msgspec.json.decode(body)


# ---- the table's files ----------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/static/%00", "/static/" + "a" * 300, "/static/js/api.js/.."])
async def test_a_malformed_or_over_long_static_path_is_a_404_problem_not_a_500(client, path):
    status, body = answered(await asgi(client, "GET", path))
    assert (status, body["code"]) == (404, "not_found"), body
    assert str(FILES["index.html"].parent) not in body["detail"]  # no path of the server's files


async def test_every_file_of_the_table_is_still_served_with_its_media_type_and_no_cache(client):
    kinds = {
        "js": "text/javascript",
        "css": "text/css",
        "svg": "image/svg+xml",
        "html": "text/html",
        "json": "application/json",
        "md": "text/markdown; charset=utf-8",
    }
    for name, file in FILES.items():
        response = await client.get(f"/static/{name}")
        assert response.status_code == 200, name
        assert response.content == file.read_bytes()
        assert response.headers["content-type"].startswith(kinds[name.rsplit(".", 1)[1]])
        assert response.headers["cache-control"] == "no-cache"
        assert response.headers["content-disposition"].startswith("inline")


_SEGMENT = st.one_of(
    st.sampled_from(["..", ".", "", "js", "api.js", "index.html", "%00", "%2e%2e", "%2f", "\\", "~", "a" * 300]),
    st.text(st.characters(min_codepoint=32, max_codepoint=126, exclude_characters="?#"), max_size=40),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(segments=st.lists(_SEGMENT, min_size=1, max_size=6))
async def test_no_path_under_static_is_ever_answered_5xx(client, segments):
    path = "/static/" + "/".join(segments)
    sent = await asgi(client, "GET", path)
    status = next(message["status"] for message in sent if message["type"] == "http.response.start")
    assert status in (200, 404), (path, sent)
    if status == 404:
        assert answered(sent)[1]["code"] == "not_found"


# ---- a client that leaves mid-body ----------------------------------------------------------

HALF = [
    {"type": "http.request", "body": b'{"players": [{"name": "a"}, ', "more_body": True},
    {"type": "http.disconnect"},
]


def counted(text: str, route: str, status: int) -> float:
    wanted = f'poison_http_request_duration_seconds_count{{method="POST",route="{route}",status="{status}"}}'
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith(wanted + " "))


def internal_errors(text: str) -> float:
    wanted = 'poison_problems_total{code="internal_error"} '
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith(wanted))


@pytest.fixture
def settings_access_log(redis_url: str, namespace: str) -> Settings:
    return Settings(redis_url=redis_url, namespace=namespace, access_log=True, log_format="json")


@pytest.mark.parametrize(
    ("path", "route", "content_type"),
    [
        ("/v1/games", "/v1/games", "application/json"),
        ("/v1/replays", "/v1/replays", "application/x-ndjson"),
        ("/v1/games/nosuchgame/moves", "/v1/games/{game_id}/moves", "application/json"),  # a hot route
    ],
)
async def test_an_upload_its_client_abandons_is_counted_and_logged_as_a_disconnect_not_a_500(
    settings_access_log, path, route, content_type
):
    records: list[logging.LogRecord] = []
    keep = logging.Handler()
    keep.emit = records.append  # type: ignore[method-assign]
    async with AsyncTestClient(create_app(settings_access_log)) as client:
        before = (await client.get("/metrics")).text
        logging.getLogger(ACCESS_LOGGER).addHandler(keep)
        try:
            await asgi(client, "POST", path, HALF, content_type=content_type, content_length="500")
        finally:
            logging.getLogger(ACCESS_LOGGER).removeHandler(keep)
        after = (await client.get("/metrics")).text
    assert counted(after, route, 500) == counted(before, route, 500)
    assert counted(after, route, CLIENT_LEFT) == counted(before, route, CLIENT_LEFT) + 1
    # The registry is the process's: another test of this worker may have counted one before.
    assert internal_errors(after) == internal_errors(before)
    lines = [record for record in records if getattr(record, FIELDS, {}).get("path") == path]
    assert [(getattr(line, FIELDS)["status"], getattr(line, FIELDS)["disconnected"]) for line in lines] == [
        (CLIENT_LEFT, True)
    ]


# ---- no problem repeats unbounded input -----------------------------------------------------


def _requests() -> list:
    def create_with(**fields: Any) -> dict[str, Any]:
        return {"json": {"players": THREE, **fields}}

    ndjson = {"content-type": "application/x-ndjson"}
    return [
        pytest.param("post", "/v1/games", create_with(**{BIG: 1}), id="unknown-field"),
        pytest.param("post", "/v1/games", create_with(rules={BIG: 1}), id="unknown-rule"),
        pytest.param("post", "/v1/games", create_with(rules={"cauldrons": BIG}), id="rule-value"),
        pytest.param("post", "/v1/games", create_with(ruleset=BIG), id="ruleset"),
        pytest.param("post", "/v1/games", {"json": {"players": [{"name": "a", "bot": BIG}, *THREE[1:]]}}, id="bot"),
        pytest.param(
            "post", "/v1/games", {"json": {"players": [{"name": "a", BIG: 1}, *THREE[1:]]}}, id="player-field"
        ),
        pytest.param("post", "/v1/games", {"json": {"players": THREE, "seed": BIG}}, id="seed"),
        pytest.param("post", "/v1/games", {"content": b"{}", "headers": {"content-type": LONG}}, id="media-type"),
        pytest.param("get", "/v1/games?status=" + LONG, {}, id="status-query"),
        pytest.param("get", "/v1/games?limit=" + LONG, {}, id="limit-query"),
        pytest.param("get", "/v1/games?cursor=" + "1" * 13 + ":" + LONG, {}, id="cursor-query"),
        pytest.param("get", "/v1/games/abc?version=" + LONG, {}, id="version-query"),
        pytest.param("get", "/static/" + "s" * 2_000, {}, id="static-path"),
        pytest.param("post", "/v1/replays", {"json": {"events": [], BIG: 1}}, id="replay-not-a-log"),
        pytest.param(
            "post",
            "/v1/replays",
            {"json": {"events": [{"version": 1, "type": "game_created", BIG: 1}]}},
            id="replay-field",
        ),
        pytest.param(
            "post",
            "/v1/replays",
            {"content": msgspec.json.encode({"version": 1, "type": BIG, "data": {}}) + b"\n", "headers": ndjson},
            id="replay-event-type",
        ),
        pytest.param(
            "post",
            "/v1/replays",
            {
                "content": msgspec.json.encode({"version": 1, "type": "game_created", "data": {BIG: 1}}),
                "headers": ndjson,
            },
            id="replay-data-field",
        ),
    ]


def repeats_too_much(text: str, sent: str) -> bool:
    return sent[: QUOTED_CHARACTERS + 1] in text


@pytest.mark.parametrize(("method", "path", "options"), _requests())
async def test_no_problem_repeats_more_than_64_characters_of_what_was_sent(client, method, path, options):
    response = await getattr(client, method)(path, **options)
    assert 400 <= response.status_code < 500, response.text[:300]
    body = response.json()
    assert body["code"] in ("invalid_request", "invalid_log", "unsupported_media_type", "not_found"), body
    for sent in (BIG, LONG, "s" * 2_000):
        assert not repeats_too_much(response.text, sent)
    assert len(body["detail"]) < 400, body["detail"][:500]


async def test_a_moves_unknown_field_and_bad_card_are_quoted_briefly_on_both_roads(client):
    created, tokens = await create(client, 3, seed=5)
    game_id = created["game_id"]
    for body in ({"card": BIG, "cauldron": 0}, {"card": "R1", "cauldron": 0, BIG: 1}):
        for query in ("", "?"):  # the hot route, and Litestar's
            response = await client.post(f"/v1/games/{game_id}/moves{query}", json=body, headers=auth(tokens[0]))
            refused = problem(response, 400, "invalid_request")
            assert not repeats_too_much(response.text, BIG), refused["detail"][:200]


def test_quoted_keeps_a_short_value_whole_and_clips_a_long_one_to_64_characters():
    assert quoted("Z9") == "'Z9'"
    assert quoted(3.5) == "3.5"
    assert quoted(None) == "None"
    assert quoted("y" * QUOTED_CHARACTERS) == repr("y" * QUOTED_CHARACTERS)
    long = quoted("y" * 1_000)
    assert long == repr("y" * (QUOTED_CHARACTERS - 1) + "…")
    assert len(clipped("y" * 1_000)) == QUOTED_CHARACTERS
    assert len(quoted(list(range(1_000)))) == QUOTED_CHARACTERS
    assert quoted(10**5_000) == "a number too long to show"


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
@pytest.mark.parametrize("side", ["engine", "reference"])
def test_the_rules_quote_at_most_64_characters_of_a_card_they_do_not_know(ruleset, side):
    rules = RULESETS[ruleset]
    engine = getattr(rules, side)
    players = rules.players[0] if isinstance(rules.players, tuple) else 3
    game = engine.Game(players, seed=1)
    move = game.legal_moves()[0]
    with pytest.raises(RuleError, match="is not a card code") as refused:
        game.play(game.turn, BIG, *move[1:])
    assert BIG[: QUOTED_CHARACTERS + 1] not in str(refused.value)
    assert "x" * (QUOTED_CHARACTERS - 1) + "…" in str(refused.value)


# ---- whole numbers written with a fraction --------------------------------------------------


async def test_a_whole_number_written_as_a_float_is_taken_where_the_document_says_integer(client):
    created = await client.post("/v1/games", json={"players": THREE, "seed": 7.0, "rounds": 2.0})
    assert created.status_code == 201, created.text
    game = created.json()
    assert game["game"]["rounds"] == 2
    tokens = {player["seat"]: player["token"] for player in game["players"]}
    for query in ("", "?"):  # the hot route, and Litestar's
        turn = (await client.get(f"/v1/games/{game['game_id']}")).json()["turn"]
        reading = (await client.get(f"/v1/games/{game['game_id']}", headers=auth(tokens[turn]))).json()
        move = reading["you"]["legal_moves"][0]
        body = {**move, "cauldron": float(move["cauldron"]), "expected_version": float(reading["version"])}
        played = await client.post(f"/v1/games/{game['game_id']}/moves{query}", json=body, headers=auth(tokens[turn]))
        assert played.status_code == 201, played.text
        assert played.json()["game"]["version"] == reading["version"] + 1


async def test_a_number_with_a_fraction_is_still_refused_where_a_whole_number_is_due(client):
    response = await client.post("/v1/games", json={"players": THREE, "seed": 7.5})
    refused = problem(response, 400, "invalid_request")
    assert refused["detail"].startswith("seed must be a whole number")
    assert refused["detail"].endswith("not 7.5")
    response = await client.post("/v1/games", json={"players": THREE, "seed": 7.0, "rounds": "2"})
    refused = problem(response, 400, "invalid_request")
    assert refused["detail"].startswith("rounds must be"), refused["detail"]


def _floated(value: Any) -> Any:
    """`value` with every integer (not a boolean) written as a float: `3` as `3.0`."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, list):
        return [_floated(item) for item in value]
    if isinstance(value, dict):
        return {key: _floated(item) for key, item in value.items()}
    return value


async def test_a_replayed_log_whose_whole_numbers_are_written_as_floats_is_taken_as_json_and_as_ndjson(client):
    # The document calls an event's version and its data's numbers `integer`, as it does a
    # move's fields: a log written by a client that writes every number as a float is the same log.
    players = [{"name": "a", "bot": "greedy"}, {"name": "b", "bot": "greedy"}, {"name": "c", "bot": "random"}]
    created = await client.post("/v1/games", json={"players": players, "rounds": 1, "seed": 9})
    game_id = created.json()["game_id"]
    exported = [
        msgspec.json.decode(line) for line in (await client.get(f"/v1/games/{game_id}/export")).content.splitlines()
    ]
    whole = await client.post("/v1/replays", json={"events": exported})
    assert whole.status_code == 200, whole.text
    floated = _floated(exported)
    assert isinstance(floated[0]["version"], float)
    assert isinstance(floated[0]["data"]["seed"], float)
    as_json = await client.post("/v1/replays", json={"events": floated})
    assert (as_json.status_code, as_json.content) == (200, whole.content), as_json.text[:300]
    ndjson = b"".join(msgspec.json.encode(event) + b"\n" for event in floated)
    as_ndjson = await client.post("/v1/replays", content=ndjson, headers={"content-type": "application/x-ndjson"})
    assert (as_ndjson.status_code, as_ndjson.content) == (200, whole.content), as_ndjson.text[:300]
    # A fraction is still no whole number, in the envelope or in the data.
    for broken, where in (
        ({**floated[0], "version": 1.5}, "version"),
        ({**floated[0], "data": {**floated[0]["data"], "seed": 9.5}}, "seed"),
    ):
        refused = problem(await client.post("/v1/replays", json={"events": [broken, *floated[1:]]}), 422, "invalid_log")
        assert where in refused["detail"], refused["detail"]
