"""The load benchmark, run small so that it cannot rot: it starts both servers, plays
whole games over HTTP without an error and prints its last line in the promised format;
its bars fail it; its probes report from inside the worker. (Its figures are measured by
`make load`, not here: `python -m benchmarks.load --clients 16` and
`python -m benchmarks.load --clients 64 --p99-bar 20` check issue 15's bars.)"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.subprocess

LAST_LINE = re.compile(
    r"^moves_per_s=[\d.]+ requests_per_s=[\d.]+ p50_ms=[\d.]+ p99_ms=[\d.]+ errors=(\d+) ratio=([\d.]+)$"
)


def load(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "benchmarks.load", *args], capture_output=True, text=True, timeout=120)


def test_the_load_benchmark_plays_games_without_errors_and_ends_with_its_figures() -> None:
    run = load("--clients", "3", "--moves", "40", "--rounds", "2", "--bar", "0")
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.strip().splitlines()
    assert [line for line in lines if line.startswith("round ")] != []
    match = LAST_LINE.match(lines[-1])
    assert match is not None, lines[-1]
    assert match.group(1) == "0"
    assert float(match.group(2)) > 0
    assert any(line.startswith("closed loop, 3 clients: mean latency = clients / throughput = ") for line in lines)


def test_the_load_benchmark_fails_below_its_ratio_bar_or_above_its_p99_bar_and_its_probes_report() -> None:
    # One run for the bars and the probes: each run starts two servers and a store.
    run = load("--clients", "2", "--moves", "20", "--rounds", "1", "--bar", "1000", "--p99-bar", "0.001", "--probe")
    assert run.returncode == 1, run.stdout + run.stderr
    lines = run.stdout.strip().splitlines()
    assert "errors=0" in lines[-1]
    assert any(line.startswith("below the bar: ratio") for line in lines)
    assert any(line.startswith("above the bar: game p99") for line in lines)
    # Little's law at 2 clients: a p99 of 0.001 ms needs 2 / 0.001 ms = 2,000,000 requests/s.
    assert any(line.startswith("closed loop, 2 clients") and "needs ≥ 2,000,000 requests/s" in line for line in lines)
    report = run.stdout[run.stdout.index("inside the worker (uvloop.Loop") :]
    for line in (
        "loop lag (",
        "app, move (",
        "app, read (",
        "store, script (append) (",
        "store, xrange (",
        "store fsync",
    ):
        assert f"\n  {line}" in report, line
    assert re.search(r"CPU: [\d.]+ s for [\d,]+ requests", report)
