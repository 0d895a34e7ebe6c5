"""X-Request-Id: the client's when it is a sane token, else a fresh one; on every answer
(the hot move route, problems, the guard's own refusals: tests/service/test_guards.py); in the JSON log lines written
while the request is served. And POISON_LOG_FORMAT, a setting as the others, refused in words when it is neither
text nor json. (The JSON request line of a real `poison serve` is read back in
tests/service/test_shutdown.py.)"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys

import pytest

from service import request_ids
from service.logs import JsonFormatter
from service.settings import unknown_variables
from tests.service.api import auth, create, view

pytestmark = pytest.mark.anyio
FRESH = re.compile(r"[0-9a-f]{16}")


async def test_an_answer_to_a_request_without_an_id_carries_a_fresh_one_each_time(client):
    ids = [(await client.get("/health/live")).headers["x-request-id"] for _ in range(3)]
    assert all(FRESH.fullmatch(found) for found in ids), ids
    assert len(set(ids)) == 3


async def test_a_sane_id_comes_back_on_a_move_and_on_a_problem(client):
    created, tokens = await create(client, 3)
    game_id = created["game_id"]
    seat = (await view(client, game_id))["turn"]
    move = (await view(client, game_id, tokens[seat]))["you"]["legal_moves"][0]
    played = await client.post(
        f"/v1/games/{game_id}/moves", json=move, headers={**auth(tokens[seat]), "X-Request-Id": "trace:4bf9-2.A_1"}
    )
    assert played.status_code == 201, played.text
    assert played.headers["x-request-id"] == "trace:4bf9-2.A_1"
    again = await client.post(
        f"/v1/games/{game_id}/moves", json=move, headers={**auth(tokens[seat]), "X-Request-Id": "retry-7"}
    )
    assert again.status_code in (409, 422)  # a problem, answered by the application's handlers
    assert again.headers["x-request-id"] == "retry-7"
    options = await client.options("/v1/games", headers={"X-Request-Id": "opt-1"})
    assert options.status_code == 204
    assert options.headers["x-request-id"] == "opt-1"


@pytest.mark.parametrize(
    "sent",
    ["x" * (request_ids.MAX_LENGTH + 1), "two words", 'a"b', "a\\b", "{}", "<script>", "%0d%0a"],
)
async def test_an_id_that_is_not_a_sane_token_is_replaced_by_a_fresh_one(client, sent):
    answered = await client.get("/v1/games/nosuchgame", headers={"X-Request-Id": sent})
    assert answered.status_code == 404
    assert FRESH.fullmatch(answered.headers["x-request-id"]), answered.headers["x-request-id"]


async def test_the_longest_sane_id_is_kept(client):
    longest = "a" * request_ids.MAX_LENGTH
    assert (await client.get("/health/live", headers={"X-Request-Id": longest})).headers["x-request-id"] == longest


def test_a_json_log_line_written_while_a_request_is_served_names_its_id():
    formatter = JsonFormatter()
    record = logging.LogRecord(
        "poison.service", logging.ERROR, __file__, 1, "unexpected error on %s", ("GET /x",), None
    )
    assert "request_id" not in json.loads(formatter.format(record))
    token = request_ids.current.set(b"req-42")
    try:
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            record.exc_info = sys.exc_info()
        line = json.loads(formatter.format(record))
    finally:
        request_ids.current.reset(token)
    assert line["request_id"] == "req-42"
    assert line["level"] == "error"
    assert line["message"] == "unexpected error on GET /x"
    assert line["worker"] == os.getpid()
    assert "RuntimeError: boom" in line["error"]


@pytest.mark.subprocess
def test_poison_serve_refuses_a_log_format_it_does_not_know_and_exits_2():
    env = {k: v for k, v in os.environ.items() if not k.startswith("POISON_")} | {"POISON_LOG_FORMAT": "xml"}
    result = subprocess.run(
        [sys.executable, "-m", "service.cli", "serve"], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert "log_format (POISON_LOG_FORMAT): 'xml' is not one of 'json', 'text'" in result.stderr


def test_the_log_format_is_a_setting_like_any_other_so_its_variable_is_never_called_unknown():
    assert unknown_variables({"POISON_LOG_FORMAT": "json", "POISON_LOG_FROMAT": "json"}) == ["POISON_LOG_FROMAT"]


@pytest.mark.subprocess
def test_poison_serve_asked_for_json_says_a_refused_setting_as_one_json_line():
    env = {k: v for k, v in os.environ.items() if not k.startswith("POISON_")}
    env |= {"POISON_LOG_FORMAT": "JSON", "POISON_PORT": "seventy"}
    result = subprocess.run(
        [sys.executable, "-m", "service.cli", "serve"], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    line = json.loads(result.stderr.strip().splitlines()[-1])
    assert line["logger"] == "poison.serve"
    assert "POISON_PORT" in line["message"]
