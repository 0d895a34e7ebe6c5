"""`poison archive`: what the archive of finished games holds (a row per day the games in it
ended: files, games, events, bytes), how many games are over and waiting in the store to
move there, and, with --now, every game that is over moved first (events/archiving.py).

The archive is read without the store, so it is shown even when the store cannot be
reached (only --now needs the store). pyarrow and the store's client are imported when the
command runs, not when `poison` starts.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table

from service.commands import CommandError, Commands, add_command, console, fail, literal, visible
from service.commands.stored import on_store, settings_of
from service.i18n import words

if TYPE_CHECKING:
    from events.archive import Archive
    from events.archiving import Archived
    from events.games import Games

#: The columns of the table, each a key of the catalogues (cli.archive.<column>).
COLUMNS = ("day", "files", "games", "events", "bytes")


def add(commands: Commands) -> None:
    command = add_command(commands, "archive", {"variable": "POISON_ARCHIVE_URL"})
    command.add_argument("--redis-url", help=words()("cli.help.archive.redis_url"))
    command.add_argument("--data-dir", type=Path, help=words()("cli.help.archive.data_dir"))
    command.add_argument("--archive-url", metavar="URL", help=words()("cli.help.archive.archive_url"))
    command.add_argument("--now", action="store_true", help=words()("cli.help.archive.now"))


def archive_files(url: str) -> tuple[Archive, list[str]]:
    """The archive at `url` and its whole files; CommandError (exit status 1) when it
    cannot be read: a protocol fsspec does not know, a bucket refused, a file unreadable."""
    from events.archive import Archive

    try:
        archive = Archive(url)
        return archive, archive.files()
    except (OSError, ValueError, ImportError) as error:
        raise CommandError(cannot_read(url, error), 1) from None


def cannot_read(url: str, error: BaseException, *, key: str = "cli.error.archive.cannot_read") -> str:
    """The line that says the archive at `url` could not be read (or, by `key`, written)."""
    why = getattr(error, "strerror", None) or str(error) or type(error).__name__
    return words()(key, url=visible(url), why=why)


@dataclass
class Day:
    """What one day's partition holds."""

    files: int = 0
    games: int = 0
    events: int = 0
    bytes: int = 0

    def add(self, other: Day) -> None:
        self.files += other.files
        self.games += other.games
        self.events += other.events
        self.bytes += other.bytes


def days_of(archive: Archive, files: list[str]) -> dict[str, Day]:
    """Each day's partition (its date) and what its files hold, in order of day."""
    days: dict[str, Day] = {}
    for path in files:
        games, events = archive.counts(path)
        day = path.split("/", 1)[0].removeprefix("day=")
        days.setdefault(day, Day()).add(Day(1, games, events, archive.size(path)))
    return days


def table_of(url: str, days: dict[str, Day]) -> Table:
    table = Table(title=words()("cli.archive.title", url=literal(url)), title_justify="left")
    table.add_column(words()("cli.archive.day"))
    for column in COLUMNS[1:]:
        table.add_column(words()(f"cli.archive.{column}"), justify="right")
    number = words().number
    total = Day()
    for day, held in days.items():
        table.add_row(literal(day), *(number(getattr(held, column)) for column in COLUMNS[1:]))
        total.add(held)
    table.add_section()
    table.add_row(words()("cli.archive.total"), *(number(getattr(total, column)) for column in COLUMNS[1:]))
    return table


def run(args: argparse.Namespace) -> int:
    out = console()
    try:
        settings = settings_of(redis_url=args.redis_url, data_dir=args.data_dir, archive_url=args.archive_url)
        url = settings.archive_location()
        archive, _ = archive_files(url)
        moved: Archived | None = None
        due: int | None = None
        unreachable: CommandError | None = None

        async def work(games: Games) -> tuple[Archived | None, int]:
            # Every game over now, however recently it ended (after_ms only bounds a pass
            # that is not everything), then how many wait: none, unless some ended meanwhile.
            archiver = games.archiver(after_ms=0)
            done = await archiver.pass_once(everything=True) if args.now else None
            return done, await archiver.count()

        try:
            moved, due = on_store(settings, work, archive=archive, missing="cli.error.archive.no_store")
        except CommandError as error:
            if args.now:
                raise
            unreachable = error
        except OSError as error:  # --now could not write a file, or read it back
            raise CommandError(cannot_read(url, error, key="cli.error.archive.cannot_write"), 1) from None
        archive, files = archive_files(url)  # again: --now may have written some
        try:
            days = days_of(archive, files)
        except (OSError, ValueError) as error:
            raise CommandError(cannot_read(url, error), 1) from None
    except CommandError as error:
        return fail("archive", error, error.code)
    if moved is not None:
        out.print(words()("cli.archive.moved", games=moved.games, files=moved.files))
    if days:
        out.print(table_of(url, days))
    else:
        out.print(words()("cli.archive.empty", url=literal(url)))
    if due is not None:
        out.print(words()("cli.archive.waiting", count=due))
    if unreachable is not None:  # the archive was shown: what could not be is said, not failed
        return fail("archive", words()("cli.archive.no_store", why=str(unreachable)), 0)
    return 0
