"""The load benchmark's behaviour, run small so that it cannot rot (never its speed: `make
load` measures that): it plays whole games over HTTP without an error and ends with its
figures; each of its bars fails it when the run is below it, and says so with the measured
value; it compares against another build named by `--against`, and refuses a PATH that is no
build; its probes report from inside the worker; and it finds which server a running process
serves on, as `--server auto` does."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.clocked import Clocked, epoch_of
from benchmarks.load import (
    HERE,
    OTHER,
    THIS,
    Measured,
    Tally,
    at_least,
    at_most,
    bare_name,
    delay_bars,
    granian_command,
    load_bars,
    served_by,
    start,
    stop,
    uvicorn_command,
)
from events.server import free_port

LAST_LINE = re.compile(
    r"^clients=(\d+) moves_per_s=[\d.]+ requests_per_s=[\d.]+ p50_ms=[\d.]+ p99_ms=[\d.]+ errors=(\d+) ratio=([\d.]+)$"
)
CLOCKED_LINE = re.compile(
    r"^clients=(\d+) clocked_games=(\d+) fired=(\d+) delay_p50_ms=[\d.]+ delay_p90_ms=[\d.]+ "
    r"delay_p99_ms=([\d.]+) delay_max_ms=[\d.]+ moves_per_s=([\d.]+)$"
)
#: Bars that no run can fail, for a test of something else.
LENIENT = ("--bar", "0", "--p99-factor", "1e9", "--delay-bar", "1e9")
#: No clocked games and no idle count, for a test of something else.
UNCLOCKED = ("--clocked", "0", "--idle-seconds", "0")


def load(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "benchmarks.load", *args], capture_output=True, text=True, timeout=180)


def bar_rows(output: str, verdict: str) -> list[str]:
    """The rows of the bars' table that end in `verdict` (PASS or FAIL)."""
    return [line for line in output.splitlines() if re.search(rf"│\s*{verdict}\s*│$", line)]


@pytest.mark.subprocess
def test_the_load_benchmark_plays_games_without_errors_and_ends_with_its_figures() -> None:
    # The bare route's server given, not read from `poison serve`: granian, whatever serve runs on.
    run = load(
        "--clients", "2", "3", "--moves", "40", "--rounds", "2", "--server", "granian", *LENIENT,
        "--clocked", "4", "--clocked-at-once", "2", "--clock-seconds", "1", "--idle-seconds", "1",
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.strip().splitlines()
    assert re.match(r"this build: .*; `poison serve` on (uvicorn|granian), the bare route on granian$", lines[0])
    assert re.search(r"│ +3 │ bare route \(granian\) +│ +[\d,]+ │", run.stdout)
    assert any(line.startswith("2 clients, round 2: ") for line in lines)
    assert any(line.startswith("3 clients, round 1: ") for line in lines)
    figures = [LAST_LINE.match(line) for line in lines[-2:]]
    assert [match.group(1) if match else None for match in figures] == ["2", "3"], lines[-2:]
    assert all(match is not None and match.group(2) == "0" and float(match.group(3)) > 0 for match in figures)
    assert bar_rows(run.stdout, "FAIL") == []
    passed = bar_rows(run.stdout, "PASS")
    # One ratio bar for each client count, the p99 bar at the most clients, the errors; a
    # firing delay bar for each client count, and every clocked game fired.
    assert len(passed) == 7, passed
    assert any("game p99 ≤ 1e+09× the bare route's (granian), 3 clients" in row for row in passed)
    assert any("deadline firing delay p99 ≤ 1e+09 s, 3 clients" in row for row in passed)
    assert any(
        re.search(r"every clocked game fired, no request beside them failed\s*│\s*0 problems", r) for r in passed
    )
    # Each client count's clocked games all fired while the load's clients moved.
    clocked = [match for line in lines if (match := CLOCKED_LINE.match(line))]
    assert [(m.group(1), m.group(2), m.group(3)) for m in clocked] == [("2", "4", "4"), ("3", "4", "4")], lines
    assert all(float(m.group(5)) > 0 for m in clocked)
    assert any(line.startswith("3 clients, clocked: 4 deadlines fired, delay p50 ") for line in lines)
    # An idle service's store still serves the clocks' claims.
    idle = re.search(r"^idle workers=1 store_commands_per_s=([\d.]+)$", run.stdout, re.MULTILINE)
    assert idle is not None, run.stdout
    assert float(idle.group(1)) > 0
    assert re.search(r"^idle: 1 worker\(s\), [\d.]+ store commands/s over [\d.]+ s \(.*evalsha", run.stdout, re.M)


@pytest.mark.subprocess
def test_the_load_benchmark_fails_below_each_bar_with_its_measured_value_and_its_probes_report() -> None:
    # One run for the bars and the probes: each run starts servers and a store.
    run = load(
        "--clients", "2", "--moves", "20", "--rounds", "1", "--bar", "1000", "--p99-factor", "0.001", "--probe",
        "--clocked", "2", "--clock-seconds", "1", "--delay-bar", "0.000001", "--idle-seconds", "0",
    )  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    lines = run.stdout.strip().splitlines()
    assert "errors=0" in lines[-1]
    failed = bar_rows(run.stdout, "FAIL")
    assert len(failed) == 3, run.stdout
    assert re.search(r"game requests/s ≥ 1000× the bare route's \(\w+\), 2 clients\s*│\s*[\d.]+×", failed[0])
    assert re.search(r"game p99 ≤ 0.001× the bare route's \(\w+\), 2 clients\s*│\s*[\d.]+×", failed[1])
    assert re.search(r"deadline firing delay p99 ≤ 1e-06 s, 2 clients\s*│\s*[\d.]+ s", failed[2])
    assert len(bar_rows(run.stdout, "PASS")) == 2  # no request failed, every clocked game fired
    assert not any(line.startswith("idle") for line in lines)  # --idle-seconds 0: not counted
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


@pytest.mark.subprocess
def test_the_load_benchmark_against_another_build_fails_below_its_factors_and_names_both_builds(
    tmp_path: Path,
) -> None:
    # This build's own interpreter stands for "an installed build": the harness is under
    # test, not the comparison. Its service is wherever its install says, away from this
    # checkout's directory.
    installed = subprocess.run(
        [sys.executable, "-c", "import service; print(service.__path__[0])"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    run = load(
        "--clients", "2", "--moves", "20", "--rounds", "2", *LENIENT, *UNCLOCKED,
        "--against", sys.executable, "--rate-factor", "1000", "--tail-factor", "0.001",
    )  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"this build: {Path(HERE) / 'service'}" in run.stdout
    assert f"the other build: {installed}" in run.stdout
    assert re.search(r"│ +2 │ poison serve, other build +│ +[\d,]+ │", run.stdout)
    failed = bar_rows(run.stdout, "FAIL")
    assert len(failed) == 2, run.stdout
    assert "game requests/s ≥ 1000× the other build's, 2 clients" in failed[0]
    assert "game p99 ≤ 0.001× the other build's, 2 clients" in failed[1]


@pytest.mark.subprocess
def test_the_load_benchmark_refuses_an_against_path_that_is_no_build(tmp_path: Path) -> None:
    run = load("--clients", "1", "--moves", "2", "--rounds", "1", "--against", str(tmp_path))
    assert run.returncode == 1
    assert f"--against {tmp_path}: a checkout needs its own .venv" in run.stderr
    assert "round 1" not in run.stdout


@pytest.mark.subprocess
@pytest.mark.parametrize("server", ["uvicorn", "granian"])
def test_the_server_a_running_process_serves_on_is_read_from_its_processes(server: str) -> None:
    port = free_port()
    command = (uvicorn_command if server == "uvicorn" else granian_command)("benchmarks.rawasgi:app", port)
    process = start(command, port, "/bare", cwd=HERE)
    try:
        assert served_by(process.pid) == server
    finally:
        stop(process)


def measured(requests: int, seconds: float, latency: float) -> Measured:
    """`requests` answered in `seconds`, every one in `latency` seconds."""
    return Measured(Tally(latencies=[latency] * requests), seconds)


def test_a_bar_is_met_at_its_value_and_failed_past_it() -> None:
    assert at_least("a", "b", 0.5, 0.5).met
    assert not at_least("a", "b", 0.499, 0.5).met
    assert at_most("a", "b", 2.5, 2.5).met
    assert not at_most("a", "b", 2.501, 2.5).met
    assert at_least("game requests/s", "the bare route's", 0.5, 0.5).asked == "game requests/s ≥ 0.5× the bare route's"


def test_the_firing_delay_bar_is_met_at_its_value_failed_past_it_and_failed_when_nothing_fired() -> None:
    # Of 200 delays, the slowest tenth at (or past) the bar: so is the p99.
    at_the_bar = Clocked(delays=[0.2] * 180 + [1.0] * 20)
    past_it = Clocked(delays=[0.2] * 180 + [1.01] * 20)
    bars = delay_bars({16: at_the_bar, 64: past_it, 128: Clocked()}, 1.0)
    assert [(bar.asked, bar.measured, bar.met) for bar in bars] == [
        ("deadline firing delay p99 ≤ 1 s, 16 clients", "1.000 s", True),
        ("deadline firing delay p99 ≤ 1 s, 64 clients", "1.010 s", False),
        ("deadline firing delay p99 ≤ 1 s, 128 clients", "0.000 s", False),
    ]


def test_a_views_deadline_is_read_as_the_instant_it_names() -> None:
    assert epoch_of("2026-12-02T18:04:05.250Z") == 1796234645.25


def test_the_load_bars_divide_this_builds_figures_by_the_yardsticks_and_check_each_at_its_place() -> None:
    args = argparse.Namespace(bar=0.5, p99_factor=2.5, rate_factor=1.0, tail_factor=1.0, against="elsewhere")
    results = {
        # 16 clients: the game at half the bare route's requests/s, on its bar.
        16: {THIS: measured(1000, 1.0, 0.010), bare_name("granian"): measured(2000, 1.0, 0.001)},
        # 64 clients: below the ratio bar; p99 2.5× the bare route's (met), and against the
        # other build faster (met) but with a longer tail (failed).
        64: {
            THIS: measured(990, 1.0, 0.025),
            bare_name("granian"): measured(2000, 1.0, 0.010),
            OTHER: measured(900, 1.0, 0.020),
        },
    }
    bars = load_bars(args, results, "granian")
    assert [(bar.asked, bar.measured, bar.met) for bar in bars] == [
        ("game requests/s ≥ 0.5× the bare route's (granian), 16 clients", "0.500×", True),
        ("game requests/s ≥ 0.5× the bare route's (granian), 64 clients", "0.495×", False),
        ("game p99 ≤ 2.5× the bare route's (granian), 64 clients", "2.500×", True),
        ("game requests/s ≥ 1× the other build's, 64 clients", "1.100×", True),
        ("game p99 ≤ 1× the other build's, 64 clients", "1.250×", False),
    ]
    args.against = None
    assert len(load_bars(args, results, "granian")) == 3  # no other build, no bars against it


def test_a_target_that_failed_a_request_or_owes_moves_is_reported() -> None:
    target = Measured(Tally(latencies=[0.001] * 3, errors=["503 b'busy'"], moves=3), 1.0, owed=10)
    assert target.problems("poison serve") == ["poison serve: 503 b'busy'", "poison serve: 3 of the 10 moves were made"]
    assert Measured(Tally(latencies=[0.001], moves=10), 1.0, owed=10).problems("poison serve") == []
    assert Measured().problems("raw (granian)") == ["raw (granian): no request was answered"]
