"""The `poison` command: serve the API, replay logs, show the archive, simulate bots, rate them on a ladder, play
in a terminal.

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

from service import i18n, parser_words
from service.commands import archive, ladder, play, replay, serve, simulate
from service.i18n import words

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
COMMANDS = {
    "serve": serve,
    "replay": replay,
    "archive": archive,
    "simulate": simulate,
    "ladder": ladder,
    "play": play,
}


class CommandParser(argparse.ArgumentParser):
    """A subcommand's parser that refuses what it does not know itself. argparse would hand
    unknown arguments up to the top level, whose error shows `poison`'s usage instead of the
    subcommand's."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(words()("cli.argparse.unrecognized", value=" ".join(extras)))
        return parsed, extras


def installed_version() -> str:
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "(version unknown: the package is not installed)"


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="poison",
        description=words()("cli.help.poison.description"),
        epilog=words()("cli.help.poison.epilog"),
    )
    top.add_argument(
        "--version", action="version", version=f"%(prog)s {installed_version()}", help=words()("cli.help.version")
    )
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=CommandParser)
    for command in COMMANDS.values():
        command.add(commands)
    for subcommand in commands.choices.values():
        subcommand.add_argument(
            "--lang",
            type=language,
            metavar="CODE",
            help=words()("cli.help.lang", codes=", ".join(i18n.codes())),
        )
    return top


def language(code: str) -> str:
    """An argparse type: a language the catalogues speak (service/static/i18n)."""
    if code not in i18n.codes():
        listed = ", ".join(f"{entry.code} ({entry.name})" for entry in i18n.languages().values())
        raise argparse.ArgumentTypeError(words()("cli.error.language", code=code, listed=listed))
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


def chosen_language(argv: Sequence[str]) -> str:
    """The language `--lang` names in `argv` (`--lang ru`, `--lang=ru`), else the locale's:
    read before the parser is built, so that its help and its errors are in it too. A
    `--lang` the catalogues do not speak is left for the parser to refuse."""
    for at, arg in enumerate(argv):
        code = arg.removeprefix("--lang=") if arg.startswith("--lang=") else None
        if arg == "--lang" and at + 1 < len(argv):
            code = argv[at + 1]
        if code in i18n.codes():
            return code
    return i18n.from_environment()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # Every word the command writes from here on is in this language, argparse's included.
    language = chosen_language(argv)
    i18n.use(language)
    with parser_words.speaking(language):
        args = parser().parse_args(argv)
    run: Callable[[argparse.Namespace], int] = RUNS.get(args.command, COMMANDS[args.command].run)
    try:
        code = run(args)
        sys.stdout.flush()  # here, where a reader that has gone is caught, not at exit
        return code
    except KeyboardInterrupt:
        # Whatever was on the screen (a progress bar) was put away as the exception left it.
        interrupted = words()("cli.error.interrupted")
        print(f"poison {args.command}: {interrupted}", file=sys.stderr)
        return INTERRUPTED
    except MemoryError as error:
        # A search bot's tree at a large budget is the one allocation a command may be refused.
        refused = words()("cli.error.memory", error=error)
        print(f"poison {args.command}: {refused}", file=sys.stderr)
        return FAILED
    except BrokenPipeError:
        # Python would complain again when it flushes stdout at exit: point it at nothing.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return READER_GONE


if __name__ == "__main__":
    sys.exit(main())
