"""The subcommands of `poison`: serve, replay, simulate, play. Each module has `add(parser)`
to declare its arguments and `run(args) -> exit code`; errors go to stderr."""

from __future__ import annotations

import sys

from rich.console import Console


class CommandError(Exception):
    """A clear message for the user and an exit code (2: bad usage or input, 1: failure)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def fail(command: str, error: Exception, code: int) -> int:
    print(f"poison {command}: {error}", file=sys.stderr)
    return code


def console(*, stderr: bool = False, **options: object) -> Console:
    """A rich console that never breaks lines of text; into a pipe or a file it is 120
    columns wide rather than rich's 80, so tables stay readable in logs."""
    probe = Console(stderr=stderr)
    width = None if probe.is_terminal else 120
    return Console(stderr=stderr, soft_wrap=True, width=width, **options)
