"""SIGTERM while a move is under way: `poison serve` stops taking connections, lets the
move finish (its append acknowledged, its answer sent), then exits 0. The move is made to
wait in the store (CLIENT PAUSE of writes on the real Valkey, until CLIENT UNPAUSE) so that
it is surely in flight when the signal arrives: the store shows its append blocked. The
same process writes its logs in JSON: the move's request line is read back from them."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path

import httpx
import pytest
import redis
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.service.api import auth
from tests.service.test_serve import start
from tests.waiting import blocked, until

pytestmark = pytest.mark.subprocess

PAUSE_MS = 60_000  # the longest the store holds every write; the test lets them go on itself
REQUEST_ID = "move-in-flight-1"


def refuses_connections(base: str) -> bool:
    try:
        httpx.get(f"{base}/health/live", timeout=2)  # answered: still taking connections
    except httpx.ConnectError:
        return True
    except httpx.TransportError:  # taken while the listener closed, then dropped: ask again
        return False
    return False


def test_sigterm_finishes_the_move_under_way_answers_it_and_exits_0(tmp_path: Path, redis_url: str, namespace: str):
    logs = {"POISON_LOG_FORMAT": "json", "POISON_ACCESS_LOG": "true"}
    process, base, out, err = start(tmp_path, POISON_REDIS_URL=redis_url, POISON_NAMESPACE=namespace, **logs)
    try:
        with httpx.Client(base_url=base, timeout=10) as http:
            created = http.post("/v1/games", json={"players": [{"name": n} for n in "abc"]}).json()
            game_id = created["game_id"]
            tokens = {player["seat"]: player["token"] for player in created["players"]}
            seat = http.get(f"/v1/games/{game_id}").json()["turn"]
            move = http.get(f"/v1/games/{game_id}", headers=auth(tokens[seat])).json()["you"]["legal_moves"][0]

        answered: dict[str, object] = {}

        def play() -> None:
            with httpx.Client(base_url=base, timeout=15) as mover:
                headers = {**auth(tokens[seat]), "X-Request-Id": REQUEST_ID}
                answered["response"] = mover.post(f"/v1/games/{game_id}/moves", json=move, headers=headers)
                answered["at"] = time.monotonic()

        store = redis.Redis.from_url(redis_url)
        store.client_pause(PAUSE_MS, all=False)  # writes (the append's script) wait; reads go on
        try:
            mover = threading.Thread(target=play)
            mover.start()
            # The move has been read and judged, and its append waits in the store.
            until(lambda: blocked(redis_url, "evalsha") or blocked(redis_url, "eval"), what="the append waiting")
            waiting_at = time.monotonic()
            assert "response" not in answered
            process.send_signal(signal.SIGTERM)
            signalled_at = time.monotonic()
            # Stopping: no new connection is taken (asking before that is answered, harmlessly).
            until(lambda: refuses_connections(base), what="serve refusing new connections")
            assert "response" not in answered  # the move still waits
            unpaused_at = time.monotonic()
        finally:
            store.client_unpause()  # the append goes on
        mover.join(15)
        status = process.wait(15)
        store.close()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

    response = answered["response"]
    assert isinstance(response, httpx.Response)
    assert response.status_code == 201, response.text
    assert response.headers["x-request-id"] == REQUEST_ID
    assert signalled_at < answered["at"]  # type: ignore[operator]  # answered after the signal,
    assert unpaused_at < answered["at"]  # type: ignore[operator]  # once the store let it
    assert status == 0, err.read_text()[-2000:]
    assert json.loads(err.read_text().splitlines()[-1])["message"] == "stopped"  # JSON too
    # Its request line, in JSON (POISON_LOG_FORMAT=json), once, with what an operator looks for.
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    (line,) = [line for line in lines if line.get("request_id") == REQUEST_ID]
    assert line["method"] == "POST"
    assert line["route"] == "/v1/games/{game_id}/moves"
    assert line["path"] == f"/v1/games/{game_id}/moves"
    assert line["status"] == 201
    # It waited for the store: it was under way when its append was seen waiting, and
    # answered after the store let the append go on.
    assert line["duration_ms"] >= (unpaused_at - waiting_at) * 1000 - 1
    assert line["worker"] == int(response.headers["x-poison-worker"])
    assert line["logger"] == "poison.access"
    assert tokens[seat] not in out.read_text()
    # The game's log, as a fresh service reads it: the move is there, exactly once.
    with TestClient(create_app(Settings(redis_url=redis_url, namespace=namespace))) as client:
        log = client.get(f"/v1/games/{game_id}/events").json()["events"]
    played = response.json()["events"]
    assert [event["type"] for event in played] == ["card_played"]
    assert [event for event in log if event["type"] == "card_played"] == played  # once, as answered
    assert [event["version"] for event in log] == list(range(1, len(log) + 1))
