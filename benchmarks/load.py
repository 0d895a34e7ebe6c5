"""Load benchmark: concurrent games over HTTP against `poison serve`, measured against a bare
Litestar endpoint served the same way, in the same run, at the same concurrency.

    python -m benchmarks.load [--workers 1] [--clients 16] [--moves 1000] [--rounds 4]
                              [--bar 0.5] [--p99-bar MS] [--probe] [--redis-url URL | --cluster]

It starts `poison serve` (N workers, embedded store in a temporary directory) and
uvicorn serving benchmarks/bare.py (N workers). M clients, each on its own keep-alive
connection, each play whole games (all four seats of one game at a time: a GET of the
seat to move, then its POST, so two requests a move) until M x moves are made; each
round of game traffic is followed by as many GETs to the bare endpoint from the same M
clients. It prints each round, the latencies of both (p50, p90, p99, p99.9, max), the
clients' own CPU (a client process near 100% of a core would be the bottleneck), and
last `moves_per_s=… requests_per_s=… p50_ms=… p99_ms=… errors=… ratio=…`, where `ratio`
is the game traffic's requests/s over the bare endpoint's. It exits 1 when a request
failed, a move owed was not made, ratio is below --bar (0.5, issue 15) or, with
--p99-bar, the game's p99 is above it (issue 15: 20 ms at 64 clients). Every request loop
is bounded and only talks to 127.0.0.1.

After the latencies, one line of closed-loop arithmetic (Little's law): M clients each with
one request in flight and no think time make the mean latency M / throughput, so a p99 of at
most X ms needs at least M / X requests/s (the mean stays below the p99 unless the slowest
1% are extreme). With --p99-bar it prints that throughput, as requests/s and as a ratio to
this run's bare endpoint (above 1: not even the framework alone, served the same way, could
meet the bar at this concurrency), the bare endpoint's own p99 beside the bar, and what the
bar needs if the game's tail were as long as the bare endpoint's (its p99 over its mean).

`--probe` runs the service under benchmarks/probes.py and reports what happened inside
its worker: garbage collections, event-loop lag, each route's time, each store command's
round trip, the store's slow fsyncs. `--redis-url` serves from a store of your own (one
without fsync, say, to see what fsync costs); `--cluster` from a local Redis Cluster of
embedded servers (3 masters and a replica of each, events/cluster.py), which it forms in the
temporary directory and stops at the end.

The client is a few lines of HTTP/1.1 on an asyncio protocol, on uvloop, not httpx: a
heavier client would eat the CPU the servers share with it (two cores) and flatter the
ratio.
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
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from benchmarks.probes import LATENCY_THRESHOLD_MS
from events.cluster import LocalCluster
from events.credentials import redacted
from events.server import free_port

HOST = "127.0.0.1"
T = TypeVar("T")


class Connection(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection, one request at a time. A protocol rather than
    asyncio's streams: an answer is parsed once when its last byte arrives, and its awaiter
    woken once (streams woke it for every header line). With uvloop (`run`), the clients
    take less of the CPU the servers share with them (figures: docs/performance.md)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.transport: asyncio.Transport | None = None
        self.buffer = b""
        self.answer: asyncio.Future[tuple[int, bytes]] | None = None
        self.lost: Exception | None = None

    async def request(self, method: str, path: str, body: bytes = b"", token: str | None = None) -> tuple[int, bytes]:
        loop = asyncio.get_running_loop()
        if self.transport is None or self.lost is not None:
            self.buffer, self.lost = b"", None
            await loop.create_connection(lambda: self, HOST, self.port)
        assert self.transport is not None
        head = f"{method} {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Length: {len(body)}\r\n"
        if body:
            head += "Content-Type: application/json\r\n"
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        self.answer = loop.create_future()
        self.transport.write(head.encode() + b"\r\n" + body)
        return await self.answer

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0 or self.answer is None or self.answer.done():
            return
        head = self.buffer[:end].lower()
        at = head.find(b"\r\ncontent-length:")
        length = 0
        if at >= 0:  # 17: the length of "\r\ncontent-length:"
            stop = head.find(b"\r\n", at + 17)
            length = int(head[at + 17 : stop if stop >= 0 else None])
        if len(self.buffer) < end + 4 + length:
            return
        status = int(head[9:12])
        body, self.buffer = self.buffer[end + 4 : end + 4 + length], self.buffer[end + 4 + length :]
        self.answer.set_result((status, body))

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = exc or ConnectionResetError("the server closed the connection")
        if self.answer is not None and not self.answer.done():
            self.answer.set_exception(self.lost)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()
            self.transport = None


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    moves: int = 0
    cpu: float = 0.0  # the clients' process's CPU seconds

    def absorb(self, other: Tally) -> None:
        self.latencies += other.latencies
        self.errors += other.errors
        self.moves += other.moves
        self.cpu += other.cpu

    async def timed(
        self, connection: Connection, method: str, path: str, body: bytes = b"", token: str | None = None
    ) -> tuple[int, bytes]:
        started = time.perf_counter()
        try:
            status, body = await connection.request(method, path, body, token)
        except (OSError, ValueError) as error:
            self.errors.append(repr(error))
            connection.close()
            return 0, b""
        self.latencies.append(time.perf_counter() - started)
        if status >= 400:
            self.errors.append(f"{status} {body[:200]!r}")
        return status, body


NEW_GAME = msgspec.json.encode({"players": [{"name": n} for n in ("ana", "bob", "cy", "di")]})


async def play_games(port: int, moves: int, tally: Tally, rng: random.Random) -> None:
    connection = Connection(port)
    made = 0
    try:
        while made < moves:
            status, body = await tally.timed(connection, "POST", "/v1/games", NEW_GAME)
            if status != 201:
                return
            created = msgspec.json.decode(body)
            game_id, turn = created["game_id"], created["game"]["turn"]
            tokens = {p["seat"]: p["token"] for p in created["players"]}
            while turn is not None and made < moves:
                status, body = await tally.timed(connection, "GET", f"/v1/games/{game_id}", token=tokens[turn])
                if status != 200:
                    return
                move = rng.choice(msgspec.json.decode(body)["you"]["legal_moves"])
                status, body = await tally.timed(
                    connection, "POST", f"/v1/games/{game_id}/moves", msgspec.json.encode(move), token=tokens[turn]
                )
                if status != 201:
                    return
                turn = msgspec.json.decode(body)["game"]["turn"]
                made += 1
                tally.moves += 1
    finally:
        connection.close()


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
    command: list[str], port: int, path: str, patience: float = 30.0, log: Path | None = None
) -> subprocess.Popen[bytes]:
    """Start a server and wait (at most `patience` seconds) until `path` answers 200. Its
    standard error goes to `log` when given (a server that writes much there, as one under
    valgrind, would fill an unread pipe and stall), else to a pipe read if it fails."""
    with open(log, "wb") if log is not None else contextlib.nullcontext(subprocess.PIPE) as stderr:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr)
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


def uvicorn_command(app: str, port: int, workers: int = 1) -> list[str]:
    """uvicorn serving `app` ("module:attribute") as the benchmarks serve their yardsticks."""
    return [
        sys.executable,
        "-m",
        "uvicorn",
        app,
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--log-level",
        "warning",
        "--no-access-log",
    ]


def stop(process: subprocess.Popen[bytes], patience: float = 15.0) -> None:
    process.terminate()
    try:
        process.wait(patience)
    except subprocess.TimeoutExpired:
        process.kill()


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


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run the clients on uvloop, the loop the servers run on, if it is installed
    (uvicorn[standard] brings it); else on asyncio's."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)


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


def server_command(args: argparse.Namespace, port: int, data: str, report: str | None) -> list[str]:
    """`poison serve` on `port`, its store in `data`; with a report path, under the probes."""
    serve = ["serve", "--port", str(port), "--workers", str(args.workers), "--data-dir", data]
    if report is not None:
        return [sys.executable, "-m", "benchmarks.probes", report, *serve]
    return [sys.executable, "-m", "service.cli", *serve]


def print_probes(report: dict[str, Any], seconds: float) -> None:
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


def closed_loop(
    clients: int, game_per_s: float, game: list[float], bare_per_s: float, bare: list[float], p99_bar: float | None
) -> str:
    """Little's law for this run's closed loop: `clients` each with one request in flight
    and no pause between, so the mean latency is clients / throughput (the game's measured
    mean beside it). The mean is below the p99 unless the slowest 1% are extreme, so a p99
    of at most `p99_bar` ms needs at least clients / p99_bar requests/s: that throughput, as
    a ratio to this run's bare endpoint, and the bare endpoint's own p99 beside the bar."""
    said = (
        f"closed loop, {clients} clients: mean latency = clients / throughput = "
        f"{clients / game_per_s * 1000:.2f} ms (game, measured {statistics.fmean(game) * 1000:.2f} ms)"
    )
    if p99_bar is None:
        return said
    needed = clients / (p99_bar / 1000)
    # A tail as long as the bare endpoint's (its p99 over its mean) asks for more: the
    # mean must then sit that much below the bar.
    tail = percentile(bare, 0.99) / 1000 / statistics.fmean(bare)
    return (
        f"{said}; p99 ≤ {p99_bar:g} ms needs ≥ {needed:,.0f} requests/s, {needed / bare_per_s:.2f}× this run's "
        f"bare endpoint ({bare_per_s:,.0f}/s), whose own p99 is {percentile(bare, 0.99):.2f} ms; "
        f"with its tail (p99 {tail:.2f}× the mean), ≥ {needed * tail:,.0f}/s, {needed * tail / bare_per_s:.2f}×"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=1, help="as `poison serve` defaults to")
    parser.add_argument("--clients", type=int, default=16, help="concurrent games (and bare clients)")
    parser.add_argument("--moves", type=int, default=1000, help="moves per client, over all rounds")
    parser.add_argument("--rounds", type=int, default=4, help="alternations of game and bare traffic")
    parser.add_argument("--bar", type=float, default=0.5, help="least ratio (game over bare requests/s)")
    parser.add_argument("--p99-bar", type=float, help="most game p99 latency, in ms (default: not checked)")
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
    game_port, bare_port = free_port(), free_port()
    games, baseline = Tally(), Tally()
    game_seconds = bare_seconds = 0.0
    # The cluster (with --cluster) is stopped last, whatever fails after it started.
    with tempfile.TemporaryDirectory(prefix="poison-load-") as data, contextlib.ExitStack() as cleanup:
        report = os.path.join(data, "probes.json") if args.probe else None
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
        game = start(server_command(args, game_port, os.path.join(data, "store"), report), game_port, "/health")
        bare = start(uvicorn_command("benchmarks.bare:app", bare_port, args.workers), bare_port, "/bare")
        try:
            # Warm up both (connections, first games, code paths) untimed, then alternate
            # game and bare traffic so that a noisy moment of this shared machine falls on
            # both alike; `ratio` is over all rounds.
            run(phase(players(game_port, 25, seed=-10_000), args.clients))
            run(phase(bare_clients(bare_port, 50), args.clients))
            moves_each = args.moves // args.rounds
            for round_ in range(args.rounds):
                played, seconds = run(phase(players(game_port, moves_each, seed=round_ * 1000), args.clients))
                requests_each = max(1, len(played.latencies) // args.clients)
                hit, bare_round_seconds = run(phase(bare_clients(bare_port, requests_each), args.clients))
                print(
                    f"round {round_ + 1}: game {len(played.latencies) / seconds:,.0f} requests/s, "
                    f"bare {len(hit.latencies) / bare_round_seconds:,.0f}/s, "
                    f"ratio {len(played.latencies) / seconds / (len(hit.latencies) / bare_round_seconds):.3f}; "
                    f"game p99 {percentile(played.latencies, 0.99):.2f} ms; "
                    f"clients' CPU {played.cpu / seconds:.0%} of a core (game), "
                    f"{hit.cpu / bare_round_seconds:.0%} (bare)"
                )
                games.absorb(played)
                baseline.absorb(hit)
                game_seconds += seconds
                bare_seconds += bare_round_seconds
        finally:
            stop(game)
            stop(bare)
        probed = json.loads(Path(report).read_text()) if report is not None and os.path.exists(report) else None
    errors = len(games.errors) + len(baseline.errors)
    requests_per_s = len(games.latencies) / game_seconds
    bare_per_s = len(baseline.latencies) / bare_seconds
    ratio = requests_per_s / bare_per_s
    print(
        f"workers={args.workers} clients={args.clients} moves={games.moves} requests={len(games.latencies)} "
        f"in {game_seconds:.1f} s; bare: {len(baseline.latencies)} requests in {bare_seconds:.1f} s "
        f"({bare_per_s:,.0f}/s)"
    )
    print(f"game latency: {spread(games.latencies)}")
    print(f"bare latency: {spread(baseline.latencies)}")
    print(closed_loop(args.clients, requests_per_s, games.latencies, bare_per_s, baseline.latencies, args.p99_bar))
    print(
        f"clients' CPU: {games.cpu / game_seconds:.0%} of a core in the game rounds, "
        f"{baseline.cpu / bare_seconds:.0%} in the bare rounds"
    )
    if args.probe:
        if probed is None:
            print("error: the probes wrote no report")
            errors += 1
        else:
            print_probes(probed, game_seconds)
    for error in (games.errors + baseline.errors)[:5]:
        print(f"error: {error}")
    # A client stops at the first answer it did not expect, so every move must have been made.
    owed = args.clients * moves_each * args.rounds
    if games.moves != owed:
        print(f"error: {games.moves:,} of the {owed:,} moves were made")
    p50, p99 = percentile(games.latencies, 0.5), percentile(games.latencies, 0.99)
    failed = errors > 0 or games.moves != owed
    if ratio < args.bar:
        print(f"below the bar: ratio {ratio:.3f} < {args.bar}")
        failed = True
    if args.p99_bar is not None and p99 > args.p99_bar:
        print(f"above the bar: game p99 {p99:.2f} ms > {args.p99_bar} ms")
        failed = True
    print(
        f"moves_per_s={games.moves / game_seconds:.1f} requests_per_s={requests_per_s:.1f} "
        f"p50_ms={p50:.2f} p99_ms={p99:.2f} errors={errors} ratio={ratio:.3f}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
