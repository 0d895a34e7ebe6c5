"""Which server is faster, measured: three yardsticks, each served by uvicorn and by granian,
side by side in one run, so that a choice of server rests on this machine's figures.

    python -m benchmarks.servers [--clients 16 [64 ...]] [--moves 400] [--rounds 4] [--no-serve]

The yardsticks, one worker each, every server on uvloop (uvicorn with httptools; granian's
ASGI interface without websockets: `benchmarks.load.uvicorn_command`, `granian_command`):

- raw: benchmarks/rawasgi.py, a plain ASGI function answering `GET /bare`, no framework: what
  the server alone costs a request;
- bare: benchmarks/bare.py, the bare Litestar JSON route: the server and the framework;
- game: the service's own application (`service.commands.serve:worker_app`, as a factory),
  its store an embedded Valkey this benchmark starts (POISON_REDIS_URL), played by
  benchmarks/load.py's clients as whole games.

Beside them (unless `--no-serve`), `poison serve` as its CLI starts it, on the same store,
on whichever server it runs on: what `serve`'s own configuration makes of its server. Every
round gives each its turn at each client count (the order turning round by round, so that a
noisy moment of this shared machine falls on all alike), with load.py's client and rounds.
It prints a table of requests/s, p50 and p99 of each yardstick under each server, granian's
requests/s over uvicorn's, the game over the bare route on each server (the load's ratio),
and which server is faster on the game traffic at the most clients. No bar: it exits 1 only
when a request failed or a move owed was not made.

A module of its own rather than a mode of load.py: load.py checks the bars of whatever
`poison serve` runs, against the bare route on that server and against another build; this
answers which server `serve` should run, and serves the application by each server's own
command. Both share load.py's client, targets and rounds (`benchmarks.load.measure`).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
from pathlib import Path

from rich.table import Table

from benchmarks.load import (
    BARE,
    GAME,
    HERE,
    SERVERS,
    Kind,
    Measured,
    Target,
    console,
    measure,
    serve_command,
    served_by,
    server_command,
)
from events.server import EmbeddedServer, free_port

#: The yardsticks: what each serves, the app each server is given, and whether it is a factory.
YARDSTICKS: dict[str, tuple[Kind, str, bool]] = {
    "raw": (BARE, "benchmarks.rawasgi:app", False),
    "bare": (BARE, "benchmarks.bare:app", False),
    "game": (GAME, "service.commands.serve:worker_app", True),
}
SERVE = "poison serve"


def name(yardstick: str, server: str) -> str:
    return f"{yardstick} ({server})"


def comparison(results: dict[int, dict[str, Measured]], serve_on: str | None) -> Table:
    """Each yardstick's figures under each server, side by side, and granian over uvicorn."""
    table = Table(
        title=f"the yardsticks under each server, one worker, uvloop ({platform.machine()}, {os.cpu_count()} cores)"
    )
    table.add_column("clients", justify="right")
    table.add_column("yardstick")
    for server in SERVERS:
        for column in ("requests/s", "p50", "p99"):
            table.add_column(f"{server} {column}", justify="right")
    table.add_column("granian ÷ uvicorn", justify="right")
    for clients, measured in results.items():
        rows = [*YARDSTICKS, SERVE] if serve_on is not None else [*YARDSTICKS]
        for yardstick in rows:
            cells, rates = [], {}
            for server in SERVERS:
                found = measured.get(name(yardstick, server)) if yardstick != SERVE else None
                if yardstick == SERVE and server == serve_on:
                    found = measured[SERVE]
                if found is None:
                    cells += ["", "", ""]
                    continue
                rates[server] = found.requests_per_s
                cells += [
                    f"{found.requests_per_s:,.0f}",
                    f"{found.latency(0.5):.2f} ms",
                    f"{found.latency(0.99):.2f} ms",
                ]
            ratio = f"{rates['granian'] / rates['uvicorn']:.2f}×" if len(rates) == 2 else ""
            table.add_row(str(clients), yardstick, *cells, ratio)
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--clients", type=int, nargs="+", default=[16, 64], help="concurrent clients, each count in turn"
    )
    parser.add_argument("--moves", type=int, default=400, help="moves per game client, over all rounds")
    parser.add_argument("--rounds", type=int, default=4, help="turns of every yardstick")
    parser.add_argument("--no-serve", action="store_true", help="leave out `poison serve` itself")
    args = parser.parse_args(argv)
    if min(args.clients) < 1 or args.moves < 1 or args.rounds < 1:
        parser.error("--clients, --moves and --rounds must be at least 1")
    env = {k: v for k, v in os.environ.items() if not k.startswith("POISON_")}
    os.environ.clear()
    os.environ.update(env)
    targets: list[Target] = []
    serve_on: str | None = None
    with tempfile.TemporaryDirectory(prefix="poison-servers-") as data:
        store = EmbeddedServer(Path(data) / "store")
        try:
            # In the environment, not the arguments, which `ps` shows; every game app shares it.
            os.environ["POISON_REDIS_URL"] = store.start()
            os.environ["POISON_DATA_DIR"] = os.path.join(data, "service")
            for yardstick, (kind, app, factory) in YARDSTICKS.items():
                for server in SERVERS:
                    port = free_port()
                    targets.append(
                        Target(
                            name(yardstick, server), kind, server_command(server, app, port, 1, factory), port, cwd=HERE
                        )
                    )
            if not args.no_serve:
                port = free_port()
                targets.append(
                    Target(
                        SERVE, GAME, serve_command(sys.executable, port, 1, os.path.join(data, "serve")), port, cwd=HERE
                    )
                )
            for target in targets:
                target.start()
            if not args.no_serve and targets[-1].process is not None:
                serve_on = served_by(targets[-1].process.pid)
            results = {clients: measure(targets, clients, args.moves, args.rounds) for clients in args.clients}
        finally:
            for target in targets:
                target.stop()
            store.stop()
    out = console()
    out.print(comparison(results, serve_on))
    for clients, measured in results.items():
        game, bare = (
            {server: measured[name(yardstick, server)].requests_per_s for server in SERVERS}
            for yardstick in ("game", "bare")
        )
        said = [f"{server} {game[server] / bare[server]:.3f}" for server in SERVERS]
        print(f"{clients} clients, game ÷ bare requests/s on the same server: {', '.join(said)}")
    most = max(results)
    rates = {server: results[most][name("game", server)].requests_per_s for server in SERVERS}
    faster = max(rates, key=lambda server: rates[server])
    slower = min(rates, key=lambda server: rates[server])
    print(
        f"faster on the game traffic at {most} clients: {faster}, "
        f"{rates[faster] / rates[slower]:.2f}× {slower}'s requests/s"
    )
    if serve_on is not None:
        print(f"`poison serve` runs on {serve_on}")
    problems = [
        problem for measured in results.values() for target, m in measured.items() for problem in m.problems(target)
    ]
    for problem in problems[:10]:
        print(f"error: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
