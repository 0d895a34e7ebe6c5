"""The `poison` command: serve the API, replay logs, simulate bots, rate them on a ladder, play in a terminal.

What every command shares is done here, once: `poison --version`; a subcommand's mistakes
shown with that subcommand's usage; Ctrl-C ending any command with one line on stderr and
exit status 130, as shells report an interrupted program; output cut short by its reader
(`poison replay game.ndjson | head`) ending quietly. docs/cli.md describes every command.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from service import i18n
from service.commands import ladder, play, replay, serve, simulate

#: The distribution whose version `poison --version` shows (pyproject.toml's name).
DISTRIBUTION = "poison"
#: The exit status of a command ended by Ctrl-C (130), as shells report a program SIGINT ended.
INTERRUPTED = 128 + signal.SIGINT
#: The exit status when whoever read the output stopped reading: 1, as rich's consoles
#: end then (rich.console.Console.on_broken_pipe), so every command ends the same way.
READER_GONE = 1
#: The exit status of a command that could not do its work (an unreachable store, no memory).
FAILED = 1

#: Each command's module: `add(commands)` declares it, `run(args)` runs it.
COMMANDS = {"serve": serve, "replay": replay, "simulate": simulate, "ladder": ladder, "play": play}


class CommandParser(argparse.ArgumentParser):
    """A subcommand's parser that refuses what it does not know itself. argparse would hand
    unknown arguments up to the top level, whose error shows `poison`'s usage instead of the
    subcommand's."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


def installed_version() -> str:
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "(version unknown: the package is not installed)"


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="poison",
        description="Poison, Reiner Knizia's card game of three cauldrons, and the pot game: the reference service "
        "and its tools.",
        epilog="Run 'poison COMMAND --help' for a command's options.",
    )
    top.add_argument(
        "--version", action="version", version=f"%(prog)s {installed_version()}", help="show poison's version and exit"
    )
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=CommandParser)
    for command in COMMANDS.values():
        command.add(commands)
    for subcommand in commands.choices.values():
        subcommand.add_argument(
            "--lang",
            type=language,
            metavar="CODE",
            help=f"the language of what the command writes: {', '.join(i18n.codes())} "
            "(default: from LC_ALL, LC_MESSAGES or LANG, else en)",
        )
    return top


def language(code: str) -> str:
    """An argparse type: a language the catalogues speak (service/static/i18n)."""
    if code not in i18n.codes():
        listed = ", ".join(f"{entry.code} ({entry.name})" for entry in i18n.languages().values())
        raise argparse.ArgumentTypeError(f"no language '{code}': choose one of {listed}")
    return code


def play_here_or_on_a_server(args: argparse.Namespace) -> int:
    """`poison play`: here, or on the server --server names (service.commands.remote, and
    httpx with it, loaded only then)."""
    if args.server is None:
        return play.run(args)
    from service.commands import remote

    return remote.run(args)


#: The commands run otherwise than by their module's `run`.
RUNS: dict[str, Callable[[argparse.Namespace], int]] = {"play": play_here_or_on_a_server}


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    # Every word the command writes from here on is in this language.
    i18n.use(args.lang or i18n.from_environment())
    run: Callable[[argparse.Namespace], int] = RUNS.get(args.command, COMMANDS[args.command].run)
    try:
        code = run(args)
        sys.stdout.flush()  # here, where a reader that has gone is caught, not at exit
        return code
    except KeyboardInterrupt:
        # Whatever was on the screen (a progress bar) was put away as the exception left it.
        print(f"poison {args.command}: interrupted", file=sys.stderr)
        return INTERRUPTED
    except MemoryError as error:
        # A search bot's tree at a large budget is the one allocation a command may be refused.
        print(f"poison {args.command}: out of memory: {error}", file=sys.stderr)
        return FAILED
    except BrokenPipeError:
        # Python would complain again when it flushes stdout at exit: point it at nothing.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return READER_GONE


if __name__ == "__main__":
    sys.exit(main())
