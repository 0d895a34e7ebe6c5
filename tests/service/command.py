"""Running the `poison` command for the command line's tests: in this process through
`service.cli.main` (`poison_here`: what it writes and its exit status, as a pipe would take
them; most tests, since a process of its own takes a second or more to start on a loaded
machine), as a subprocess (`poison`), or in a real pseudo-terminal read through a terminal
emulator (`Terminal`, pyte), which shows what a person would see: colours, a redrawn board,
what Ctrl-C leaves behind. `assert_one_line_refusal` holds a result of any of them to what
every one-line refusal must be."""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import pyte
import pytest

#: The variables that change what a command writes where it does not write to a terminal:
#: rich reads FORCE_COLOR and TTY_COMPATIBLE (a console they make a terminal would redraw
#: and colour), NO_COLOR, COLUMNS and LINES; argparse reads COLUMNS for its help. A run
#: here has none of them, as a plain pipe in a bare shell, unless a test gives them.
DISPLAY_VARIABLES = ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES")


@contextlib.contextmanager
def _environment(changes: Mapping[str, str | None]) -> Iterator[None]:
    """os.environ with `changes` (None: unset) for the length of the block, then as it was."""
    before = {name: os.environ.get(name) for name in changes}
    try:
        _set_environment(changes)
        yield
    finally:
        _set_environment(before)


def _set_environment(values: Mapping[str, str | None]) -> None:
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def run_here(
    main: Callable[[list[str]], int],
    args: Sequence[str],
    *,
    stdin: str | bytes = "",
    env: Mapping[str, str | None] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`main(args)` run in this process as a shell would run its command with a pipe on
    each side: `stdin` its input (text, and bytes through `sys.stdin.buffer`), its output
    and errors caught as text, its exit status whether it returned it or argparse exited
    with it (usage errors 2, --help and --version 0). The environment is this process's
    without DISPLAY_VARIABLES, with `env`'s changes (None: unset), for the run only.

    What a run must leave as it found it is checked: the SIGINT and SIGTERM handlers and
    the working directory (a command that changed them would change every later test); the
    language it chose is put back."""
    from service import i18n

    data = stdin.encode() if isinstance(stdin, str) else stdin
    out, err = io.StringIO(), io.StringIO()
    # A run speaks its own language (--lang, the locale): the tests after it speak theirs.
    language = i18n.words().code
    handlers = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    cwd = os.getcwd()
    saved_stdin = sys.stdin
    changes: dict[str, str | None] = dict.fromkeys(DISPLAY_VARIABLES)
    changes.update(env or {})
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    try:
        with _environment(changes), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(list(args))
            except SystemExit as exited:  # argparse: a usage error, --help, --version
                code = exited.code
                status = code if isinstance(code, int) else 0 if code is None else 1
                if isinstance(code, str):
                    print(code, file=sys.stderr)
    finally:
        sys.stdin = saved_stdin
        i18n.use(language)
    assert {number: signal.getsignal(number) for number in handlers} == handlers, "a signal handler was left changed"
    assert os.getcwd() == cwd, "the working directory was left changed"
    return subprocess.CompletedProcess(list(args), status, out.getvalue(), err.getvalue())


def poison_here(
    *args: str, stdin: str | bytes = "", env: Mapping[str, str | None] | None = None
) -> subprocess.CompletedProcess[str]:
    """`poison ARGS` run to its end in this process (`run_here` says how), as `poison`
    runs it in a process of its own."""
    from service.cli import main

    return run_here(main, args, stdin=stdin, env=env)


def poison(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess:
    """`poison ARGS` run to its end, its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "service.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def read_through_isolates(text: str) -> str:
    """`text` without the FSI and PDI around each name (service.i18n.isolated): what a
    person reads, for the tests of what is said rather than of how names are kept apart
    (tests/service/test_cli_languages.py holds the isolates themselves)."""
    return text.replace("\u2068", "").replace("\u2069", "")


def poison_read(
    *args: str, stdin: str | bytes = "", env: Mapping[str, str | None] | None = None
) -> subprocess.CompletedProcess[str]:
    """`poison_here`, its output and errors as a person reads them (`read_through_isolates`)."""
    result = poison_here(*args, stdin=stdin, env=env)
    return subprocess.CompletedProcess(
        result.args, result.returncode, read_through_isolates(result.stdout), read_through_isolates(result.stderr)
    )


def assert_one_line_refusal(result: subprocess.CompletedProcess, command: str, says: str) -> None:
    """Refused as bad usage or input: status 2, nothing on stdout, one line on stderr naming
    the command, no traceback."""
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith(f"poison {command}: ")
    assert says in result.stderr


def assert_tampered_log_refused(path: Path, folder: Path, kind: str, tamper: Callable[[dict], object]) -> None:
    """The exported log at `path` with its first `kind` event after the tenth line changed
    by `tamper` (its data): `poison replay` refuses it in one line naming that event's version."""
    lines = path.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if f'"type":"{kind}"' in line and i > 10)
    event = json.loads(lines[index])
    tamper(event["data"])
    lines[index] = json.dumps(event)
    tampered = folder / "tampered.ndjson"
    tampered.write_text("\n".join(lines) + "\n")
    result = poison_read("replay", str(tampered))
    assert result.returncode == 1
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith(f"poison replay: invalid log: event {event['version']}: ")


@contextlib.contextmanager
def reaped(process: subprocess.Popen[bytes]) -> Iterator[subprocess.Popen[bytes]]:
    """`process`, killed and waited for when the block leaves it running (a test that
    failed half-way)."""
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def interrupted(process: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """Ctrl-C to `process` (SIGINT, as a terminal sends it); what it wrote to the end."""
    process.send_signal(signal.SIGINT)
    return process.communicate(timeout=60)


class Terminal:
    """`poison ARGS` running in a pseudo-terminal of `columns` x `lines`, as in a person's
    shell; what it writes is kept, and `screen()` is what the person would see."""

    def __init__(self, *args: str, columns: int = 100, lines: int = 30) -> None:
        self.columns, self.lines = columns, lines
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
        env = {k: v for k, v in os.environ.items() if k not in {"COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR"}}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "service.cli", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={**env, "TERM": "xterm-256color"},
            # As a shell starts a program: Ctrl-C interrupts it, even if this test runner
            # was started with SIGINT ignored (as background jobs of a script are).
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        os.close(slave)
        self.output = b""

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:  # a test that failed half-way: end what it started
            self.process.kill()
            self.process.wait()
            os.close(self.master)

    def read_until(self, wanted: bytes, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while wanted not in self.shown():
            if time.monotonic() > deadline or not self._read(deadline - time.monotonic()):
                pytest.fail(f"never saw {wanted!r} in {self.output[-300:]!r}")

    def answer(self, keys: bytes, until: bytes, timeout: float = 60) -> None:
        """Type `keys`, then read until `until` shows in what the program writes after them."""
        before = len(self.output)
        os.write(self.master, keys)
        deadline = time.monotonic() + timeout
        while until not in self.output[before:]:
            if time.monotonic() > deadline:
                pytest.fail(f"never saw {until!r} after {keys!r} in {self.output[before:][-500:]!r}")
            self._read(1)

    def wait(self, timeout: float = 60) -> int:
        """Read everything until the program ends; its exit status."""
        deadline = time.monotonic() + timeout
        while self._read(max(deadline - time.monotonic(), 0)):
            pass
        code = self.process.wait(max(deadline - time.monotonic(), 1))
        os.close(self.master)
        return code

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return False
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: every end of the terminal's other side is closed
            return False
        self.output += chunk
        return bool(chunk)

    def shown(self) -> bytes:
        """The output without the isolates around names (FSI, PDI): a terminal draws them as
        nothing, but pyte stops drawing a run of text at a zero-width character that does
        not combine with the one before."""
        return self.output.replace("\u2068".encode(), b"").replace("\u2069".encode(), b"")

    def screen(self) -> pyte.Screen:
        screen = pyte.Screen(self.columns, self.lines)
        pyte.ByteStream(screen).feed(self.shown())
        return screen


def shown_lines(screen: pyte.Screen) -> list[str]:
    return [line.rstrip() for line in screen.display if line.strip()]
