"""`poison replay`: check an exported log (or a stored game) and show it, whatever its
ruleset: Poison round by round, the pot game pot by pot (service.commands.screens).

A log is read in either form `POST /v1/replays` takes (events.exported): NDJSON, one event a
line, or JSON `{"events": [...]}`; from a file or from standard input (`-`), neither of
which has a media type, so the bytes tell which form it is."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

import msgspec
from rich.console import Console

from events.codec import Event
from events.connect import connect
from events.exported import NotALog, from_json, from_ndjson, looks_like_json
from events.play import LoggedGame
from events.replay import InvalidLog, decode_log, rebuild, require_complete
from events.server import DataDirInUse, ServerFailed, ServerNotFound
from events.store import StoreUnavailable, UnknownGame
from service.commands import CommandError, console, fail, literal, visible
from service.commands.screens import screen_for
from service.settings import Settings


def add(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "replay",
        help="validate a log and show its scores",
        description="Validate an exported game log of any ruleset against the rules and print its score sheet "
        "(Poison: round by round; the pot game: pot by pot) and final state. The log is NDJSON, as GET "
        '/v1/games/{id}/export gives it, or JSON {"events": [...]}, as POST /v1/replays also takes it. An invalid '
        "log is named by its first bad event. Exit status: 0 valid, 1 invalid log or store trouble, 2 bad usage.",
    )
    source = command.add_mutually_exclusive_group(required=True)
    source.add_argument("log", nargs="?", help="the exported log (NDJSON or JSON); - for standard input")
    source.add_argument("--game", metavar="GAME_ID", help="replay a game from the store instead")
    command.add_argument("--version", type=int, metavar="N", help="stop after event N")
    command.add_argument("--redis-url", help="the store for --game (POISON_REDIS_URL; default: embedded)")
    command.add_argument("--data-dir", type=Path, help="the embedded store's data for --game (default ./poison-data)")


#: How the log given as `-` is named in messages.
STDIN = "standard input"


def read_log(source: str) -> list[tuple[int, Event]]:
    """The events of an exported log (a path, or `-`), decoded by the ruleset its first
    event names."""
    name = STDIN if source == "-" else source
    try:
        body = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as error:
        raise CommandError(f"cannot read {name}: {error.strerror}") from None
    if looks_like_json(body):
        try:
            public = from_json(body)
        except NotALog as error:
            raise CommandError(
                f'invalid log: {name} is JSON but not a log {{"events": [...]}}: {error.detail}', 1
            ) from None
    else:
        public = from_ndjson(body)
    return decode_log(public)


def read_stored(game_id: str, redis_url: str | None, data_dir: Path | None) -> list[tuple[int, Event]]:
    """The events of a stored game, from the store `poison serve` would use with the same
    flags and POISON_* settings (only read: replay writes nothing)."""
    try:
        settings = Settings.from_environment(redis_url=redis_url, data_dir=data_dir)
    except ValueError as error:
        raise CommandError(str(error)) from None
    if settings.redis_url is None and not settings.data_dir.is_dir():
        # Starting an embedded store there would create an empty one, to find nothing in it.
        where = f"no store in {settings.data_dir}"
        raise CommandError(f"{where}: name the one holding the game with --data-dir or --redis-url", 1)
    try:
        return asyncio.run(_read(game_id, settings))
    except ValueError as error:  # a URL of no scheme we know
        raise CommandError(str(error)) from None
    except DataDirInUse as error:
        raise CommandError(str(error), 1) from None
    except ServerFailed as error:  # its message carries the store's log: one line here
        log = settings.data_dir / "server.log"
        raise CommandError(f"the embedded store {error.what} (its log: {log})", 1) from None
    except (StoreUnavailable, ServerNotFound) as error:
        raise CommandError(str(error), 1) from None


async def _read(game_id: str, settings: Settings) -> list[tuple[int, Event]]:
    async with connect(settings.redis_url, data_dir=settings.data_dir, namespace=settings.namespace) as store:
        events = await store.read(game_id)
    if not events:
        raise UnknownGame(game_id)
    return events


def seat_names(created: Any) -> list[str]:
    """Each seat's name from a log's game_created, with its bot in brackets (as
    screens.player_names writes them), as markup that shows them exactly (literal)."""
    return [literal(player.name + (f" [{player.bot}]" if player.bot else "")) for player in created.players]


def show(logged: LoggedGame, console: Console) -> None:
    screen = screen_for(logged.rules.name)
    game = logged.game
    names = seat_names(logged.created)
    # The headline escapes the game id as markup; its controls are made visible first.
    created = msgspec.structs.replace(logged.created, game_id=visible(logged.created.game_id))
    console.print(f"{screen.headline(created, game)}; the log is valid up to event {logged.version}")
    if screen.scored(game):
        console.print(screen.sheet(game, names))
    if logged.finished:
        winners = ", ".join(names[seat] for seat in game.winners)
        console.print(f"finished: {screen.best} total {screen.winning_total(game)}, won by {winners}")
    else:
        for renderable in screen.in_play(game, names):
            console.print(renderable)


def run(args: argparse.Namespace) -> int:
    out = console()
    try:
        if args.version is not None and args.version < 1:
            raise CommandError("--version is an event number from 1")
        stored = args.game is not None
        events = read_stored(args.game, args.redis_url, args.data_dir) if stored else read_log(args.log)
        if args.version is not None:
            if args.version > len(events):
                raise CommandError(f"--version {args.version} is beyond the log's {len(events)} events")
            events = events[: args.version]
        logged = rebuild(events)
        if args.version is None:
            require_complete(logged)
        show(logged, out)
    except InvalidLog as error:
        return fail("replay", f"invalid log: {error}", 1)
    except UnknownGame as error:
        return fail("replay", f"no game '{visible(error.args[0])}' in the store", 1)
    except CommandError as error:
        return fail("replay", error, error.code)
    return 0
