"""The `poison` command: serve the API, replay logs, simulate bots, play in a terminal."""

from __future__ import annotations

import argparse
import sys

from service.commands import play, replay, serve, simulate


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="poison",
        description="Poison, Reiner Knizia's card game of three cauldrons, and the pot game: the reference service "
        "and its tools.",
        epilog="Run 'poison COMMAND --help' for a command's options.",
    )
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in (serve, replay, simulate, play):
        command.add(commands)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return {"serve": serve.run, "replay": replay.run, "simulate": simulate.run, "play": play.run}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
