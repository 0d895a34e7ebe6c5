"""Instructions a move of the service's application called in-process: valgrind's callgrind
over its ASGI callable driven directly, no server and no socket, so that a change to the
application's own request path (its wrappers, Litestar's route, a handler) is measured alone,
deterministically, whatever else the machine runs.

    python -m benchmarks.inprocess [--moves 300] [--out DIR] [--against PATH]

A move is what a player's turn costs: the GET of the game by the seat to move and its POST of
a legal move, in games of four seats (a new game when one ends). The store is a real embedded
Valkey in a process of its own, not counted. This process starts itself again under
`valgrind --tool=callgrind --instr-atstart=no`; that run builds the application as `poison
serve`'s worker does (`service.commands.serve:worker_app`), plays a warm-up untimed, turns
the collector off (a collection falling in one run and not another is noise), and counts the
moves alone (`callgrind_control -i on`, then `-d`). It prints the instructions a move and
exits 1 when a request failed, 2 without valgrind. `--out` keeps callgrind's files there,
for `callgrind_annotate`. `--against PATH` counts another checkout's application instead (its
own `.venv`, its own code, this file's driver), so that two builds are compared move for move.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import msgspec

from events.server import EmbeddedServer

SEATS = ("ana", "bob", "cy", "di")
#: Moves played before the count, so that every path is warm (caches, the router's).
WARM_UP = 100
NEW_GAME = msgspec.json.encode({"players": [{"name": name} for name in SEATS]})


def callgrind_control(*options: str) -> bool:
    """Whether this process is under callgrind and did as asked."""
    done = subprocess.run(["callgrind_control", *options, str(os.getpid())], capture_output=True, timeout=600)
    return done.returncode == 0


class Driver:
    """Calls an ASGI application as a server would, one request at a time."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def call(self, method: str, path: str, body: bytes = b"", token: str | None = None) -> tuple[int, bytes]:
        headers = [(b"host", b"bench"), (b"content-length", str(len(body)).encode())]
        if body:
            headers.append((b"content-type", b"application/json"))
        if token:
            headers.append((b"authorization", b"Bearer " + token.encode()))
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 50_000),
            "server": ("127.0.0.1", 8000),
        }
        sent = False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()  # the client stays: no disconnect
            raise AssertionError("unreachable")

        status, parts = 0, []

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            else:
                parts.append(message.get("body", b""))

        await self.app(scope, receive, send)
        return status, b"".join(parts)

    async def play(self, moves: int, rng: random.Random) -> None:
        """`moves` turns of games of four seats, each a GET and a POST; SystemExit(1) on any
        answer but the one due."""
        played = 0
        while played < moves:
            status, body = await self.call("POST", "/v1/games", NEW_GAME)
            created = self.expect(status, 201, body)
            game_id, turn = created["game_id"], created["game"]["turn"]
            tokens = {player["seat"]: player["token"] for player in created["players"]}
            while turn is not None and played < moves:
                status, body = await self.call("GET", f"/v1/games/{game_id}", token=tokens[turn])
                move = rng.choice(self.expect(status, 200, body)["you"]["legal_moves"])
                path = f"/v1/games/{game_id}/moves"
                status, body = await self.call("POST", path, msgspec.json.encode(move), token=tokens[turn])
                turn = self.expect(status, 201, body)["game"]["turn"]
                played += 1

    @staticmethod
    def expect(status: int, due: int, body: bytes) -> Any:
        if status != due:
            raise SystemExit(f"error: answered {status}, not {due}: {body[:300]!r}")
        return msgspec.json.decode(body)


async def counted(moves: int) -> None:
    """Under callgrind: warm up, then count `moves` alone and dump them."""
    from service.commands.serve import worker_app

    app: Any = worker_app()  # driven with plain dicts, as a server drives it
    messages: asyncio.Queue[dict[str, str]] = asyncio.Queue()
    await messages.put({"type": "lifespan.startup"})
    started = asyncio.Event()

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "lifespan.startup.complete":
            started.set()
        elif message["type"].endswith(".failed"):
            raise SystemExit(f"error: the application did not start: {message}")

    lifespan = asyncio.create_task(app({"type": "lifespan", "asgi": {"version": "3.0"}}, messages.get, send))
    await started.wait()
    driver, rng = Driver(app), random.Random(1)
    await driver.play(WARM_UP, rng)
    gc.collect()
    gc.disable()
    if not callgrind_control("-i", "on"):
        raise SystemExit("error: this process is not under callgrind")
    await driver.play(moves, rng)
    callgrind_control("-i", "off")
    callgrind_control("-d")
    gc.enable()
    await messages.put({"type": "lifespan.shutdown"})
    await lifespan


def play_counted(moves: int) -> None:
    data = Path(tempfile.mkdtemp(prefix="poison-inprocess-"))
    store = EmbeddedServer(data / "store")
    os.environ["POISON_REDIS_URL"] = store.start()
    os.environ["POISON_DATA_DIR"] = str(data)
    try:
        import uvloop

        uvloop.run(counted(moves))
    finally:
        store.stop()
        shutil.rmtree(data, ignore_errors=True)


def dumped_totals(out: Path) -> int:
    """The instructions of the one dump asked for (`callgrind_control -d` writes `out`.PID.1).
    Its `totals:`, not its `summary:`, which is 0 once instrumentation is off."""
    dumps = [path for path in out.parent.glob(out.name + ".*.1") if "\ndesc: Trigger: dump" in path.read_text()]
    found = re.search(r"^totals: (\d+)$", dumps[0].read_text(), re.M) if len(dumps) == 1 else None
    if found is None:
        raise SystemExit(f"error: no single callgrind dump with its totals beside {out}")
    return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--moves", type=int, default=300, help="moves counted (each a GET and a POST)")
    parser.add_argument("--out", type=Path, help="a directory to keep callgrind's files in")
    parser.add_argument("--against", type=Path, help="another checkout to count (with its .venv)")
    parser.add_argument("--play", type=int, help=argparse.SUPPRESS)  # the run under valgrind
    args = parser.parse_args(argv)
    if args.play is not None:
        play_counted(args.play)
        return 0
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("error: valgrind (with callgrind_control) is needed", file=sys.stderr)
        return 2
    out_dir = args.out or Path(tempfile.mkdtemp(prefix="poison-callgrind-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / "callgrind.moves.out"
    command = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        "--dump-instr=no",
        f"--callgrind-out-file={out}.%p",
    ]
    if args.against is None:
        command += [sys.executable, "-m", "benchmarks.inprocess", "--play", str(args.moves)]
    else:  # the other checkout's code first on the path, this driver run from its file
        run = f"import runpy, sys; sys.path.insert(0, '.'); sys.argv = ['inprocess', '--play', '{args.moves}']; "
        run += f"runpy.run_path({str(Path(__file__).resolve())!r}, run_name='__main__')"
        command += [str(args.against / ".venv" / "bin" / "python"), "-c", run]
    done = subprocess.run(
        command, cwd=args.against, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False
    )
    if done.returncode != 0:
        print(done.stderr[-2000:], file=sys.stderr)
        return 1
    instructions = dumped_totals(out)
    print(f"{instructions / args.moves:,.0f} instructions a move (GET + POST), in-process, {args.moves} moves")
    if args.out is None:
        shutil.rmtree(out_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
