"""`poison serve` as a real process: two workers, the embedded store, a socket."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from core.poison import reference
from events.server import free_port
from service.commands.serve import shown
from service.problems import TITLES, TYPE_BASE
from service.serverkey import KEY_FILE
from service.settings import SETTINGS
from tests.service.served import command, environment, stop, wait_until_up
from tests.waiting import until

pytestmark = pytest.mark.subprocess


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    port = free_port()
    process = subprocess.Popen(
        command(port, workers=2, data_dir=tmp_path / "data"),
        env=environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    wait_until_up(process, f"{base}/health", lambda: process.communicate()[1])
    yield base, process
    stop(process, 15)
    process.stdout.close()
    process.stderr.close()


def test_a_whole_game_is_played_over_a_socket_against_two_workers(served):
    base, _ = served
    with httpx.Client(base_url=base, timeout=10) as http:
        created = http.post(
            "/v1/games", json={"players": [{"name": n} for n in ("ana", "bob", "cy", "di")], "seed": 4242, "rounds": 1}
        )
        assert created.status_code == 201
        game_id = created.json()["game_id"]
        tokens = {p["seat"]: p["token"] for p in created.json()["players"]}
        oracle = reference.Game(4, rounds=1, seed=4242)
        pids = set()
        while oracle.status != "finished":
            seat = oracle.turn
            card, cauldron = oracle.legal_moves()[-1]
            # A fresh connection each time, so the kernel spreads them over both workers.
            with httpx.Client(base_url=base, timeout=10) as fresh:
                response = fresh.post(
                    f"/v1/games/{game_id}/moves",
                    json={"card": card, "cauldron": cauldron},
                    headers={"Authorization": f"Bearer {tokens[seat]}"},
                )
            assert response.status_code == 201, response.text
            pids.add(response.headers.get("x-poison-worker"))
            oracle.play(seat, card, cauldron)
        scores = http.get(f"/v1/games/{game_id}/scores").json()
        assert tuple(scores["totals"]) == oracle.totals
        assert tuple(scores["winners"]) == oracle.winners
        assert http.get(f"/v1/games/{game_id}/export").status_code == 200
    assert len(pids - {None}) == 2, "both workers served moves"


def test_the_live_stream_delivers_a_move_as_it_happens(served):
    base, _ = served
    created = httpx.post(f"{base}/v1/games", json={"players": [{"name": n} for n in "abc"], "seed": 1}).json()
    game_id = created["game_id"]
    token = created["players"][1]["token"]
    lines: list[str] = []
    ready = threading.Event()

    data: list[str] = []

    def follow() -> None:
        headers = {"Last-Event-ID": "1", "Authorization": f"Bearer {token}"}
        with httpx.stream("GET", f"{base}/v1/games/{game_id}/events/stream", headers=headers, timeout=10) as stream:
            for line in stream.iter_lines():
                if line.startswith("data: "):
                    data.append(line)
                if line.startswith("id: "):
                    lines.append(line)
                    ready.set()
                    if len(lines) == 2:
                        return

    follower = threading.Thread(target=follow)
    follower.start()
    assert ready.wait(10)  # the deal (event 2) came at once
    game = httpx.get(f"{base}/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"}).json()
    move = game["you"]["legal_moves"][0]
    assert (
        httpx.post(
            f"{base}/v1/games/{game_id}/moves", json=move, headers={"Authorization": f"Bearer {token}"}
        ).status_code
        == 201
    )
    follower.join(10)
    assert lines == ["id: 2", "id: 3"]
    dealt = msgspec.json.decode(data[0][6:])["data"]
    assert dealt["hands"][0] is None
    assert dealt["hands"][2] is None
    assert len(dealt["hands"][1]) == 13  # the stream shows the caller only its own hand
    assert dealt["set_aside"] is None


def test_serve_stops_cleanly_and_its_store_with_it(served, tmp_path):
    base, process = served
    httpx.post(f"{base}/v1/games", json={"players": [{"name": n} for n in "abc"]})
    process.send_signal(signal.SIGTERM)
    assert process.wait(15) == 0
    assert (tmp_path / "data" / "appendonlydir").is_dir()
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"{base}/health", timeout=1)


def test_serve_refuses_bad_settings():
    result = subprocess.run(
        [sys.executable, "-m", "service.cli", "serve", "--workers", "0"], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert "--workers" in result.stderr
    result = subprocess.run(
        [sys.executable, "-m", "service.cli", "serve", "--port", "x"], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert "invalid int value" in result.stderr


def test_serve_hands_a_redis_url_flag_to_every_worker(redis_url, tmp_path):
    port = free_port()
    process = subprocess.Popen(
        command(port, "--redis-url", redis_url, workers=2),
        env=environment(),
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        answers = set()
        while time.monotonic() < deadline and len(answers) < 2:
            try:
                with httpx.Client(timeout=2) as fresh:
                    response = fresh.get(f"http://127.0.0.1:{port}/health")
                if response.status_code == 200:
                    answers.add(response.headers["x-poison-worker"])
            except httpx.HTTPError:
                time.sleep(0.1)
        assert len(answers) == 2, "both workers answer, on the given store"
        # No worker started a store of its own: the data directory holds the server key alone.
        assert sorted(os.listdir(tmp_path / "poison-data")) == [KEY_FILE]
    finally:
        process.terminate()
        process.wait(15)
        process.stderr.close()


# ---- what it says: where it listens, each request, when it stops (issue 12) ------------------


def start(tmp_path: Path, *flags: str, **settings: str) -> tuple[subprocess.Popen, str, Path, Path]:
    """A `poison serve` whose stdout and stderr go to files (read once it has stopped)."""
    port = free_port()
    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(
            command(port, *flags, data_dir=tmp_path / "data"), env=environment(**settings), stdout=stdout, stderr=stderr
        )
    base = f"http://127.0.0.1:{port}"
    wait_until_up(process, f"{base}/health/live", err.read_text)
    return process, base, out, err


def test_serve_says_where_it_listens_logs_each_request_and_says_when_it_stops(tmp_path):
    process, base, out, err = start(tmp_path, POISON_ACCESS_LOG="true", POISON_PROT="8001")
    with httpx.Client(base_url=base, timeout=10) as http:
        assert http.get("/v1/games?limit=3").status_code == 200
        assert http.get("/v1/games/no-such-game").status_code == 404
        said = err.read_text()
        listening = next(line for line in said.splitlines() if "listening on" in line)
        docs = listening.rsplit("docs at ", 1)[1]
        assert http.get(docs).status_code == 200
        table = listening.split("the table at ", 1)[1].split(",", 1)[0]
        assert "<html" in http.get(table).text
    assert stop(process) == 0
    lines = err.read_text().splitlines()
    assert f"poison serve: listening on {base} (1 worker); the table at {base}/, docs at {base}/schema/swagger" in lines
    assert lines[-1] == "poison serve: stopped"
    assert any(line.startswith("poison serve: embedded store at redis://:***@127.0.0.1:") for line in lines)
    warning = (
        "poison serve: warning: POISON_PROT is no setting of poison serve and is ignored (see poison serve --help)"
    )
    assert warning in lines
    access = out.read_text().splitlines()
    assert any('"GET /v1/games?limit=3 HTTP/1.1" 200' in line for line in access), access
    assert any('"GET /v1/games/no-such-game HTTP/1.1" 404' in line for line in access), access
    assert "Traceback" not in err.read_text()


def test_serve_logs_no_request_unless_asked(tmp_path):
    process, base, out, err = start(tmp_path, "--log-level", "INFO")
    assert httpx.get(f"{base}/v1/games", timeout=10).status_code == 200
    assert stop(process) == 0
    assert out.read_text() == ""
    said = err.read_text()
    assert "Started worker-1" in said  # the server's own lines at info
    assert "warning:" not in said


def test_serve_on_a_port_in_use_says_which_port_and_how_to_choose_another_and_stops_its_store(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            command(port, data_dir=tmp_path / "d"),
            env=environment(),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 3  # the status of a service that could not start (STARTUP_FAILURE)
    said = (
        f"poison serve: cannot listen on 127.0.0.1 port {port}: it is in use (by another poison serve?); "
        "choose another port with --port or POISON_PORT"
    )
    assert said in result.stderr.splitlines()
    assert "Errno" not in result.stderr
    assert "listening on" not in result.stderr
    assert result.stderr.splitlines()[-1] == "poison serve: stopped"


def test_serve_help_lists_every_setting_with_its_default_and_bounds():
    result = subprocess.run(
        [sys.executable, "-m", "service.cli", "serve", "--help"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    for setting in SETTINGS:
        assert setting.variable in result.stdout
        assert setting.description[:40] in " ".join(result.stdout.split())
        if setting.flag:
            assert setting.flag in result.stdout
    assert "POISON_LOG_LEVEL (--log-level)  default warning; one of 'critical'" in result.stdout
    assert "POISON_PORT (--port)  default 8000; a whole number from 1 to 65,535" in result.stdout


def test_docs_serve_md_documents_every_setting_with_its_default():
    text = (Path(__file__).resolve().parents[2] / "docs" / "serve.md").read_text()
    rows = {line.split("|")[1].strip(" `"): line for line in text.splitlines() if line.startswith("| `POISON_")}
    assert set(rows) == {setting.variable for setting in SETTINGS}
    for setting in SETTINGS:
        default = "unset" if setting.default is None else shown(setting.default)
        assert f"| {default} |" in rows[setting.variable].replace("`", ""), (setting.variable, default)


def test_every_refusal_the_application_sees_is_a_problem_like_any_other_and_the_servers_are_no_5xx(tmp_path):
    """429 and 408 answered by service/guards.py itself: rendered as the API's problems are
    (title from the one table, X-Poison-Worker, a final newline). Malformed HTTP never
    reaches the application: the server refuses it with a bare 400, never a 5xx."""
    process, base, _, _ = start(tmp_path, POISON_BODY_TIMEOUT="3", POISON_CLIENT_CONNECTIONS="2")
    port = int(base.rsplit(":", 1)[1])
    holders: list[socket.socket] = []

    def refused() -> httpx.Response | None:
        # Until the worker has read both holders' heads, a request still fits under the cap
        # (and, answered, leaves): asking again is harmless.
        with httpx.Client(timeout=5) as http:
            answer = http.get(f"{base}/health")
        return answer if answer.status_code == 429 else None

    try:
        holders = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(2)]
        for sock in holders:  # two requests under way, their bodies never whole
            sock.sendall(b"POST /v1/replays HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{")
        beyond = until(refused, deadline=3, what="a request beyond the address's two under way refused")
        problem_of(beyond.status_code, beyond.headers, beyond.content, 429, "too_many_client_connections")
        for sock in holders:
            status, headers, body = split(receive_all(sock))
            problem_of(status, headers, body, 408, "request_timeout")
        garbage = socket.create_connection(("127.0.0.1", port), timeout=5)
        holders.append(garbage)
        garbage.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n")
        status, headers, body = split(receive_all(garbage))
        assert (status, headers["connection"], body) == (400, "close", b"")
    finally:
        for sock in holders:
            sock.close()
        stop(process)


def receive_all(sock: socket.socket) -> bytes:
    sock.settimeout(10)
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def split(response: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = response.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v for k, v in (line.split(": ", 1) for line in lines[1:] if ": " in line)}
    return int(lines[0].split()[1]), headers, body


def problem_of(status: int, headers: Any, body: bytes, expected: int, code: str) -> None:
    assert status == expected, body
    assert headers["content-type"] == "application/problem+json"
    assert headers["x-poison-worker"].isdigit()
    assert int(headers["content-length"]) == len(body)
    assert body.endswith(b"}\n")
    problem = msgspec.json.decode(body)
    assert list(problem)[:5] == ["type", "title", "status", "detail", "code"]
    assert (problem["status"], problem["code"], problem["title"]) == (expected, code, TITLES[code])
    assert problem["type"] == TYPE_BASE + code


def test_a_live_stream_does_not_keep_serve_from_stopping(tmp_path):
    """The server lets every request finish before it stops, and a live stream never does:
    serve waited for ever. The stream now ends whole (an EventSource reconnects) at once."""
    process, base, _, err = start(tmp_path)
    created = httpx.post(f"{base}/v1/games", json={"players": [{"name": n} for n in "abc"]}, timeout=10).json()
    ended = threading.Event()
    lines: list[str] = []

    def follow() -> None:
        with httpx.stream("GET", f"{base}/v1/games/{created['game_id']}/events/stream", timeout=30) as stream:
            lines.extend(stream.iter_lines())  # raises if the body were cut short
        ended.set()

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    deadline = time.monotonic() + 10
    while not any(line.startswith("id: 2") for line in lines) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert any(line.startswith("id: 2") for line in lines), "the stream is under way"
    assert stop(process) == 0  # within stop()'s 20 s: a serve waiting on the stream never stops
    assert ended.wait(30), "the stream ended as a whole answer does"
    assert err.read_text().splitlines()[-1] == "poison serve: stopped"
