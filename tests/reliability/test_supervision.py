"""The embedded store killed under a running `poison serve`: the service brings it back
on the same data and port by itself, with back-off while it cannot, says so on stderr,
reaps the dead process, and its health routes tell an orchestrator what is going on.

The store binary is a wrapper around the real one that refuses to start while a marker
file exists: that is how the test holds the store down for as long as it needs to look,
without racing the restart.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
import redis

from events.server import find_server_binary, free_port
from tests.service.served import children, command, environment, stop

pytestmark = pytest.mark.faults

FIRST_DELAY = 0.2  # POISON_STORE_RESTART_DELAY for the test (and the default)


@dataclass
class Serving:
    process: subprocess.Popen
    base: str
    lines: list[str] = field(default_factory=list)  # stderr, as it comes

    def wait_for_line(self, pattern: str, seconds: float, *, after: int = 0) -> re.Match:
        """The first stderr line from index `after` on that matches, within `seconds`."""
        deadline = time.monotonic() + seconds
        while True:
            for line in self.lines[after:]:
                found = re.search(pattern, line)
                if found:
                    return found
            if time.monotonic() > deadline:
                pytest.fail(
                    f"no stderr line matched {pattern!r} within {seconds} s; stderr was:\n" + "\n".join(self.lines)
                )
            time.sleep(0.02)

    def store_pid(self) -> int:
        for pid in children(self.process):
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes()
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except FileNotFoundError:
                continue
            # The program's name, not its path: a worker's Python may live under a *-server directory.
            if b"-server" in command.split(b"\0")[0].rsplit(b"/", 1)[-1] and state != "Z":
                return pid
        pytest.fail("poison serve has no live store process")

    def store_url(self) -> str:
        """The store's URL as the workers were given it (their environment: ours to read)."""
        for pid in children(self.process):
            try:
                environment = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            except FileNotFoundError:
                continue
            for variable in environment:
                if variable.startswith(b"POISON_REDIS_URL="):
                    return variable.split(b"=", 1)[1].decode()
        pytest.fail("no worker of poison serve was given POISON_REDIS_URL")


def wait_for_status(url: str, status: int, seconds: float) -> float:
    """Poll until `url` answers `status`; the time it took."""
    started = time.monotonic()
    last: object = None
    while time.monotonic() - started < seconds:
        try:
            last = httpx.get(url, timeout=2).status_code
            if last == status:
                return time.monotonic() - started
        except httpx.HTTPError as error:
            last = error
        time.sleep(0.02)
    pytest.fail(f"{url} did not answer {status} within {seconds} s (last: {last})")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Serving, Path]]:
    marker = tmp_path / "store-refuses-to-start"
    wrapper = tmp_path / "store-wrapper"
    wrapper.write_text(f'#!/bin/sh\n[ -e "{marker}" ] && exit 1\nexec "{find_server_binary()}" "$@"\n')
    wrapper.chmod(0o755)
    port = free_port()
    env = environment(
        POISON_REDIS_SERVER=str(wrapper), POISON_STORE_TIMEOUT="1.0", POISON_STORE_RESTART_DELAY=str(FIRST_DELAY)
    )
    process = subprocess.Popen(
        command(port, workers=2, data_dir=tmp_path / "data"),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    serving = Serving(process, f"http://127.0.0.1:{port}")

    def read() -> None:
        for line in process.stderr:
            serving.lines.append(line.rstrip("\n"))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        wait_for_status(f"{serving.base}/health", 200, 30)
        yield serving, marker
    finally:
        stop(process)
        reader.join(5)
        process.stderr.close()


def state_of(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return None


def play_one_move(base: str, game_id: str, tokens: dict[int, str]) -> None:
    with httpx.Client(base_url=base, timeout=5) as http:
        turn = http.get(f"/v1/games/{game_id}").json()["turn"]
        headers = {"Authorization": f"Bearer {tokens[turn]}"}
        move = http.get(f"/v1/games/{game_id}", headers=headers).json()["you"]["legal_moves"][0]
        response = http.post(f"/v1/games/{game_id}/moves", json=move, headers=headers)
        assert response.status_code == 201, response.text


def test_the_store_restarted_after_kill_9_takes_the_same_url_and_no_line_shows_its_password(served):
    serving, _ = served
    url = serving.store_url()
    password = urlsplit(url).password
    assert password, url
    first = serving.store_pid()
    assert password.encode() not in Path(f"/proc/{first}/cmdline").read_bytes()
    seen = len(serving.lines)
    os.kill(first, signal.SIGKILL)
    serving.wait_for_line(r"store restarted \(pid \d+, redis://:\*\*\*@127\.0\.0\.1:\d+/0, same data\)", 10, after=seen)
    second = serving.store_pid()
    assert password.encode() not in Path(f"/proc/{second}/cmdline").read_bytes()
    with redis.Redis.from_url(url) as client:  # the workers' URL reaches the new one
        assert client.ping()
    with redis.Redis(port=urlsplit(url).port) as stranger, pytest.raises(redis.AuthenticationError):
        stranger.ping()
    wait_for_status(f"{serving.base}/health", 200, 10)
    serving.wait_for_line(r"embedded store at redis://:\*\*\*@127\.0\.0\.1:\d+/0, data in ", 1)
    assert not [line for line in serving.lines if password in line]


def test_a_killed_store_is_restarted_on_the_same_data_with_back_off_and_health_tells(served):
    serving, marker = served
    base = serving.base
    created = httpx.post(f"{base}/v1/games", json={"players": [{"name": n} for n in "abc"], "seed": 3}, timeout=5)
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    tokens = {p["seat"]: p["token"] for p in created.json()["players"]}
    play_one_move(base, game_id, tokens)
    before = httpx.get(f"{base}/v1/games/{game_id}", timeout=5).json()

    # 1. kill -9: back on its own, on the same data, reaped, and said so.
    first = serving.store_pid()
    seen = len(serving.lines)
    killed_at = time.monotonic()
    os.kill(first, signal.SIGKILL)
    died = serving.wait_for_line(
        r"store \(pid (\d+)\) died with signal 9 \(SIGKILL\).*restarting it in ([\d.]+) s", 10, after=seen
    )
    assert int(died[1]) == first
    assert float(died[2]) == pytest.approx(FIRST_DELAY)
    # Back after its first delay (0.2 s, said above) and a start: a longer wait (the delays
    # grow to 30 s) would miss this deadline. No tighter bound: a busy machine starts it slowly.
    wait_for_status(f"{base}/health", 200, 10)
    back = time.monotonic() - killed_at
    serving.wait_for_line(r"store restarted \(pid \d+, ", 10, after=seen)
    assert state_of(first) is None, f"the killed store {first} was not reaped (state {state_of(first)})"
    assert serving.store_pid() != first
    assert httpx.get(f"{base}/v1/games/{game_id}", timeout=5).json() == before, "the same data"
    play_one_move(base, game_id, tokens)
    print(f"store back {back:.2f} s after kill -9")

    # 2. A store that cannot start: retried with growing delays, reported by /health.
    marker.touch()
    second = serving.store_pid()
    seen = len(serving.lines)
    os.kill(second, signal.SIGKILL)
    delays = [float(serving.wait_for_line(r"died with signal 9.*restarting it in ([\d.]+) s", 10, after=seen)[1])]
    for count in (1, 2):
        deadline = time.monotonic() + 10
        while True:
            failed = [line for line in serving.lines[seen:] if "did not restart" in line]
            if len(failed) >= count or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        assert len(failed) >= count, "a failed restart is reported:\n" + "\n".join(serving.lines[seen:])
    for line in failed[:2]:
        delays.append(float(re.search(r"retrying in ([\d.]+) s", line)[1]))
    assert delays == sorted(set(delays)), f"each delay is longer than the one before: {delays}"
    assert state_of(second) is None, "the second dead store was reaped too"

    health = httpx.get(f"{base}/health", timeout=5)
    assert health.status_code == 503
    assert health.headers["content-type"].startswith("application/problem+json")
    assert health.json()["code"] == "store_unavailable"
    ready = httpx.get(f"{base}/health/ready", timeout=5)
    assert ready.status_code == 503
    assert ready.json()["code"] == "store_unavailable"
    live = httpx.get(f"{base}/health/live", timeout=5)
    assert live.status_code == 200, "the process itself still serves"
    assert live.json() == {"status": "ok"}

    marker.unlink()
    seen = len(serving.lines)
    serving.wait_for_line(r"store restarted \(pid \d+, ", 20, after=seen)
    wait_for_status(f"{base}/health/ready", 200, 10)
    assert httpx.get(f"{base}/health", timeout=5).json() == {"status": "ok"}
    play_one_move(base, game_id, tokens)
    assert httpx.get(f"{base}/v1/games/{game_id}", timeout=5).json()["version"] > before["version"]
    print("\n".join(serving.lines))
