"""The load benchmark, run small so that it cannot rot: it starts both servers, plays
whole games over HTTP without an error and prints its last line in the promised format.
(Its figures are measured by `make load`, not here.)"""

from __future__ import annotations

import re
import subprocess
import sys

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


def test_the_load_benchmark_fails_when_the_ratio_is_below_its_bar() -> None:
    run = load("--clients", "2", "--moves", "10", "--rounds", "1", "--bar", "1000")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "errors=0" in run.stdout.strip().splitlines()[-1]
