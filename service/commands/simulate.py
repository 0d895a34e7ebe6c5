"""`poison simulate`: many games of bots in the compiled core, and how each seat fared."""

from __future__ import annotations

import argparse
import math
import sys
import time

import msgspec
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from core import BOTS, RuleError, Simulation, simulate
from service.commands import CommandError, console, fail

CHUNK = 20_000  # games per C call: small enough for a live progress bar


def add(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "simulate",
        help="play many games of bots and compare them",
        description="Play GAMES complete games of bots in the compiled core and show, per seat, its bot, win rate, "
        "mean and spread of final totals, and the speed. Shared wins count for every winner.",
    )
    command.add_argument("--players", type=int, default=4, help="3 to 6 (default 4)")
    command.add_argument("--games", type=int, default=10_000, help="how many games (default 10000)")
    command.add_argument(
        "--bots", default="random", help=f"one bot for every seat, or one per seat, comma-separated ({', '.join(BOTS)})"
    )
    command.add_argument(
        "--seed", type=int, default=0, help="0 to 2**64 - 1 (default 0): the same seed, the same games"
    )
    command.add_argument("--rounds", type=int, help="1 to 20 (default: one per player)")
    command.add_argument("--cauldrons", default="dynamic", help="dynamic (default) or fixed")
    command.add_argument("--json", action="store_true", help="print the figures as JSON")


def bots_for(spec: str, players: int) -> list[str]:
    bots = [name.strip() for name in spec.split(",")]
    if len(bots) == 1:
        bots *= players
    if len(bots) != players:
        raise CommandError(f"--bots names {len(bots)} bots for {players} players: give one, or one per seat")
    unknown = [bot for bot in bots if bot not in BOTS]
    if unknown:
        raise CommandError(f"unknown bot {unknown[0]!r}: choose from {', '.join(BOTS)}")
    return bots


def run_chunks(args: argparse.Namespace, bots: list[str], console: Console) -> tuple[Simulation, float]:
    totals: list[Simulation] = []
    started = time.perf_counter()
    show_progress = args.games > CHUNK and not args.json and console.is_terminal
    with Progress(
        TextColumn("simulating"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not show_progress,
    ) as progress:
        task = progress.add_task("games", total=args.games)
        for first in range(0, args.games, CHUNK):
            count = min(CHUNK, args.games - first)
            totals.append(
                simulate(
                    args.players,
                    count,
                    seed=args.seed,
                    rounds=args.rounds,
                    cauldrons=args.cauldrons,
                    bots=bots,
                    first=first,
                )
            )
            progress.advance(task, count)
    elapsed = time.perf_counter() - started
    n = args.players
    merged = Simulation(
        args.games,
        sum(part.moves for part in totals),
        tuple(sum(part.wins[s] for part in totals) for s in range(n)),
        tuple(sum(part.score_sum[s] for part in totals) for s in range(n)),
        tuple(sum(part.score_squares[s] for part in totals) for s in range(n)),
    )
    return merged, elapsed


def figures(result: Simulation, bots: list[str], elapsed: float) -> dict:
    seats = []
    for seat, bot in enumerate(bots):
        mean = result.score_sum[seat] / result.games
        variance = max(result.score_squares[seat] / result.games - mean * mean, 0.0)
        seats.append(
            {
                "seat": seat,
                "bot": bot,
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


def run(args: argparse.Namespace) -> int:
    out = console()
    try:
        if not 1 <= args.games <= 1_000_000_000:
            raise CommandError("--games is 1 to 1000000000")
        bots = bots_for(args.bots, args.players) if 3 <= args.players <= 6 else [args.bots] * max(args.players, 0)
        result, elapsed = run_chunks(args, bots, console(stderr=True))
    except CommandError as error:
        return fail("simulate", error, error.code)
    except RuleError as error:
        return fail("simulate", error, 2)
    report = figures(result, bots, elapsed)
    if args.json:
        sys.stdout.write(msgspec.json.encode(report).decode() + "\n")
        return 0
    table = Table(title=f"{args.games:,} games, {args.players} players, seed {args.seed}", title_justify="left")
    for column in ("seat", "bot", "wins", "win rate", "mean total", "spread"):
        table.add_column(column, justify="right")
    for seat in report["seats"]:
        table.add_row(
            str(seat["seat"]),
            seat["bot"],
            f"{seat['wins']:,}",
            f"{seat['win_rate']:.1%}",
            f"{seat['mean']:.2f}",
            f"{seat['spread']:.2f}",
        )
    out.print(table)
    out.print(
        f"{report['games_per_s']:,.0f} games/s ({result.moves / elapsed:,.0f} moves/s); "
        "lowest total wins, shared wins count for every winner"
    )
    return 0
