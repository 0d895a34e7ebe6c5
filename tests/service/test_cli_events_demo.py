"""`python -m events`, the event store's demonstration: it writes only into a store it was
given explicitly (by default a temporary one of its own), never the service's, and says
what is wrong in one line, a store held by a running `poison serve` included. Run in this
process (events.__main__.main), but beside a running `poison serve`."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx
import pytest
import redis

from events.__main__ import main
from events.server import EmbeddedServer
from tests.service.command import run_here
from tests.service.served import serving


def demo(*args: str) -> subprocess.CompletedProcess:
    """`python -m events ARGS` in a process of its own."""
    return subprocess.run([sys.executable, "-m", "events", *args], capture_output=True, text=True, timeout=180)


def demo_here(*args: str, env: Mapping[str, str | None] | None = None) -> subprocess.CompletedProcess:
    """`python -m events ARGS` run in this process (events.__main__.main), as `demo` runs it."""
    return run_here(main, args, env=env)


def temporary_demos() -> set[str]:
    return {name for name in os.listdir(tempfile.gettempdir()) if name.startswith("poison-demo-")}


@pytest.fixture
def own_store(tmp_path: Path) -> Iterator[EmbeddedServer]:
    """A store no other test writes into: everything in it is this test's doing."""
    server = EmbeddedServer(tmp_path / "own-store")
    server.start()
    yield server
    server.stop()


def keys(server: EmbeddedServer) -> list[str]:
    with redis.Redis.from_url(server.url, decode_responses=True) as client:
        return list(client.scan_iter())


@pytest.mark.parametrize("ruleset", ["poison", "pot"])
def test_by_default_the_demo_plays_in_a_store_of_its_own_and_ignores_the_service_settings(own_store, tmp_path, ruleset):
    before = temporary_demos()
    service_dir = tmp_path / "service-data"
    env = {"POISON_REDIS_URL": own_store.url, "POISON_DATA_DIR": str(service_dir)}
    result = demo_here("--ruleset", ruleset, "--players", "3", env=env)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("game demo-")
    assert lines[0].endswith("players, seed 2026), in an embedded store in a temporary directory, now removed:")
    assert "events appended, read back and replayed from the log alone" in lines[1]
    assert lines[2].startswith("  1 game_created, ")
    assert lines[3].startswith("  totals: player 0 ")
    assert keys(own_store) == []  # the service's store, named by POISON_REDIS_URL: untouched
    assert not service_dir.exists()
    assert temporary_demos() == before  # and its own store is gone


def test_a_demo_given_a_url_writes_under_a_namespace_of_its_own(own_store):
    result = demo_here("--redis-url", own_store.url)
    assert result.returncode == 0, result.stderr
    assert f"in {own_store.shown_url}, namespace poison-demo:" in result.stdout
    assert own_store.password not in result.stdout
    written = keys(own_store)
    assert written
    assert all(key.startswith("poison-demo:") for key in written), written


@pytest.mark.subprocess  # a poison serve holds the data, and the demo runs as a process of its own
def test_a_demo_given_the_data_of_a_running_service_says_so_in_one_line_and_writes_nothing(tmp_path):
    data = tmp_path / "served"
    with serving(data) as base:
        result = demo("--data-dir", str(data))
        assert result.returncode == 1
        assert result.stdout == ""
        assert result.stderr.startswith(f"python -m events: {data.resolve()} is in use by another embedded store")
        assert len(result.stderr.splitlines()) == 1
        assert "Traceback" not in result.stderr
        assert httpx.get(f"{base}/v1/games").json()["games"] == []


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--players", "9"], "python -m events: a game has 3 to 6 players, not 9"),
        (["--ruleset", "chess"], "python -m events: 'chess' is not a ruleset"),
        (["--seed", "-1"], "python -m events: a seed is a whole number from 0 to "),
        (["--redis-url", "http://127.0.0.1:6379"], "python -m events: --redis-url must start with redis://"),
    ],
)
def test_the_demo_refuses_what_it_cannot_play_in_one_line(args, says):
    result = demo_here(*args)
    assert result.returncode == 2
    assert result.stderr.startswith(says)
    assert len(result.stderr.splitlines()) == 1


def test_the_demo_asks_for_numbers_in_words():
    result = demo_here("--players", "four")
    assert result.returncode == 2
    assert result.stderr.startswith("usage: python -m events ")
    assert result.stderr.endswith("python -m events: error: argument --players: a whole number, not 'four'\n")


def test_a_demo_whose_store_cannot_be_reached_says_so_in_one_line():
    result = demo_here("--redis-url", "redis://127.0.0.1:1/0")
    assert result.returncode == 1
    assert result.stderr.startswith("python -m events: ")
    assert len(result.stderr.splitlines()) == 1
