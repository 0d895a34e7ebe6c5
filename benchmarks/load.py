"""Load benchmark: concurrent games over HTTP against `poison serve`, measured in the same run
against the bare Litestar route on the same server and, when asked, against `poison serve` of
another build, at the same concurrency; then the bars, each with its measured value.

    python -m benchmarks.load [--clients 16 [64 ...]] [--workers 1] [--moves 1000] [--rounds 4]
                              [--server auto|uvicorn|granian] [--against PATH]
                              [--bar 0.5] [--p99-factor 2.5] [--rate-factor 1.0] [--tail-factor 1.0]
                              [--clocked 300] [--clocked-at-once 32] [--clock-seconds 1 2]
                              [--delay-bar 1.0] [--idle-seconds 10]
                              [--probe] [--redis-url URL | --cluster]

It starts `poison serve` through its CLI (so it measures whatever server `serve` runs on; N
workers, embedded store in a temporary directory) and the bare route (benchmarks/bare.py)
under the same server (`--server auto` reads which from the running `poison serve`: granian
if granian's compiled module is loaded in its processes, else uvicorn). With `--against
PATH` (a checkout with its own .venv, or the Python interpreter of an installed build) it
also starts that build's `poison serve`, run from that build's interpreter and directory,
its own embedded store beside this one's. M clients, each on its own keep-alive connection,
play whole games (all four seats of one game at a time: a GET of the seat to move, then its
POST, so two requests a move); each round gives every server its turn, the games with the
same random moves, the bare route twice as many requests a client as moves, and the order
turns round by round, so that a noisy moment of this shared machine falls on all alike.

It prints each round, a table of requests/s, p50, p99 and p99.9 of every server at every
client count, and the bars, each PASS or FAIL with its measured value:

- the game's requests/s at least `--bar` (0.5) of the bare route's, at every client count;
- at the most clients of the run (64 in `make load`), the game's p99 at most `--p99-factor`
  (2.5) times the bare route's p99;
- with `--against`, at the most clients: this build's requests/s at least `--rate-factor`
  (1.0) of the other's, and its p99 at most `--tail-factor` (1.0) of the other's;
- no request failed and every move owed was made;
- deadlines fire on time under load: after the rounds of each client count, the same number
  of clients play on this build's `poison serve` while `--clocked` (300) clocked games,
  `--clocked-at-once` (32) at a time, wait for a person who never moves
  (benchmarks/clocked.py); each firing's delay (its seat_timed_out received on the game's
  live stream, less the deadline the game's view named) at the p99 at most `--delay-bar`
  (1.0) seconds, at every client count; every clocked game's deadline fired, and no request
  of the load beside them failed.

The delays are printed as a table beside the load's own moves/s in the same time. Then,
after the load, `--idle-seconds` (10) of an idle `poison serve` (its workers as many as the
run's) on a store of its own: the commands that store served a second, by name (what the
clocks' ticks cost when nothing happens), and the CPU of the store and of `serve`.

Its last lines are, for each client count, `clients=M clocked_games=N fired=… delay_p50_ms=…
delay_p90_ms=… delay_p99_ms=… delay_max_ms=… moves_per_s=…` (the load's, while they fired),
then `idle workers=N store_commands_per_s=…`, then for each client count `clients=M
moves_per_s=… requests_per_s=… p50_ms=… p99_ms=… errors=… ratio=…` (`ratio`: the game's
requests/s over the bare route's). It exits 1 when a bar fails. Every request loop is
bounded (the clocked phase's clients by its clocked games, each given up on when it has not
fired well past its deadline) and only talks to 127.0.0.1.

`--probe` runs this build's service under benchmarks/probes.py and reports what happened
inside its worker: garbage collections, event-loop lag, each route's time, each store
command's round trip, the store's slow fsyncs. `--redis-url` serves from a store of your own
(one without fsync, say, to see what fsync costs); `--cluster` from a local Redis Cluster of
embedded servers (3 masters and a replica of each, events/cluster.py), which it forms in the
temporary directory and stops at the end. Neither goes with `--against`: two builds are
compared each on its own embedded store.

The client (benchmarks/client.py) is a few lines of HTTP/1.1 on an asyncio protocol, on
uvloop, not httpx: a heavier client would eat the CPU the servers share with it (two cores)
and flatter the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rich.console import Console
from rich.table import Table

from benchmarks.client import HOST, Connection, Tally, play_games, run
from benchmarks.clocked import Clocked, clocked_phase
from benchmarks.probes import LATENCY_THRESHOLD_MS
from events.cluster import LocalCluster
from events.credentials import redacted
from events.server import EmbeddedServer, free_port


async def hit_bare(port: int, requests: int, tally: Tally) -> None:
    connection = Connection(port)
    try:
        for _ in range(requests):
            status, _ = await tally.timed(connection, "GET", "/bare")
            if status != 200:
                return
    finally:
        connection.close()


def start(
    command: list[str],
    port: int,
    path: str,
    patience: float = 30.0,
    log: Path | None = None,
    cwd: str | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.Popen[bytes]:
    """Start a server (in `cwd`, with `env` if given) and wait (at most `patience` seconds)
    until `path` answers 200. Its standard error goes to `log` when given (a server that
    writes much there, as one under valgrind, would fill an unread pipe and stall), else to a
    pipe read if it fails."""
    with open(log, "wb") if log is not None else contextlib.nullcontext(subprocess.PIPE) as stderr:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr, cwd=cwd, env=env)
    deadline = time.monotonic() + patience

    async def probe() -> bool:
        try:
            connection = Connection(port)
            try:
                status, _ = await connection.request("GET", path)
            finally:
                connection.close()
            return status == 200
        except OSError:
            return False

    while not run(probe()):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            process.wait()
            said = (log.read_bytes() if log is not None else process.stderr.read() if process.stderr else b"").decode(
                errors="replace"
            )
            raise SystemExit(f"could not start {' '.join(command)}: {said[-2000:]}")
        time.sleep(0.1)
    return process


#: The servers a yardstick is served by, each on uvloop.
Server = Literal["uvicorn", "granian"]
SERVERS: tuple[Server, ...] = ("uvicorn", "granian")


def uvicorn_command(app: str, port: int, workers: int = 1, factory: bool = False) -> list[str]:
    """uvicorn (httptools, uvloop) serving `app` ("module:attribute"; with `factory`, a
    function that makes the app) as the benchmarks serve their yardsticks."""
    command = [sys.executable, "-m", "uvicorn", app, "--host", HOST, "--port", str(port), "--workers", str(workers)]
    command += ["--loop", "uvloop", "--http", "httptools", "--ws", "none", "--log-level", "warning", "--no-access-log"]
    return [*command, "--factory"] if factory else command


def granian_command(app: str, port: int, workers: int = 1, factory: bool = False) -> list[str]:
    """granian (ASGI, uvloop, no websockets) serving `app` as `uvicorn_command` does."""
    command = [sys.executable, "-m", "granian", "--interface", "asgi", "--loop", "uvloop", "--no-ws"]
    command += ["--host", HOST, "--port", str(port), "--workers", str(workers), "--log-level", "warning"]
    return [*command, *(["--factory"] if factory else []), app]


def server_command(server: Server, app: str, port: int, workers: int = 1, factory: bool = False) -> list[str]:
    return (uvicorn_command if server == "uvicorn" else granian_command)(app, port, workers, factory)


def descendants(pid: int) -> list[int]:
    """`pid` and every process under it, read from /proc (Linux)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # it ended while we looked
            continue
        # The command name, in parentheses, may hold spaces: the parent's id follows its last ")".
        parent = int(stat[stat.rindex(")") + 2 :].split()[1])
        parents.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        found.append(todo.pop())
        todo += parents.get(found[-1], [])
    return found


def served_by(pid: int) -> Server:
    """The server a running `poison serve` (process `pid`) serves on: granian when its
    compiled module is loaded in that process or one under it, else uvicorn. Read from the
    processes rather than told, so that the bare route is served as `serve` is, whatever
    `serve` runs on today."""
    for process in descendants(pid):
        try:
            maps = Path(f"/proc/{process}/maps").read_text()
        except OSError:
            continue
        if "/granian/" in maps:
            return "granian"
    return "uvicorn"


def stop(process: subprocess.Popen[bytes], patience: float = 15.0) -> None:
    process.terminate()
    try:
        process.wait(patience)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stderr is not None:
        process.stderr.close()


def percentile(values: list[float], q: float) -> float:
    """The q-quantile of `values` (seconds), in ms."""
    if len(values) < 2:
        return values[0] * 1000 if values else 0.0
    return statistics.quantiles(values, n=10_000, method="inclusive")[round(q * 10_000) - 1] * 1000


#: The quantiles the benchmark reports, and how it names them.
QUANTILES = ((0.5, "p50"), (0.9, "p90"), (0.99, "p99"), (0.999, "p99.9"))


def spread(values: list[float]) -> str:
    """p50, p90, p99, p99.9 and the maximum of latencies (seconds), in ms."""
    shown = [f"{name} {percentile(values, q):.2f}" for q, name in QUANTILES]
    return ", ".join([*shown, f"max {max(values, default=0) * 1000:.2f} ms"])


#: Client n of a phase, adding what it measured to the phase's tally.
Client = Callable[[Tally, int], Awaitable[None]]


def players(port: int, moves: int, seed: int) -> Client:
    """Clients that each play `moves` moves, client n choosing from random stream seed + n."""
    return lambda tally, n: play_games(port, moves, tally, random.Random(seed + n))


def bare_clients(port: int, requests: int) -> Client:
    """Clients that each make `requests` requests to the bare endpoint."""
    return lambda tally, n: hit_bare(port, requests, tally)


async def phase(runner: Client, clients: int) -> tuple[Tally, float]:
    tally = Tally()
    started, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(runner(tally, n) for n in range(clients)))
    tally.cpu = time.process_time() - cpu
    return tally, time.perf_counter() - started


#: What a target serves: whole games (`/v1/games`, ready at `/health`) or the bare route.
Kind = Literal["game", "bare"]
GAME: Kind = "game"
BARE: Kind = "bare"
READY = {GAME: "/health", BARE: "/bare"}


@dataclass
class Target:
    """One server a run measures: its name in the report, what it serves, how it starts."""

    name: str
    kind: Kind
    command: list[str]
    port: int
    cwd: str | None = None
    env: dict[str, str] | None = None
    process: subprocess.Popen[bytes] | None = None

    def start(self, patience: float = 60.0) -> None:
        self.process = start(self.command, self.port, READY[self.kind], patience, cwd=self.cwd, env=self.env)

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)
            self.process = None


@dataclass
class Measured:
    """What one target did at one client count, over every round."""

    tally: Tally = field(default_factory=Tally)
    seconds: float = 0.0
    owed: int = 0  # the moves its clients were to make (games only)

    @property
    def requests_per_s(self) -> float:
        return len(self.tally.latencies) / self.seconds if self.seconds else 0.0

    def latency(self, q: float) -> float:
        return percentile(self.tally.latencies, q)

    def problems(self, name: str) -> list[str]:
        """What went wrong: failed requests (a client stops at its first), moves not made."""
        found = [f"{name}: {error}" for error in self.tally.errors[:5]]
        if len(self.tally.errors) > 5:
            found.append(f"{name}: {len(self.tally.errors) - 5} more errors")
        if self.tally.moves != self.owed:
            found.append(f"{name}: {self.tally.moves:,} of the {self.owed:,} moves were made")
        if not self.tally.latencies:
            found.append(f"{name}: no request was answered")
        return found


def measure(targets: list[Target], clients: int, moves: int, rounds: int) -> dict[str, Measured]:
    """Every target at `clients` clients: each warmed up untimed, then `rounds` rounds in
    which each has its turn, `moves` moves a client in all for the games (the same random
    moves for every game target) and twice as many requests a round for the bare ones; the
    order turns by one each round, so that no target always follows the same one."""
    results = {target.name: Measured() for target in targets}
    for target in targets:
        warm = players(target.port, 25, seed=-10_000) if target.kind == GAME else bare_clients(target.port, 50)
        run(phase(warm, clients))
    each = max(1, moves // rounds)
    for round_ in range(rounds):
        turn = round_ % len(targets)
        said = []
        for target in targets[turn:] + targets[:turn]:
            work = (
                players(target.port, each, seed=round_ * 1000)
                if target.kind == GAME
                else bare_clients(target.port, 2 * each)
            )
            tally, seconds = run(phase(work, clients))
            measured = results[target.name]
            measured.tally.absorb(tally)
            measured.seconds += seconds
            measured.owed += clients * each if target.kind == GAME else 0
            said.append(
                f"{target.name} {len(tally.latencies) / seconds:,.0f}/s p99 {percentile(tally.latencies, 0.99):.2f} ms "
                f"(clients' CPU {tally.cpu / seconds:.0%})"
            )
        print(f"{clients} clients, round {round_ + 1}: " + "; ".join(said), flush=True)
    return results


def console() -> Console:
    """Wide enough that a table's rows stay whole when the output is not a terminal."""
    return Console(width=max(Console().width, 150))


def figures_table(title: str, results: dict[int, dict[str, Measured]]) -> Table:
    """Requests/s and latencies of every target at every client count."""
    table = Table(title=title)
    for column in ("clients", "server", "requests/s", "p50", "p99", "p99.9", "errors"):
        table.add_column(column, justify="left" if column == "server" else "right")
    for clients, measured in results.items():
        for name, m in measured.items():
            table.add_row(
                str(clients),
                name,
                f"{m.requests_per_s:,.0f}",
                f"{m.latency(0.5):.2f} ms",
                f"{m.latency(0.99):.2f} ms",
                f"{m.latency(0.999):.2f} ms",
                f"{len(m.tally.errors)}",
            )
    return table


@dataclass(frozen=True)
class Bar:
    """A requirement, what this run measured against it, and whether that meets it."""

    asked: str
    measured: str
    met: bool


def at_least(what: str, of: str, value: float, bar: float) -> Bar:
    """`what` at least `bar` times `of`; `value` is the measured ratio."""
    return Bar(f"{what} ≥ {bar:g}× {of}", f"{value:.3f}×", value >= bar)


def at_most(what: str, of: str, value: float, bar: float) -> Bar:
    """`what` at most `bar` times `of`; `value` is the measured ratio."""
    return Bar(f"{what} ≤ {bar:g}× {of}", f"{value:.3f}×", value <= bar)


def bars_table(bars: list[Bar]) -> Table:
    table = Table(title="the bars, measured in this run")
    for column in ("bar", "measured", ""):
        table.add_column(column, justify="left" if column == "bar" else "right")
    for bar in bars:
        table.add_row(bar.asked, bar.measured, "PASS" if bar.met else "[red]FAIL[/red]")
    return table


#: The quantiles of a firing's delay the benchmark reports.
DELAY_QUANTILES = ((0.5, "p50"), (0.9, "p90"), (0.99, "p99"))


def delay_spread(clocked: Clocked) -> str:
    """p50, p90, p99 and the maximum of the firings' delays, in ms."""
    shown = [f"{name} {percentile(clocked.delays, q):.0f}" for q, name in DELAY_QUANTILES]
    return ", ".join([*shown, f"max {max(clocked.delays, default=0) * 1000:.0f} ms"])


def delays_table(clocked: dict[int, Clocked], workers: int) -> Table:
    """How late the deadlines fired at each client count, and the load in the same time."""
    table = Table(title=f"deadlines fired under the load, {workers} worker(s): delay past the deadline the view named")
    for column in ("clients", "fired", "p50", "p90", "p99", "max", "load moves/s", "load requests/s"):
        table.add_column(column, justify="right")
    for clients, phase_ in clocked.items():
        table.add_row(
            str(clients),
            f"{len(phase_.delays)} of {phase_.games}",
            *(f"{percentile(phase_.delays, q):.0f} ms" for q, _ in DELAY_QUANTILES),
            f"{max(phase_.delays, default=0) * 1000:.0f} ms",
            f"{phase_.moves_per_s:,.0f}",
            f"{phase_.requests_per_s:,.0f}",
        )
    return table


def delay_bars(clocked: dict[int, Clocked], bar_s: float) -> list[Bar]:
    """The firing delay's p99 at most `bar_s` seconds at every client count (none measured
    fails it)."""
    bars = []
    for clients, phase_ in clocked.items():
        p99 = percentile(phase_.delays, 0.99) / 1000
        asked = f"deadline firing delay p99 ≤ {bar_s:g} s, {clients} clients"
        bars.append(Bar(asked, f"{p99:.3f} s", bool(phase_.delays) and p99 <= bar_s))
    return bars


def build_of(python: str, cwd: str) -> str:
    """Where the `service` package a build's interpreter imports (run in `cwd`) lives, and
    the commit of its checkout when it is one: said in the report, so that a comparison
    shows what it compared."""
    found = subprocess.run(
        [python, "-c", "import service; print(service.__path__[0])"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if found.returncode != 0:
        raise SystemExit(f"{python} cannot import the service: {found.stderr.strip()[-500:]}")
    where = found.stdout.strip()
    commit = subprocess.run(
        ["git", "-C", where, "log", "-1", "--format=%h %cs"], capture_output=True, text=True, timeout=60
    )
    return f"{where} (commit {commit.stdout.strip()})" if commit.returncode == 0 else where


def other_build(path: str, data: str) -> tuple[str, str]:
    """The interpreter of the build `--against` names and the directory to run it in: a
    checkout's own .venv in the checkout (so that `-m service.cli` is its service, not this
    one's), or an installed build's interpreter in the run's temporary directory."""
    given = Path(path)
    if given.is_dir():
        python = given / ".venv" / "bin" / "python"
        if not python.exists():
            raise SystemExit(f"--against {path}: a checkout needs its own .venv ({python} not found; make setup there)")
        return str(python), str(given.resolve())
    if given.is_file() and os.access(given, os.X_OK):
        return str(given), data
    raise SystemExit(f"--against {path}: neither a checkout with a .venv nor a Python interpreter")


#: This checkout, where this build's `poison serve` runs.
HERE = str(Path(__file__).resolve().parents[1])


def serve_command(python: str, port: int, workers: int, data: str, report: str | None = None) -> list[str]:
    """`poison serve` of the build of `python` on `port`, its store in `data`; with a report
    path, under the probes (this build only)."""
    serve = ["serve", "--port", str(port), "--workers", str(workers), "--data-dir", data]
    if report is not None:
        return [python, "-m", "benchmarks.probes", report, *serve]
    return [python, "-m", "service.cli", *serve]


def print_probes(report: dict[str, Any]) -> None:
    """What the probes saw inside the worker (benchmarks/probes.py), over its whole run."""
    print(f"inside the worker ({report['loop']}; probes on: their own cost is in these figures):")
    served = sum(len(times) for times in report["app"].values())
    cpu = report["cpu"]
    print(f"  CPU: {cpu:.1f} s for {served:,} requests, {cpu / served * 1e6:.0f} µs a request")
    for generation, pauses in report["gc"].items():
        if pauses:
            gc_cpu = report["gc_cpu"][generation]
            print(
                f"  gc generation {generation}: {len(pauses)} collections, {gc_cpu * 1000:.0f} ms of CPU "
                f"({gc_cpu / cpu:.1%} of the worker's); pauses {spread(pauses)}"
            )
    print(f"  loop lag ({len(report['lag'])} probes): {spread(report['lag'])}")
    for name, times in sorted(report["app"].items()):
        print(f"  app, {name} ({len(times)}): {spread(times)}")
    for name, times in sorted(report["store"].items()):
        print(f"  store, {name} ({len(times)}): {spread(times)}")
    fsyncs = [ms for _, ms in report["fsync"]]
    print(
        f"  store fsync over {LATENCY_THRESHOLD_MS} ms (the server's latency monitor keeps the last 160): "
        f"{len(fsyncs)}, max {max(fsyncs, default=0)} ms"
    )


@dataclass(frozen=True)
class Idle:
    """What an idle service cost: the commands its store served a second, in all and by name
    (a script's own commands counted as well as its call), and the CPU of the store's
    process and of `poison serve`'s (a share of one core)."""

    workers: int
    seconds: float
    per_s: float
    by_name: dict[str, float]
    store_cpu: float
    serve_cpu: float


def cpu_seconds(pid: int) -> float:
    """The user and system CPU seconds of process `pid` and every process under it."""
    ticks = 0
    for process in descendants(pid):
        with contextlib.suppress(OSError):
            stat = Path(f"/proc/{process}/stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return ticks / os.sysconf("SC_CLK_TCK")


def idle_commands(data: str, workers: int, seconds: float, serve: Callable[[int, int, str], list[str]]) -> Idle:
    """Start a store of its own in `data` and `poison serve` (`serve(port, workers, data)`,
    its command) on it, let it settle, then count the commands the store served in
    `seconds` while no request came (the counting's own INFO calls left out), and the CPU
    both spent meanwhile."""
    store = EmbeddedServer(Path(data) / "idle-store")
    url = store.start()
    port = free_port()
    env = {**os.environ, "POISON_REDIS_URL": url}
    process = start(serve(port, workers, os.path.join(data, "idle-serve")), port, "/health", 60.0, env=env)
    client = store.client(decode_responses=True)
    try:
        time.sleep(2.0)  # past the workers' start: their first reads and scripts loaded

        def looked() -> tuple[dict[str, dict[str, int]], float, float, float]:
            cpu = client.info("cpu")
            store_cpu = float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])
            return client.info("commandstats"), store_cpu, cpu_seconds(process.pid), time.perf_counter()

        before, store_before, serve_before, started = looked()
        time.sleep(seconds)
        after, store_after, serve_after, ended = looked()
    finally:
        client.close()
        stop(process)
        with contextlib.suppress(Exception):
            store.stop()
    elapsed = ended - started

    def calls(stats: dict[str, dict[str, int]], name: str) -> int:
        return int(stats.get(name, {}).get("calls", 0))

    by_name = {}
    for name in after:
        # The INFO calls of one look (cpu, commandstats) between the two counts.
        served = calls(after, name) - calls(before, name) - (2 if name == "cmdstat_info" else 0)
        if served > 0:
            by_name[name.removeprefix("cmdstat_")] = served / elapsed
    return Idle(
        workers,
        elapsed,
        sum(by_name.values()),
        by_name,
        (store_after - store_before) / elapsed,
        (serve_after - serve_before) / elapsed,
    )


#: The names of the load's targets in its report.
THIS, OTHER = "poison serve", "poison serve, other build"


def bare_name(server: str) -> str:
    return f"bare route ({server})"


def load_bars(args: argparse.Namespace, results: dict[int, dict[str, Measured]], server: str) -> list[Bar]:
    """The load's bars over this run's figures (the module's docstring lists them)."""
    bars = []
    for clients, measured in results.items():
        game, bare = measured[THIS], measured[bare_name(server)]
        ratio = game.requests_per_s / bare.requests_per_s
        bars.append(at_least("game requests/s", f"the bare route's ({server}), {clients} clients", ratio, args.bar))
    most = max(results)
    game, bare = results[most][THIS], results[most][bare_name(server)]
    tail = game.latency(0.99) / bare.latency(0.99)
    bars.append(at_most("game p99", f"the bare route's ({server}), {most} clients", tail, args.p99_factor))
    if args.against is not None:
        other = results[most][OTHER]
        rate = game.requests_per_s / other.requests_per_s
        bars.append(at_least("game requests/s", f"the other build's, {most} clients", rate, args.rate_factor))
        tail = game.latency(0.99) / other.latency(0.99)
        bars.append(at_most("game p99", f"the other build's, {most} clients", tail, args.tail_factor))
    return bars


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=1, help="as `poison serve` defaults to")
    parser.add_argument(
        "--clients", type=int, nargs="+", default=[16], help="concurrent games (and bare clients), each count in turn"
    )
    parser.add_argument("--moves", type=int, default=1000, help="moves per client, over all rounds")
    parser.add_argument("--rounds", type=int, default=4, help="turns of every server")
    parser.add_argument(
        "--server",
        choices=("auto", *SERVERS),
        default="auto",
        help="the bare route's server (auto: the one the running `poison serve` is on)",
    )
    parser.add_argument(
        "--against", metavar="PATH", help="another build: a checkout with its own .venv, or a Python interpreter"
    )
    parser.add_argument("--bar", type=float, default=0.5, help="least game/bare requests/s, at every client count")
    parser.add_argument(
        "--p99-factor", type=float, default=2.5, help="most game p99 over the bare route's, at the most clients"
    )
    parser.add_argument(
        "--rate-factor", type=float, default=1.0, help="least requests/s over the other build's, at the most clients"
    )
    parser.add_argument(
        "--tail-factor", type=float, default=1.0, help="most p99 over the other build's, at the most clients"
    )
    parser.add_argument(
        "--clocked",
        type=int,
        default=300,
        help="clocked games fired beside the load's clients after the rounds, at each client count (0: none)",
    )
    parser.add_argument("--clocked-at-once", type=int, default=32, help="clocked games alive at a time")
    parser.add_argument(
        "--clock-seconds", type=int, nargs="+", default=[1, 2], help="the clocked games' seconds a move, in turn"
    )
    parser.add_argument("--delay-bar", type=float, default=1.0, help="most firing delay at the p99 (seconds)")
    parser.add_argument(
        "--idle-seconds",
        type=float,
        default=10.0,
        help="seconds an idle service's store commands are counted, after the load (0: not counted)",
    )
    parser.add_argument(
        "--redis-url",
        help="a store of your own (e.g. one without fsync, to see what fsync costs); default: the embedded one",
    )
    parser.add_argument(
        "--cluster",
        action="store_true",
        help="the store on a local Redis Cluster of embedded servers (3 masters, a replica each: events/cluster.py), "
        "appends acknowledged once a replica has them (POISON_REDIS_WAIT's default)",
    )
    parser.add_argument(
        "--probe", action="store_true", help="time gc, loop lag, the app and the store inside the (one) worker"
    )
    args = parser.parse_args(argv)
    if args.probe and args.workers != 1:
        parser.error("--probe watches one worker: --workers 1")
    if args.cluster and args.redis_url is not None:
        parser.error("--cluster starts a store of its own: leave out --redis-url")
    if args.against is not None and (args.cluster or args.redis_url is not None):
        parser.error(
            "--against compares two builds each on its own embedded store: leave out --redis-url and --cluster"
        )
    if min(args.clients) < 1 or args.moves < 1 or args.rounds < 1 or args.workers < 1:
        parser.error("--clients, --moves, --rounds and --workers must be at least 1")
    if args.clocked < 0 or args.clocked_at_once < 1 or min(args.clock_seconds) < 1 or args.idle_seconds < 0:
        parser.error("--clocked and --idle-seconds must be at least 0, --clocked-at-once and --clock-seconds 1")
    out = console()
    # The cluster (with --cluster) is stopped last, whatever fails after it started.
    with tempfile.TemporaryDirectory(prefix="poison-load-") as data, contextlib.ExitStack() as cleanup:
        report = os.path.join(data, "probes.json") if args.probe else None
        # Found before anything starts, so that a wrong PATH costs no servers.
        other = other_build(args.against, data) if args.against is not None else None
        env = {k: v for k, v in os.environ.items() if not k.startswith("POISON_")}
        os.environ.clear()
        os.environ.update(env)
        if args.cluster:
            cluster = LocalCluster(os.path.join(data, "cluster"))
            args.redis_url = cluster.start()
            cleanup.callback(cluster.stop)
            print(f"store: a local cluster of {len(cluster.nodes)} nodes, given {redacted(args.redis_url)}")
        if args.redis_url is not None:  # in the environment, not the arguments, which `ps` shows
            os.environ["POISON_REDIS_URL"] = args.redis_url
        port = free_port()
        command = serve_command(sys.executable, port, args.workers, os.path.join(data, "store"), report)
        this = Target(THIS, GAME, command, port, cwd=HERE)
        targets = [this]
        cleanup.callback(this.stop)
        this.start()
        assert this.process is not None
        serving = served_by(this.process.pid)
        server: Server = serving if args.server == "auto" else args.server
        print(f"this build: {build_of(sys.executable, HERE)}; `poison serve` on {serving}, the bare route on {server}")
        port = free_port()
        targets.append(
            Target(
                bare_name(server),
                BARE,
                server_command(server, "benchmarks.bare:app", port, args.workers),
                port,
                cwd=HERE,
            )
        )
        if other is not None:
            python, cwd = other
            print(f"the other build: {build_of(python, cwd)}")
            port = free_port()
            # Its own environment: nothing of this checkout on its path.
            other_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            targets.append(
                Target(
                    OTHER,
                    GAME,
                    serve_command(python, port, args.workers, os.path.join(data, "other-store")),
                    port,
                    cwd=cwd,
                    env=other_env,
                )
            )
        for target in targets[1:]:
            cleanup.callback(target.stop)
            target.start()
        results: dict[int, dict[str, Measured]] = {}
        clocked: dict[int, Clocked] = {}
        for clients in args.clients:
            results[clients] = measure(targets, clients, args.moves, args.rounds)
            if args.clocked:
                phase_ = run(
                    clocked_phase(this.port, clients, args.clocked, args.clocked_at_once, args.clock_seconds, 7)
                )
                clocked[clients] = phase_
                print(
                    f"{clients} clients, clocked: {len(phase_.delays)} deadlines fired, delay {delay_spread(phase_)}; "
                    f"the load meanwhile {phase_.moves_per_s:,.0f} moves/s",
                    flush=True,
                )
        for target in targets:
            target.stop()
        probed = json.loads(Path(report).read_text()) if report is not None and os.path.exists(report) else None
        idle: Idle | None = None
        if args.idle_seconds > 0:
            idle = idle_commands(
                data, args.workers, args.idle_seconds, lambda port, n, d: serve_command(sys.executable, port, n, d)
            )
    out.print(
        figures_table(f"game traffic and the bare route, {args.workers} worker(s), {args.rounds} rounds", results)
    )
    problems = [
        problem for measured in results.values() for name, m in measured.items() for problem in m.problems(name)
    ]
    if args.probe:
        if probed is None:
            problems.append("the probes wrote no report")
        else:
            print_probes(probed)
    bars = load_bars(args, results, server)
    bars.append(Bar("no request failed, every move owed was made", f"{len(problems)} problems", not problems))
    if clocked:
        out.print(delays_table(clocked, args.workers))
        bars += delay_bars(clocked, args.delay_bar)
        missed = [problem for phase_ in clocked.values() for problem in phase_.problems]
        bars.append(
            Bar("every clocked game fired, no request beside them failed", f"{len(missed)} problems", not missed)
        )
        problems += missed
    if idle is not None:
        commands = ", ".join(f"{name} {per_s:.1f}" for name, per_s in sorted(idle.by_name.items(), key=lambda x: -x[1]))
        print(
            f"idle: {idle.workers} worker(s), {idle.per_s:.1f} store commands/s over {idle.seconds:.1f} s "
            f"({commands}); CPU: the store {idle.store_cpu:.1%} of a core, poison serve {idle.serve_cpu:.1%}"
        )
    out.print(bars_table(bars))
    for problem in problems[:10]:
        print(f"error: {problem}")
    for clients, phase_ in clocked.items():
        shown = " ".join(f"delay_{name}_ms={percentile(phase_.delays, q):.1f}" for q, name in DELAY_QUANTILES)
        print(
            f"clients={clients} clocked_games={phase_.games} fired={len(phase_.delays)} {shown} "
            f"delay_max_ms={max(phase_.delays, default=0) * 1000:.1f} moves_per_s={phase_.moves_per_s:.1f}"
        )
    if idle is not None:
        print(f"idle workers={idle.workers} store_commands_per_s={idle.per_s:.1f}")
    for clients, measured in results.items():
        game, bare = measured[THIS], measured[bare_name(server)]
        print(
            f"clients={clients} moves_per_s={game.tally.moves / game.seconds:.1f} "
            f"requests_per_s={game.requests_per_s:.1f} p50_ms={game.latency(0.5):.2f} "
            f"p99_ms={game.latency(0.99):.2f} errors={len(game.tally.errors)} "
            f"ratio={game.requests_per_s / bare.requests_per_s:.3f}"
        )
    return 0 if all(bar.met for bar in bars) else 1


if __name__ == "__main__":
    sys.exit(main())
