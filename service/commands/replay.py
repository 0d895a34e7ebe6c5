"""`poison replay`: check an exported log (or a stored game) and show it round by round."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from rich.console import Console

from events.connect import connect
from events.play import LoggedGame
from events.replay import InvalidLog, rebuild, require_complete
from events.schema import MalformedEvent, decode_public_line, from_public
from events.server import ServerFailed, ServerNotFound
from events.store import StoreUnavailable, UnknownGame
from service.commands import CommandError, console, fail
from service.commands.tables import round_table
from service.settings import Settings


def add(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "replay",
        help="validate a log and show its scores",
        description="Validate an exported game log (NDJSON, as GET /v1/games/{id}/export gives it) against the "
        "rules and print its round-by-round scores and final state. An invalid log is named by its first bad event.",
    )
    source = command.add_mutually_exclusive_group(required=True)
    source.add_argument("log", nargs="?", type=Path, help="the exported log (.ndjson)")
    source.add_argument("--game", metavar="GAME_ID", help="replay a game from the store instead")
    command.add_argument("--version", type=int, metavar="N", help="stop after event N")
    command.add_argument("--redis-url", help="the store for --game (POISON_REDIS_URL; default: embedded)")
    command.add_argument("--data-dir", type=Path, help="the embedded store's data for --game (default ./poison-data)")


def read_log(path: Path) -> list[tuple[int, object]]:
    try:
        text = path.read_bytes()
    except OSError as error:
        raise CommandError(f"cannot read {path}: {error.strerror}") from None
    numbered = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            public = decode_public_line(line)
            numbered.append((public.version, from_public(public)))
        except MalformedEvent as error:
            raise InvalidLog(number, f"line {number} is not an event of the log: {error}") from None
    return numbered


async def read_stored(game_id: str, redis_url: str | None, data_dir: Path | None) -> list[tuple[int, object]]:
    settings = Settings.from_environment(redis_url=redis_url, data_dir=data_dir)
    async with connect(settings.redis_url, data_dir=settings.data_dir, namespace=settings.namespace) as store:
        events = await store.read(game_id)
    if not events:
        raise UnknownGame(game_id)
    return events


def show(logged: LoggedGame, console: Console) -> None:
    created = logged.created
    game = logged.game
    names = [player.name + (f" [{player.bot}]" if player.bot else "") for player in created.players]
    console.print(
        f"game {created.game_id}: {game.players} players, {game.rounds} rounds, "
        f"{created.rules.cauldrons} cauldrons, seed {created.seed}; the log is valid up to event {logged.version}"
    )
    if game.round_results():
        console.print(round_table(game, names))
    if logged.finished:
        winners = ", ".join(names[seat] for seat in game.winners)
        console.print(f"finished: lowest total {min(game.totals)}, won by {winners}")
    else:
        console.print(f"in play: round {game.round} of {game.rounds}, seat {game.turn} to move")
        for index, cauldron in enumerate(game.cauldrons):
            console.print(
                f"  cauldron {index}: {cauldron.colour or 'colourless'}, total {cauldron.total}: "
                f"{' '.join(cauldron.cards) or 'empty'}"
            )


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
