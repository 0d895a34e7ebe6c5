"""Running the `poison` command as a person would, for the command line's tests: as a
subprocess (`poison`, with the checks every one-line refusal must pass), or in a real
pseudo-terminal read through a terminal emulator (`Terminal`, pyte), which shows what a
person would see: colours, a redrawn board, what Ctrl-C leaves behind."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time

import pyte
import pytest


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


def assert_one_line_refusal(result: subprocess.CompletedProcess, command: str, says: str) -> None:
    """Refused as bad usage or input: status 2, nothing on stdout, one line on stderr naming
    the command, no traceback."""
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith(f"poison {command}: ")
    assert says in result.stderr


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
        while wanted not in self.output:
            if time.monotonic() > deadline or not self._read(deadline - time.monotonic()):
                pytest.fail(f"never saw {wanted!r} in {self.output[-300:]!r}")

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

    def screen(self) -> pyte.Screen:
        screen = pyte.Screen(self.columns, self.lines)
        pyte.ByteStream(screen).feed(self.output)
        return screen


def shown_lines(screen: pyte.Screen) -> list[str]:
    return [line.rstrip() for line in screen.display if line.strip()]
