"""The two tiers of the test suite, held to their word.

`make check` runs every test that carries none of the slow kinds' markers (pyproject.toml's
`markers`); `make test` runs them all. A test that starts a `poison` process (the CLI or
`poison serve`) without the `subprocess` marker would quietly make the fast tier slow, so
it fails here, naming the marker it needs. The session's own store (a valkey-server the
fixtures start) is no `poison` process and is allowed everywhere.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

#: The markers of the kinds of test that `make check` leaves out; any of them lets a test
#: start a `poison` process, since each of those kinds may need one.
SLOW_KINDS = ("subprocess", "faults", "cluster", "browser")
#: The `poison` script of this environment.
POISON_SCRIPT = Path(sys.executable).parent / "poison"


def starts_poison(args: Any) -> bool:
    """Whether a Popen's arguments run the `poison` command (`python -m service.cli`, or the
    `poison` script)."""
    argv = [str(arg) for arg in args] if isinstance(args, list | tuple) else [str(args)]
    return argv[:3] == [sys.executable, "-m", "service.cli"] or argv[:1] == [str(POISON_SCRIPT)]


class _Guard:
    """Wraps `subprocess.Popen` for the length of one unmarked test."""

    def __init__(self) -> None:
        self.original = subprocess.Popen.__init__
        self.offender: str | None = None

    def __enter__(self) -> _Guard:
        guard = self
        original = self.original

        def watched(popen: subprocess.Popen, args: Any, *rest: Any, **options: Any) -> None:
            if starts_poison(args):
                guard.offender = " ".join(str(arg) for arg in args) if isinstance(args, list | tuple) else str(args)
                raise AssertionError(
                    f"this test starts a poison process ({guard.offender}) without the `subprocess` marker: "
                    "mark it @pytest.mark.subprocess, or call service.cli.main(argv) in-process"
                )
            original(popen, args, *rest, **options)

        subprocess.Popen.__init__ = watched  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        subprocess.Popen.__init__ = self.original  # type: ignore[method-assign]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[object]:
    """An unmarked test's set-up, call and tear-down run under the guard."""
    if any(item.get_closest_marker(kind) for kind in SLOW_KINDS):
        return (yield)
    with _Guard():
        return (yield)
