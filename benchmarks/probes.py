"""Probes inside a `poison serve` worker, for the load benchmark: where a request's tail
comes from. `python -m benchmarks.load --probe` starts the service as

    python -m benchmarks.probes REPORT.json serve --port … --workers 1 …

which is `poison serve` itself with, in its (only) worker process:

- **garbage collection**: every collection timed, by generation (`gc.callbacks`);
- **event-loop stalls**: a task that sleeps `LAG_PERIOD` and records how late it wakes
  (every callback queued behind a busy turn of the loop waits as long);
- **the application**: each request's time from the worker's ASGI call to its last body
  byte handed to the protocol, by route (game read, move, new game);
- **the store**: each store command's round trip as the worker sees it (its send to the
  reply's coroutine running again), appends apart from reads;
- **the store's fsync**: the embedded server's own latency monitor (`aof-fsync-always`
  events of 1 ms and more) read at the end.

The report is written as JSON when the service stops. The probes wrap what they time and
change nothing else; they add a little to every request, so figures with them are not the
bare benchmark's (`--probe` says so).
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable
from functools import wraps
from pathlib import Path
from typing import Any, cast

#: How often the loop-lag task wakes (seconds).
LAG_PERIOD = 0.002
#: Where the report goes (set by `python -m benchmarks.probes REPORT.json …`).
REPORT_VARIABLE = "LOAD_PROBE_REPORT"
#: The store's latency monitor records events at least this long (ms).
LATENCY_THRESHOLD_MS = 1


class Probes:
    def __init__(self) -> None:
        self.gc: dict[str, list[float]] = {"0": [], "1": [], "2": []}
        self.gc_cpu: dict[str, float] = {"0": 0.0, "1": 0.0, "2": 0.0}  # CPU seconds, by generation
        self.cpu = 0.0  # the worker's CPU seconds while it served
        self.lag: list[float] = []
        self.app: dict[str, list[float]] = {}
        self.store: dict[str, list[float]] = {}
        self.fsync: list[list[int]] = []
        self.loop = ""  # the event loop's class
        self.serving = False  # from the lifespan's start to its end: what start-up does is not timed
        self._gc_started = self._gc_cpu_started = 0.0

    def on_gc(self, phase: str, info: dict[str, int]) -> None:
        # CPU time besides wall time: on a shared machine a pause's wall time includes
        # whatever else ran meanwhile.
        if not self.serving:
            return
        if phase == "start":
            self._gc_started, self._gc_cpu_started = time.perf_counter(), time.thread_time()
        else:
            generation = str(info["generation"])
            self.gc[generation].append(time.perf_counter() - self._gc_started)
            self.gc_cpu[generation] += time.thread_time() - self._gc_cpu_started

    async def watch_loop(self) -> None:
        while True:
            due = time.perf_counter() + LAG_PERIOD
            await asyncio.sleep(LAG_PERIOD)
            self.lag.append(time.perf_counter() - due)

    def report(self) -> dict[str, Any]:
        return {
            "loop": self.loop,
            "cpu": self.cpu,
            "gc_cpu": self.gc_cpu,
            "gc": self.gc,
            "lag": self.lag,
            "app": self.app,
            "store": self.store,
            "fsync": self.fsync,
        }


PROBES = Probes()


def route(scope: dict[str, Any]) -> str:
    method, path = scope["method"], scope["path"]
    if path.endswith("/moves"):
        return "move"
    if path.rstrip("/") == "/v1/games":
        return "new game" if method == "POST" else "list"
    return "read" if path.startswith("/v1/games/") else "other"


def timed_app(app: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
    """The application, each HTTP request timed; the loop-lag task started with the
    lifespan, the store's fsync figures read at its end."""

    async def probed(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await app(scope, lifespan_receive(receive), send)
            return
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        started = time.perf_counter()
        times = PROBES.app.setdefault(route(scope), [])

        async def timed_send(message: dict[str, Any]) -> None:
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                times.append(time.perf_counter() - started)

        await app(scope, receive, timed_send)

    return probed


def lifespan_receive(receive: Any) -> Any:
    watcher: list[asyncio.Task[None]] = []

    async def probed_receive() -> dict[str, Any]:
        message = await receive()
        if message["type"] == "lifespan.startup":
            loop = asyncio.get_running_loop()
            PROBES.loop = f"{type(loop).__module__}.{type(loop).__qualname__}"
            PROBES.cpu = -time.process_time()
            PROBES.serving = True
            watcher.append(loop.create_task(PROBES.watch_loop()))
            await store_latency("CONFIG", "SET", "latency-monitor-threshold", str(LATENCY_THRESHOLD_MS))
        elif message["type"] == "lifespan.shutdown":
            PROBES.cpu += time.process_time()
            PROBES.serving = False
            for task in watcher:
                task.cancel()
            PROBES.fsync = await store_latency("LATENCY", "HISTORY", "aof-fsync-always") or []
            Path(os.environ[REPORT_VARIABLE]).write_text(json.dumps(PROBES.report()))
        return message

    return probed_receive


async def store_latency(*command: str) -> Any:
    """A command to the store's latency monitor, on a connection of its own."""
    import redis.asyncio as aioredis

    client = aioredis.from_url(os.environ["POISON_REDIS_URL"])
    try:
        return await client.execute_command(*command)
    finally:
        await client.aclose()


def time_store() -> None:
    """Each store command's round trip, appends (the move's script) apart from reads."""
    from events.calls import StoreCalls
    from events.clocks import CLAIM, SETTLE

    execute, script = StoreCalls.execute, StoreCalls.script
    # The clocks' scripts, which every worker runs every tick, apart from the appends'.
    named = {CLAIM: "script (clock claim)", SETTLE: "script (clock settle)"}

    @wraps(execute)
    async def timed_execute(self: StoreCalls, *command: Any, **options: Any) -> Any:
        started = time.perf_counter()
        try:
            return await execute(self, *command, **options)
        finally:
            PROBES.store.setdefault(str(command[0]).lower(), []).append(time.perf_counter() - started)

    @wraps(script)
    async def timed_script(self: StoreCalls, which: Any, keys: list[str], args: list[Any], **options: Any) -> Any:
        started = time.perf_counter()
        try:
            return await script(self, which, keys, args, **options)
        finally:
            PROBES.store.setdefault(named.get(which, "script (append)"), []).append(time.perf_counter() - started)

    calls: Any = StoreCalls  # every part's calls replaced by their timed selves
    calls.execute, calls.script = timed_execute, timed_script


def install() -> None:
    """Wrap the application factory `poison serve` hands to uvicorn, time the store and
    the collector. Only for one worker: the probes live in this process."""
    from service.commands import serve

    factory, module = serve.worker_app, cast(Any, serve)
    module.worker_app = lambda: timed_app(factory())
    time_store()
    gc.callbacks.append(PROBES.on_gc)


def main(argv: list[str]) -> int:
    if len(argv) < 2 or ("--workers" in argv and argv[argv.index("--workers") + 1] != "1"):
        raise SystemExit("usage: python -m benchmarks.probes REPORT.json serve … (one worker)")
    os.environ[REPORT_VARIABLE] = argv[0]
    install()
    from service.cli import main as poison

    return poison(argv[1:])


if __name__ == "__mp_main__" and REPORT_VARIABLE in os.environ:
    # A worker the server spawned (granian spawns its workers; multiprocessing runs the
    # parent's main module again in each under this name): the probes again, in the process
    # that serves. A worker forked, or one served in the parent's process, has them already.
    install()

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
