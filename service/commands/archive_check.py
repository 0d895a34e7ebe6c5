"""`poison replay --archive URL`: every archived game checked against the rules through the
core's batch replay (events/bulk.py), a file per unit of work, --jobs processes at once;
one line per invalid game, then how many were valid and how fast it went.

Checking is Python and C in one process per file (decoding, the batch replay), so --jobs
uses processes, as replay's check of several logs does.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from itertools import repeat
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from service.commands import CommandError, literal
from service.commands.archive import archive_files, cannot_read
from service.i18n import words

if TYPE_CHECKING:
    from events.bulk import Checked


def checked_files(url: str, files: list[str], jobs: int) -> Iterator[Checked]:
    """Each file's Checked, in the order of `files` (one process per job beyond the first)."""
    from events.bulk import check_file

    if jobs == 1:
        yield from map(check_file, repeat(url), files)
        return
    with ProcessPoolExecutor(max_workers=min(jobs, len(files))) as pool:
        yield from pool.map(check_file, repeat(url), files)


def check_archive(url: str, jobs: int, out: Console, err: Console) -> int:
    """Check the archive at `url`; 1 if any game is invalid (or none is there), else 0."""
    from events.bulk import Checked  # (pyarrow with it: only for --archive)

    _, files = archive_files(url)
    if not files:
        raise CommandError(words()("cli.error.replay.archive_empty", url=url), 1)
    checked = Checked()
    started = time.perf_counter()
    with Progress(
        TextColumn(words()("cli.replay.archive_progress")),
        BarColumn(),
        TextColumn(
            words()("cli.replay.archive_progress_files", done="{task.completed:,.0f}", total="{task.total:,.0f}")
        ),
        TimeRemainingColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    ) as progress:
        task = progress.add_task("files", total=len(files))
        try:
            for found in checked_files(url, files, jobs):
                checked.add(found)
                progress.advance(task)
        except (OSError, ValueError) as error:  # a file gone or unreadable since it was listed
            raise CommandError(cannot_read(url, error), 1) from None
    elapsed = max(time.perf_counter() - started, 1e-9)
    for game_id, why in checked.invalid:
        out.print(words()("cli.replay.archive_invalid", game=literal(game_id), why=literal(why)))
    said, fixed = words(), words().fixed
    out.print(said("cli.replay.archive_count", valid=checked.games - len(checked.invalid), count=checked.games))
    out.print(
        said(
            "cli.replay.archive_speed",
            games=checked.games,
            events=checked.events,
            moves=checked.moves,
            seconds=fixed(elapsed, 2),
            games_rate=fixed(checked.games / elapsed, 0),
            moves_rate=fixed(checked.moves / elapsed, 0),
        )
    )
    return 1 if checked.invalid else 0
