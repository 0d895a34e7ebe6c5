"""`poison simulate`: many games of bots in the compiled core, and how each seat fared.

Win rates are shown to one decimal, or to as many as it takes never to show a seat that lost
a game as winning 100.0% of them, nor one that won a game as winning 0.0% (399,887 wins in
400,000 games are 99.97%).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

import msgspec
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from core import RuleError, Simulation
from core.errors import SEARCH_BOT
from core.results import merged
from core.rulesets import RULESETS, Ruleset
from service.commands import CommandError, Commands, add_command, arguments, console, fail, literal
from service.commands.arguments import (
    Seat,
    add_ruleset,
    add_seats,
    check_players,
    describe_options,
    engine_seats_for,
    options_of,
    ruleset_of,
)
from service.i18n import words

CHUNK = 20_000  # games per C call: small enough for a live progress bar
SEARCHING_CHUNK = 4  # the same with a searching seat, whose games take a second or more each
GAMES = (1, 1_000_000_000)  # the bounds of --games


def add(commands: Commands) -> None:
    command = add_command(commands, "simulate", {"rulesets": ", ".join(RULESETS)})
    add_ruleset(command)
    add_seats(command, "random", "seat", engine=True)
    arguments.add_batch(command, games=GAMES, default=10_000, told="cli.help.simulate.games")


def chunk_for(seats: Sequence[Seat], jobs: int) -> int:
    """How many games one C call plays for these seats over `jobs` threads."""
    return SEARCHING_CHUNK * jobs if any(seat.playouts is not None for seat in seats) else CHUNK


def simulated(
    args: argparse.Namespace, ruleset: Ruleset, seats: Sequence[Seat], options: dict[str, Any], games: int
) -> Iterator[tuple[int, Simulation]]:
    """`games` games of `seats` (numbered from 0, dealt from --seed, over --jobs threads),
    a chunk at a time: how many each chunk played, and what they came to."""
    chunk = chunk_for(seats, args.jobs)
    bots, playouts = [seat.bot for seat in seats], [seat.playouts for seat in seats]
    for first in range(0, games, chunk):
        count = min(chunk, games - first)
        simulation = ruleset.engine.simulate(
            args.players,
            count,
            seed=args.seed,
            bots=bots,
            first=first,
            threads=args.jobs,
            playouts=playouts,
            **options,
        )
        yield count, simulation


def run_chunks(
    args: argparse.Namespace, ruleset: Ruleset, seats: list[Seat], options: dict[str, Any], console: Console
) -> tuple[Simulation, float]:
    totals: list[Simulation] = []
    started = time.perf_counter()
    chunk = chunk_for(seats, args.jobs)
    show_progress = args.games > chunk and not args.json and console.is_terminal
    with Progress(
        TextColumn(words()("cli.simulate.progress")),
        BarColumn(),
        TextColumn(words()("cli.simulate.progress_games", done="{task.completed:,.0f}", total="{task.total:,.0f}")),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not show_progress,
    ) as progress:
        task = progress.add_task("games", total=args.games)
        for count, simulation in simulated(args, ruleset, seats, options, args.games):
            totals.append(simulation)
            progress.advance(task, count)
    elapsed = time.perf_counter() - started
    return merged(totals), elapsed


def figures(result: Simulation, bots: list[Seat], elapsed: float) -> dict:
    seats = []
    for seat, bot in enumerate(bots):
        mean = result.score_sum[seat] / result.games
        variance = max(result.score_squares[seat] / result.games - mean * mean, 0.0)
        seats.append(
            {
                "seat": seat,
                "bot": str(bot),
                "wins": result.wins[seat],
                "win_rate": result.wins[seat] / result.games,
                "mean": mean,
                "spread": math.sqrt(variance),
            }
        )
    return {
        "games": result.games,
        "moves": result.moves,
        "seconds": elapsed,
        "games_per_s": result.games / elapsed if elapsed else None,
        "seats": seats,
    }


def percent(part: int, whole: int) -> str:
    """`part` of `whole` as a percentage with one decimal, or with as many more as it takes
    to show neither 100.0% for less than the whole nor 0.0% for more than nothing."""
    exact = Fraction(100 * part, whole)
    digits = 1
    while True:
        shown = round(exact, digits)
        if (shown == 100) == (part == whole) and (shown == 0) == (part == 0):
            return words()("cli.simulate.percent", value=words().fixed(float(shown), digits))
        digits += 1


def searching_defaults(seats: list[Seat], ruleset: Ruleset) -> list[Seat]:
    """Each search bot with its playouts written out (the ruleset's default if none were given)."""
    return [
        Seat(seat.bot, seat.playouts or ruleset.default_playouts) if seat.bot == SEARCH_BOT else seat for seat in seats
    ]


def winning(ruleset: Ruleset) -> str:
    return "lowest total wins" if ruleset.lowest_wins else "highest total wins"


def run(args: argparse.Namespace) -> int:
    out = console()
    try:
        if not GAMES[0] <= args.games <= GAMES[1]:
            raise CommandError(words()("cli.error.simulate.games", low=GAMES[0], high=GAMES[1], games=args.games))
        arguments.check_jobs(args.jobs)
        ruleset = ruleset_of(args, needs="simulate")
        options = options_of(args, ruleset)
        check_players(ruleset, args.players)
        bots = searching_defaults(engine_seats_for(args.bots, ruleset, args.players, of="players"), ruleset)
        result, elapsed = run_chunks(args, ruleset, bots, options, console(stderr=True))
    except CommandError as error:
        return fail("simulate", error, error.code)
    except RuleError as error:
        return fail("simulate", error, 2)
    report = figures(result, bots, elapsed)
    if args.json:
        settings = {"ruleset": ruleset.name, "players": args.players, "seed": args.seed, "options": options}
        sys.stdout.write(msgspec.json.encode({**settings, "wins_by": winning(ruleset), **report}).decode() + "\n")
        return 0
    header = words()(
        "cli.simulate.header", games=args.games, ruleset=ruleset.name, players=args.players, seed=str(args.seed)
    )
    if ruleset.options:
        header += ", " + describe_options(ruleset, options)
    table = Table(title=literal(header), title_justify="left")
    for column in ("seat", "bot", "wins", "win_rate", "mean", "spread"):
        table.add_column(words()(f"cli.column.{column}"), justify="right")
    number, fixed = words().number, words().fixed
    for seat in report["seats"]:
        table.add_row(
            number(seat["seat"]),
            literal(seat["bot"]),
            number(seat["wins"]),
            percent(seat["wins"], report["games"]),
            fixed(seat["mean"], 2),
            fixed(seat["spread"], 2),
        )
    out.print(table)
    out.print(
        words()(
            "cli.simulate.footer",
            games=fixed(report["games_per_s"], 0),
            moves=fixed(result.moves / elapsed, 0),
            best="lowest" if ruleset.lowest_wins else "highest",
        )
    )
    return 0
