"""What `poison` imports when it does not serve: never Litestar nor the HTTP server (granian,
or uvicorn), whose import alone took longer (about 120 ms) than the rest of the command's
start. Only `poison serve` needs them, and imports them on its own path; nor the store's
client (redis, about 50 ms), but to serve or to replay a stored game.

Each case runs in a fresh interpreter (`python -c`, no `poison` process: tests/tiers.py lets
it run in the fast tier), since this test session has imported Litestar long ago."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from events.codec import Player, encode_public, to_public
from events.play import create_game, play_move

#: What only serving may import.
SERVING_ONLY = ("granian", "litestar", "uvicorn")

#: Imports `service.cli` (and any other module named), runs `main(argv)` for each argv given
#: (its output thrown away, its input the text given), then prints which of SERVING_ONLY
#: were imported, as JSON.
PROBE = """
import contextlib, importlib, io, json, sys
import service.cli
for module in json.loads(sys.argv[3]):
    importlib.import_module(module)
runs = json.loads(sys.argv[1])
for argv, stdin in runs:
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            service.cli.main(argv)
        except SystemExit:
            pass
print(json.dumps(sorted({name.partition(".")[0] for name in sys.modules} & set(json.loads(sys.argv[2])))))
"""


def imported_by(
    *runs: tuple[list[str], str], modules: tuple[str, ...] = (), of: tuple[str, ...] = SERVING_ONLY
) -> list[str]:
    """The packages `of` (SERVING_ONLY) a fresh interpreter holds after `import service.cli`
    (and `modules`) and each of `runs` (argv, standard input) through `main`."""
    probe = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(runs), json.dumps(of), json.dumps(modules)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert probe.returncode == 0, probe.stderr
    return json.loads(probe.stdout.splitlines()[-1])


def test_importing_the_command_imports_neither_litestar_nor_the_server():
    assert imported_by() == []


@pytest.fixture(scope="module")
def pot_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    players = tuple(Player(seat=seat, name=f"p{seat}", bot="greedy") for seat in range(2))
    log, logged = create_game("pot", "imports", players, seed=3, options={})
    while not logged.finished:
        caused, logged = play_move(logged, logged.game.turn, logged.game.legal_moves()[0])
        log += caused
    path = tmp_path_factory.mktemp("imports") / "pot.ndjson"
    path.write_bytes(b"".join(encode_public(to_public(v, event)) + b"\n" for v, event in enumerate(log, 1)))
    return path


@pytest.mark.parametrize(
    "runs",
    [
        [(["simulate", "--ruleset", "pot", "--players", "2", "--games", "20", "--bots", "greedy,mcts:5"], "")],
        [(["ladder", "--ruleset", "pot", "--players", "2", "--bots", "greedy,random", "--games", "2"], "")],
        # A whole game, its view and score sheet drawn (service.views), then a refusal.
        [(["play", "--ruleset", "pot", "--players", "2", "--seed", "1"], "1\n" * 200), (["play", "--seat", "9"], "")],
        # A server that is not there: the client (httpx) is imported, and gives up.
        [(["play", "--server", "http://127.0.0.1:1", "--players", "3"], "")],
        [(["--help"], ""), (["play", "--help"], ""), (["simulate", "--bad-flag"], "")],
    ],
    ids=["simulate", "ladder", "play", "play-on-a-server", "help-and-usage"],
)
def test_a_command_that_does_not_serve_imports_neither_litestar_nor_the_server(runs):
    assert imported_by(*runs) == []


def test_replay_of_a_log_imports_neither_litestar_nor_the_server(pot_log: Path):
    assert imported_by((["replay", str(pot_log)], ""), (["replay", "-"], pot_log.read_text())) == []


def test_a_command_that_reads_no_store_imports_no_store_client(pot_log: Path):
    # The store's client (redis, and the store's metrics) is for serve and `replay --game`.
    runs = (["replay", str(pot_log)], ""), (["simulate", "--ruleset", "pot", "--players", "2", "--games", "5"], "")
    assert imported_by(*runs, of=("redis", "prometheus_client", "asyncio")) == []


def test_the_probe_sees_what_serving_imports():
    # The tests above would pass if the probe saw nothing: here it must see serve's imports.
    assert imported_by(modules=("service.app", "granian")) == ["granian", "litestar"]
