"""`poison replay`: check an exported log (or a stored game) and show it, whatever its
ruleset: Poison round by round, the pot game pot by pot (service.commands.screens)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from rich.console import Console

from events.codec import Event
from events.connect import connect
from events.exported import from_ndjson
from events.play import LoggedGame
from events.replay import InvalidLog, decode_log, rebuild, require_complete
from events.server import ServerFailed, ServerNotFound
from events.store import StoreUnavailable, UnknownGame
from service.commands import CommandError, console, fail
from service.commands.screens import player_names, screen_for
from service.settings import Settings


def add(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "replay",
        help="validate a log and show its scores",
        description="Validate an exported game log (NDJSON, as GET /v1/games/{id}/export gives it) of any ruleset "
        "against the rules and print its score sheet (Poison: round by round; the pot game: pot by pot) and final "
        "state. An invalid log is named by its first bad event.",
    )
    source = command.add_mutually_exclusive_group(required=True)
    source.add_argument("log", nargs="?", type=Path, help="the exported log (.ndjson)")
    source.add_argument("--game", metavar="GAME_ID", help="replay a game from the store instead")
    command.add_argument("--version", type=int, metavar="N", help="stop after event N")
    command.add_argument("--redis-url", help="the store for --game (POISON_REDIS_URL; default: embedded)")
    command.add_argument("--data-dir", type=Path, help="the embedded store's data for --game (default ./poison-data)")


def read_log(path: Path) -> list[tuple[int, Event]]:
    """The events of an exported log, decoded by the ruleset its first event names."""
    try:
        text = path.read_bytes()
    except OSError as error:
        raise CommandError(f"cannot read {path}: {error.strerror}") from None
    public = from_ndjson(text)
    return decode_log(public)


async def read_stored(game_id: str, redis_url: str | None, data_dir: Path | None) -> list[tuple[int, Event]]:
    settings = Settings.from_environment(redis_url=redis_url, data_dir=data_dir)
    async with connect(settings.redis_url, data_dir=settings.data_dir, namespace=settings.namespace) as store:
        events = await store.read(game_id)
    if not events:
        raise UnknownGame(game_id)
    return events


def show(logged: LoggedGame, console: Console) -> None:
    screen = screen_for(logged.rules.name)
    game = logged.game
    names = player_names(logged.created)
    console.print(f"{screen.headline(logged.created, game)}; the log is valid up to event {logged.version}")
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
        events = asyncio.run(read_stored(args.game, args.redis_url, args.data_dir)) if stored else read_log(args.log)
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
        return fail("replay", f"no game {error.args[0]!r} in the store", 1)
    except (StoreUnavailable, ServerFailed, ServerNotFound) as error:
        return fail("replay", error, 1)
    except CommandError as error:
        return fail("replay", error, error.code)
    return 0
