"""Instructions per HTTP request, counted by valgrind's callgrind in the server alone: what a
request costs in user-space instructions, a figure the other jobs on a shared machine cannot
disturb (wall-clock time on it can).

    python -m benchmarks.instructions [--moves 400] [--clients 16] [--only game|bare|raw]
                                      [--server auto|uvicorn|granian]

Three servers under the same client (benchmarks/load.py's, outside valgrind), one worker each:

- game: `poison serve --workers 1`, its store an embedded Valkey this tool starts apart
  (`--redis-url`), so that only the worker runs under valgrind; the clients play whole games
  as load.py's players do (a GET of the seat to move, then its POST), `--moves` in all;
- bare: the bare Litestar endpoint (benchmarks/bare.py), load.py's yardstick;
- raw: the same answer from a raw ASGI app (benchmarks/rawasgi.py), no framework: the floor
  of any endpoint served this way;

bare and raw each under the HTTP server `poison serve` ran on while it was counted (read from
its processes, `benchmarks.load.served_by`), or the one `--server` names (uvicorn when the
game is not counted and none is named).

Each server starts under `valgrind --tool=callgrind --instr-atstart=no --trace-children=yes`
(counting off while Python starts; every process it starts followed, since a server may serve
from workers it spawns, as granian does), is warmed up untimed, then counted in each of its
processes (`callgrind_control -i on`) over the workload alone (`--clients` at once, each one
request at a time) and dumped (`callgrind_control -d`); the dumps' `summary:` lines, summed,
are the instructions. A server of which no process was counted fails the run. It prints a table of
requests, instructions, instructions a request and each against the bare endpoint, and exits
1 when a request failed, a move owed was not made or a count is missing; 2 without valgrind
(the test command does not run this; `make instructions` does).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from benchmarks.load import SERVERS as HTTP_SERVERS
from benchmarks.load import (
    Client,
    Server,
    Tally,
    bare_clients,
    descendants,
    phase,
    players,
    run,
    served_by,
    server_command,
    start,
    stop,
)
from events.server import EmbeddedServer, free_port

#: The servers counted, in the order they run, and what each is.
SERVERS = {
    "game": "poison serve, playing games",
    "bare": "bare Litestar endpoint",
    "raw": "raw ASGI app, no framework",
}
#: Seconds a server under valgrind may take to start answering (Python starts slowly there).
PATIENCE = 600.0
#: Requests each client makes to warm a yardstick up, untimed and uncounted.
WARM_UP = 50


@dataclass(frozen=True)
class Count:
    server: str
    requests: int
    instructions: int

    @property
    def per_request(self) -> float:
        """NaN when no request was answered (the run failed, and says why after its table)."""
        return self.instructions / self.requests if self.requests else float("nan")


def valgrind_command(out: Path, command: list[str]) -> list[str]:
    """`command` under callgrind, counting off until asked; with every process it starts
    (a server that serves from workers it spawns, as granian does, serves from them), each
    writing its own files, `out`.PID."""
    return [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        "--trace-children=yes",
        f"--callgrind-out-file={out}.%p",
        *command,
    ]


def dumped_instructions(out: Path, dumps_asked: int) -> int:
    """The instructions of the dumps asked for, summed over the server's processes
    (`callgrind_control -d` writes `out`.PID.1 for each; the file written when a process
    ends is not one, and its summary is not to be trusted)."""
    dumps = []
    for path in sorted(out.parent.glob(out.name + ".*")):
        text = path.read_text(errors="replace")
        found = re.search(r"^summary: (\d+)$", text, re.M)
        if "\ndesc: Trigger: dump" in text and found is not None:
            dumps.append(int(found.group(1)))
    if len(dumps) != dumps_asked:
        raise SystemExit(f"error: {len(dumps)} callgrind dumps beside {out}, not the {dumps_asked} asked for")
    return sum(dumps)


def callgrind_control(pid: int, *options: str) -> bool:
    """Whether process `pid` is under callgrind and did as asked (the server's processes
    that valgrind does not follow, or that ended, are not)."""
    done = subprocess.run(["callgrind_control", *options, str(pid)], capture_output=True, timeout=PATIENCE)
    return done.returncode == 0


def count(server: str, moves: int, clients: int, data: Path, on: Server) -> tuple[Count, list[str], Server]:
    """Count one server over its workload, the yardsticks served by `on`; also what went
    wrong (nothing, if all went well) and the HTTP server it ran on."""
    port, out = free_port(), data / f"callgrind.{server}.out"
    store: EmbeddedServer | None = None
    if server == "game":
        store = EmbeddedServer(data / "store")
        command = [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--workers", "1"]
        command += ["--redis-url", store.start()]
        health, each = "/health", max(1, moves // clients)
        warm: Client = players(port, max(1, each // 3), seed=-1)
        workload = players(port, each, seed=5)
    else:
        command = server_command(on, "benchmarks.bare:app" if server == "bare" else "benchmarks.rawasgi:app", port)
        health, each = "/bare", max(1, 2 * moves // clients)  # about as many requests as the games make
        warm, workload = bare_clients(port, WARM_UP), bare_clients(port, each)
    try:
        process = start(valgrind_command(out, command), port, health, PATIENCE, data / f"{server}.log")
        try:
            warmed, _ = run(phase(warm, clients))
            on = served_by(process.pid)
            counted = [pid for pid in descendants(process.pid) if callgrind_control(pid, "-i", "on")]
            tally, _ = run(phase(workload, clients))
            dumped = [pid for pid in counted if callgrind_control(pid, "-d")]
            for pid in counted:
                callgrind_control(pid, "-i", "off")
        finally:
            stop(process, PATIENCE)
    finally:
        if store is not None:
            store.stop()
    instructions = dumped_instructions(out, len(dumped))
    found = problems(server, warmed, tally, clients, each)
    if not dumped or instructions == 0:
        found.append(f"{server}: no instructions counted in its {len(counted)} processes under callgrind")
    return Count(server, len(tally.latencies), instructions), found, on


def problems(server: str, warmed: Tally, tally: Tally, clients: int, each: int) -> list[str]:
    """What went wrong in a server's run: a failed request (a client stops at its first),
    a move owed and not made, a request not answered."""
    found = [f"{server}: {error}" for error in (warmed.errors + tally.errors)[:5]]
    if server == "game" and tally.moves != clients * each:
        found.append(f"game: {tally.moves:,} of the {clients * each:,} moves were made")
    if server != "game" and len(tally.latencies) != clients * each:
        found.append(f"{server}: {len(tally.latencies):,} of the {clients * each:,} requests were answered")
    if not tally.latencies:
        found.append(f"{server}: no request was answered")
    return found


def report(counts: list[Count], moves: int, clients: int, on: str) -> None:
    bare = next((c for c in counts if c.server == "bare"), None)
    table = Table(
        title=f"instructions a request, one worker under callgrind, {clients} clients",
        caption=f"{platform.machine()}, Python {platform.python_version()}, valgrind's user-space instructions; "
        f"bare and raw under {on}",
    )
    for column in ("server", "requests", "instructions", "a request", "× bare"):
        table.add_column(column, justify="right")
    for c in counts:
        table.add_row(
            f"{c.server}: {SERVERS[c.server]}",
            f"{c.requests:,}",
            f"{c.instructions / 1e6:,.1f}M",
            f"{c.per_request / 1e3:,.0f}k",
            f"{c.per_request / bare.per_request:.2f}" if bare is not None else "",
        )
    Console(width=max(Console().width, 100)).print(table)
    game = next((c for c in counts if c.server == "game"), None)
    if game is not None and bare is not None:
        print(f"game/bare={game.per_request / bare.per_request:.2f} ({moves} moves asked, {clients} clients)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=400, help="moves the game's clients make in all")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients, each one request at a time")
    parser.add_argument("--only", choices=tuple(SERVERS), help="count one server only")
    parser.add_argument(
        "--server",
        choices=("auto", *HTTP_SERVERS),
        default="auto",
        help="the HTTP server of bare and raw (auto: the one poison serve ran on when counted, else uvicorn)",
    )
    args = parser.parse_args(argv)
    if args.moves < 1 or args.clients < 1:
        parser.error("--moves and --clients must be at least 1")
    missing = [tool for tool in ("valgrind", "callgrind_control") if shutil.which(tool) is None]
    if missing:
        print(f"this needs valgrind ({' and '.join(missing)} not found): apt-get install valgrind", file=sys.stderr)
        return 2
    counts: list[Count] = []
    failures: list[str] = []
    env = {k: v for k, v in os.environ.items() if not k.startswith("POISON_")}
    os.environ.clear()
    os.environ.update(env)
    with tempfile.TemporaryDirectory(prefix="poison-instructions-") as data:
        on: Server = "uvicorn" if args.server == "auto" else args.server
        for server in [args.only] if args.only else SERVERS:
            counted, wrong, ran_on = count(server, args.moves, args.clients, Path(data), on)
            if server == "game" and args.server == "auto":
                on = ran_on  # the yardsticks on the server the game was served by
            counts.append(counted)
            failures += wrong
    report(counts, args.moves, args.clients, on)
    for failure in failures:
        print(f"error: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
