"""`poison replay`: check an exported log (or a stored game) and show it, whatever its
ruleset: Poison round by round, the pot game pot by pot (service.commands.screens).

A log is read in either form `POST /v1/replays` takes (events.exported): NDJSON, one event a
line, or JSON `{"events": [...]}`; from a file or from standard input (`-`), neither of
which has a media type, so the bytes tell which form it is."""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
from rich.console import Console

from events import commitment
from events.away import away_of
from events.codec import Event
from events.exported import NotALog, from_json, from_ndjson, looks_like_json
from events.play import LoggedGame
from events.replay import InvalidLog, decode_log, rebuild, require_complete
from service.commands import CommandError, Commands, add_command, arguments, console, fail, literal, visible
from service.commands.screens import screen_for
from service.commands.stored import on_store, settings_of
from service.i18n import isolated, words

if TYPE_CHECKING:
    from events.games import Games


def add(commands: Commands) -> None:
    command = add_command(
        commands,
        "replay",
        {"export": "GET /v1/games/{id}/export", "json": LOG_SHAPE, "replays": "POST /v1/replays"},
    )
    source = command.add_mutually_exclusive_group(required=True)
    source.add_argument("log", nargs="?", help=words()("cli.help.replay.log"))
    source.add_argument("--game", metavar="GAME_ID", help=words()("cli.help.replay.game"))
    source.add_argument("--archive", metavar="URL", help=words()("cli.help.replay.archive"))
    command.add_argument(
        "more",
        nargs="*",
        metavar="LOG",
        help=words()("cli.help.replay.more", patterns=words().listed(["*" + suffix for suffix in LOG_SUFFIXES])),
    )
    command.add_argument("--version", type=int, metavar="N", help=words()("cli.help.replay.version"))
    command.add_argument(
        "--jobs",
        type=arguments.whole_number,
        default=1,
        help=words()("cli.help.replay.jobs", low=arguments.JOBS[0], high=arguments.JOBS[1]),
    )
    command.add_argument("--redis-url", help=words()("cli.help.replay.redis_url"))
    command.add_argument("--data-dir", type=Path, help=words()("cli.help.replay.data_dir"))


#: How the log given as `-` is named in messages.
STDIN = "standard input"
#: The bounds of --jobs (as simulate's --jobs).
#: What a directory's logs are named: the two forms `poison replay` reads.
LOG_SUFFIXES = (".ndjson", ".json")
#: The JSON form of a log, as messages name it.
LOG_SHAPE = '{"events": [...]}'


def read_log(source: str) -> list[tuple[int, Event]]:
    """The events of an exported log (a path, or `-`), decoded by the ruleset its first
    event names."""
    name = STDIN if source == "-" else source
    try:
        body = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as error:
        raise CommandError(words()("cli.error.replay.cannot_read", name=name, why=error.strerror)) from None
    if looks_like_json(body):
        try:
            public = from_json(body)
        except NotALog as error:
            raise CommandError(
                words()("cli.error.replay.not_a_log", name=name, shape=LOG_SHAPE, detail=error.detail), 1
            ) from None
    else:
        public = from_ndjson(body)
    return decode_log(public)


def read_stored(game_id: str, redis_url: str | None, data_dir: Path | None) -> list[tuple[int, Event]]:
    """The events of a stored game, from the store `poison serve` would use with the same
    flags and POISON_* settings (only read: replay writes nothing)."""
    from events.archive import Archive
    from events.games import UnknownGame

    async def read(games: Games) -> list[tuple[int, Event]]:
        events = await games.read(game_id)
        if not events:
            raise UnknownGame(game_id)
        return events

    settings = settings_of(redis_url=redis_url, data_dir=data_dir)
    try:  # a game moved to the archive is read from there, as the service reads it
        return on_store(settings, read, archive=Archive(settings.archive_location()))
    except UnknownGame as error:
        raise CommandError(words()("cli.error.replay.no_game", game=visible(error.args[0])), 1) from None


def seat_names(players: Any) -> list[str]:
    """Each seat's name as the log leaves it (game_created's, with the lobby's joins and
    leaves: an open seat is "(open)"), with its bot in brackets (as screens.player_names
    writes them), as markup that shows them exactly (literal). Not isolated: each stands
    alone in a cell of the sheet (Players.cell says why); a sentence isolates the ones it names."""
    return [
        words()("cli.replay.open")
        if player.name is None
        else literal(player.name + (f" [{player.bot}]" if player.bot else ""))
        for player in players
    ]


def commitment_line(created: Any) -> str:
    """What the log's commitment to its deals says, checked (rebuild refused one that breaks)."""
    if commitment.check(created) == commitment.NONE:
        return words()("cli.replay.no_commitment")
    return words()("cli.replay.commitment", text=repr(f"{created.seed}:{created.salt}"), digest=created.seed_commitment)


def show(logged: LoggedGame, console: Console) -> None:
    screen = screen_for(logged.rules.name)
    game = logged.game
    names = seat_names(logged.players)
    # The headline escapes the game id as markup; its controls are made visible first.
    created = msgspec.structs.replace(logged.created, game_id=visible(logged.created.game_id))
    console.print(
        words()("cli.replay.valid_up_to", headline=screen.headline(created, game), version=str(logged.version))
    )
    console.print(literal(commitment_line(logged.created)))
    if screen.scored(game):
        console.print(screen.sheet(game, names))
    for line in away_lines(logged, names):
        console.print(line)
    if logged.finished:
        winners = words()("cli.comma").join(isolated(names[seat]) for seat in game.winners)
        console.print(
            words()("cli.replay.finished", best=screen.best, total=screen.winning_total(game), winners=winners)
        )
    elif logged.abandoned:
        console.print(words()("cli.replay.abandoned"))
    else:
        for renderable in screen.in_play(game, names):
            console.print(renderable)


def away_lines(logged: LoggedGame, names: list[str]) -> list[str]:
    """A line for each seat a bot plays for its person as the log leaves it: away (its clock
    ran out) or resigned, and the bot that plays it."""
    away = away_of(logged)
    return [
        words()(
            "cli.replay.away",
            seat=seat,
            name=isolated(names[seat]),
            resigned=str(seat in away.resigned).lower(),
            bot=literal(bot),
        )
        for seat, bot in sorted(away.bots)
    ]


def logs_of(args: argparse.Namespace) -> list[str] | None:
    """The logs to check one line each (several given, or a directory's), or None for the
    one log (or stored game) to show."""
    given = [args.log, *args.more] if args.log is not None else list(args.more)
    if args.more and args.game is not None:
        raise CommandError(words()("cli.error.replay.game_and_logs"))
    if len(given) == 1 and not Path(given[0]).is_dir():
        return None
    if not given:
        return None
    if args.version is not None:
        raise CommandError(words()("cli.error.replay.version_one"))
    logs: list[str] = []
    for source in given:
        if source == "-":
            raise CommandError(words()("cli.error.replay.stdin_one"))
        path = Path(source)
        if path.is_dir():
            found = sorted(str(child) for child in path.iterdir() if child.is_file() and child.suffix in LOG_SUFFIXES)
            if not found:
                patterns = ", ".join("*" + suffix for suffix in LOG_SUFFIXES)
                raise CommandError(words()("cli.error.replay.no_logs", patterns=patterns, source=str(source)), 1)
            logs += found
        else:
            logs.append(source)
    return logs


def check_log(source: str) -> str | None:
    """Why the log at `source` is not a valid complete game, or None if it is one. Runs in
    a worker process with --jobs, so it takes and gives only plain strings."""
    try:
        require_complete(rebuild(read_log(source)))
    except InvalidLog as error:
        return str(error)
    except CommandError as error:  # the line already says `invalid:`
        return str(error).removeprefix("invalid log: ")
    return None


def check_all(logs: list[str], jobs: int, out: Console) -> int:
    """One line per log, in the order given: `valid`, or `invalid:` and why; 1 if any is
    invalid. Checking is Python (decoding and the rules), so --jobs uses processes."""
    if jobs == 1:
        verdicts = [check_log(source) for source in logs]
    else:
        with ProcessPoolExecutor(max_workers=min(jobs, len(logs))) as pool:
            verdicts = list(pool.map(check_log, logs, chunksize=max(1, len(logs) // (4 * jobs))))
    for source, why in zip(logs, verdicts, strict=True):
        verdict = words()("cli.replay.valid") if why is None else words()("cli.replay.invalid", why=why)
        out.print(literal(f"{source}: {verdict}"))
    invalid = sum(why is not None for why in verdicts)
    out.print(words()("cli.replay.count", valid=len(logs) - invalid, count=len(logs)))
    return 1 if invalid else 0


def run(args: argparse.Namespace) -> int:
    out = console()
    try:
        arguments.check_jobs(args.jobs)
        if args.archive is not None:
            if args.version is not None:  # (a log beside it is argparse's to refuse)
                raise CommandError(words()("cli.error.replay.archive_alone"))
            from service.commands.archive_check import check_archive

            return check_archive(args.archive, args.jobs, out, console(stderr=True))
        logs = logs_of(args)
        if logs is not None:
            return check_all(logs, args.jobs, out)
        if args.version is not None and args.version < 1:
            raise CommandError(words()("cli.error.replay.version_from"))
        stored = args.game is not None
        events = read_stored(args.game, args.redis_url, args.data_dir) if stored else read_log(args.log)
        if args.version is not None:
            if args.version > len(events):
                raise CommandError(
                    words()("cli.error.replay.version_beyond", version=str(args.version), count=len(events))
                )
            events = events[: args.version]
        logged = rebuild(events)
        if args.version is None:
            require_complete(logged)
        show(logged, out)
    except InvalidLog as error:
        return fail("replay", words()("cli.error.replay.invalid", error=error), 1)
    except CommandError as error:
        return fail("replay", error, error.code)
    return 0
