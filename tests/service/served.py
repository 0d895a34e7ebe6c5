"""A real `poison serve` process for a test: started on a free port with its embedded store,
waited for until it answers, stopped (SIGTERM, then kill) when the test is done. The pieces
(`command`, `environment`, `wait_until_up`, `stop`, `children`) serve every test that runs
its own `poison serve` (tests/service/test_serve.py, tests/reliability)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from events.server import free_port

#: How long a `poison serve` may take to answer its first request.
START_SECONDS = 30


def command(port: int, *flags: str, workers: int = 1, data_dir: Path | None = None) -> list[str]:
    """The command line of a `poison serve` on `port` (with its data in `data_dir`, if any)."""
    found = [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--workers", str(workers)]
    return [*found, *(["--data-dir", str(data_dir)] if data_dir is not None else []), *flags]


def environment(**settings: str) -> dict[str, str]:
    """This process's environment without its POISON_* variables, with `settings`."""
    return {k: v for k, v in os.environ.items() if not k.startswith("POISON_")} | settings


def answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def wait_until_up(process: subprocess.Popen, url: str, said: Callable[[], str] = lambda: "") -> None:
    """Wait until `url` answers 200; a process that exits or takes too long is killed and
    fails the test with the end of what it `said`."""
    deadline = time.monotonic() + START_SECONDS
    while not answers(url):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            process.wait()
            pytest.fail(f"poison serve did not start: {said()[-2000:]}")
        time.sleep(0.1)


def stop(process: subprocess.Popen, seconds: float = 20) -> int:
    """Stop `process` as an orchestrator does (SIGTERM, then kill after `seconds`); its exit
    status."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            return process.wait(seconds)
        except subprocess.TimeoutExpired:
            process.kill()
    return process.wait()


def children(process: subprocess.Popen) -> list[int]:
    """The ids of the processes `process` started (its store, its workers)."""
    listed = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout
    return list(map(int, listed.split()))


@contextmanager
def serving(data_dir: Path, *, workers: int = 1, **settings: str) -> Iterator[str]:
    """The base URL of a `poison serve` with `workers` and the given POISON_* settings (and
    no other POISON_* variable of this process's environment)."""
    port = free_port()
    process = subprocess.Popen(
        command(port, workers=workers, data_dir=data_dir),
        env=environment(**settings),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(process, f"{base}/health", lambda: process.communicate()[1])
        yield base
    finally:
        stop(process, 15)
        if process.stderr is not None:
            process.stderr.close()
