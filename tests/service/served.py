"""A real `poison serve` process for a test: started on a free port with its embedded store,
waited for until it answers, stopped (SIGTERM, then kill) when the test is done."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from events.server import free_port


@contextmanager
def serving(data_dir: Path, *, workers: int = 1, **settings: str) -> Iterator[str]:
    """The base URL of a `poison serve` with `workers` and the given POISON_* settings (and
    no other POISON_* variable of this process's environment)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("POISON_")} | settings
    command = [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--workers", str(workers)]
    process = subprocess.Popen(
        [*command, "--data-dir", str(data_dir)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"poison serve did not start: {process.communicate()[1][-2000:]}")
            time.sleep(0.1)
        yield base
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process.stderr is not None:
            process.stderr.close()
