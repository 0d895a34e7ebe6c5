"""`poison serve` as a real process: two workers, the embedded store, a socket."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import msgspec
import pytest

from core import reference
from events.server import free_port


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("POISON_")}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "service.cli",
            "serve",
            "--port",
            str(port),
            "--workers",
            "2",
            "--data-dir",
            str(tmp_path / "data"),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"poison serve did not start: {process.communicate()[1][-2000:]}")
        time.sleep(0.1)
    yield base, process
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
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
    env = {k: v for k, v in os.environ.items() if not k.startswith("POISON_")}
    process = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--workers", "2", "--redis-url", redis_url],
        env=env,
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
        assert not (tmp_path / "poison-data").exists(), "no worker started a store of its own"
    finally:
        process.terminate()
        process.wait(15)
        process.stderr.close()
