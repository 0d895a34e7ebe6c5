"""The servers benchmark's behaviour, run small (never its speed: `make servers` measures
that): every yardstick answers under both servers without an error, side by side in one
table, with granian's requests/s over uvicorn's, the game over the bare route on each
server, and which server is faster on the game traffic."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.subprocess


def test_the_servers_benchmark_serves_every_yardstick_under_both_servers_and_compares_them() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks.servers", "--clients", "2", "--moves", "10", "--rounds", "1"],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    for yardstick in ("raw", "bare", "game"):
        # Both servers' requests/s, p50 and p99, then granian's over uvicorn's.
        cells = r"\s*│\s*[\d,]+\s*│\s*[\d.]+ ms\s*│\s*[\d.]+ ms"
        assert re.search(rf"│\s*2 │ {yardstick}\s*{cells}{cells}\s*│\s*[\d.]+×\s*│", run.stdout), yardstick
    assert re.search(r"│\s*2 │ poison serve\s*│", run.stdout)
    assert re.search(
        r"^2 clients, game ÷ bare requests/s on the same server: uvicorn [\d.]+, granian [\d.]+$", run.stdout, re.M
    )
    assert re.search(r"^faster on the game traffic at 2 clients: (uvicorn|granian), [\d.]+× ", run.stdout, re.M)
    assert re.search(r"^`poison serve` runs on (uvicorn|granian)$", run.stdout, re.M)
    assert "error:" not in run.stdout
