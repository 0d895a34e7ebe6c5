"""`poison ladder`: a round robin between bots, each match with its seats rotated, their win
rates with 95% confidence intervals and a rating.

A match between bots A and B fills the seats alternately (A, B, A, …) and plays half of its
games that way and half the other way round (B, A, B, …), on the same deals: every seat is
played by each bot equally, and luck of the deal cancels out. A bot's wins in a match are
the games won by any of its seats (a shared win counts for every winner, as `poison
simulate` counts it); its share is its wins over both bots' wins. The rating is the
Bradley-Terry fit of every match's wins on the Elo scale (service/commands/standings.py).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from typing import Any

import msgspec
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from core import RuleError
from core.rulesets import RULESETS, Ruleset
from service.commands import CommandError, Commands, add_command, arguments, console, fail, literal
from service.commands.arguments import (
    Seat,
    add_ruleset,
    check_players,
    describe_options,
    options_of,
    ruleset_of,
    seat_of,
    strength_help,
)
from service.commands.simulate import percent, searching_defaults, simulated
from service.commands.standings import bradley_terry, wilson
from service.i18n import words

GAMES = (2, 1_000_000)  # the bounds of --games, per match (two halves, seats swapped)
BOTS = (2, 8)  # the fewest and the most bots on a ladder


def add(commands: Commands) -> None:
    command = add_command(commands, "ladder", {"rulesets": ", ".join(RULESETS)})
    add_ruleset(command)
    names = "; ".join(f"{r.name}: {', '.join(r.engine_bots)}" for r in RULESETS.values())
    command.add_argument("--players", type=arguments.whole_number, default=4, help=words()("cli.help.ladder.players"))
    command.add_argument(
        "--bots",
        default="random,greedy",
        help=words()("cli.help.ladder.bots", low=BOTS[0], high=BOTS[1], names=names, strength=strength_help()),
    )
    arguments.add_batch(command, games=GAMES, default=1_000, told="cli.help.ladder.games")


def contestants(spec: str, ruleset: Ruleset) -> list[Seat]:
    seats = searching_defaults([seat_of(name.strip(), ruleset) for name in spec.split(",")], ruleset)
    if not BOTS[0] <= len(seats) <= BOTS[1]:
        raise CommandError(words()("cli.error.ladder.bot_count", count=len(seats), low=BOTS[0], high=BOTS[1]))
    names = [str(seat) for seat in seats]
    twice = next((name for name in names if names.count(name) > 1), None)
    if twice is not None:
        raise CommandError(words()("cli.error.ladder.twice", bot=twice))
    return seats


def play_match(
    args: argparse.Namespace,
    ruleset: Ruleset,
    pair: tuple[Seat, Seat],
    options: dict[str, Any],
    advance: Any,
) -> tuple[int, int]:
    """The wins of each bot of `pair` over the match's games, both halves."""
    wins = [0, 0]
    for half in (0, 1):
        games = args.games // 2 + (args.games % 2 if half == 0 else 0)
        owner = [(seat + half) % 2 for seat in range(args.players)]  # which bot of the pair sits there
        for count, result in simulated(args, ruleset, [pair[side] for side in owner], options, games):
            for seat, side in enumerate(owner):
                wins[side] += result.wins[seat]
            advance(count)
    return wins[0], wins[1]


def standings(seats: list[Seat], matches: list[dict]) -> list[dict]:
    names = [str(seat) for seat in seats]
    won: dict[tuple[str, str], float] = {}
    for match in matches:
        won[(match["a"], match["b"])] = match["a_wins"]
        won[(match["b"], match["a"])] = match["b_wins"]
    ratings = bradley_terry(names, won)
    rows = []
    for name in names:
        wins = sum(count for (a, _), count in won.items() if a == name)
        losses = sum(count for (_, b), count in won.items() if b == name)
        low, high = wilson(wins, wins + losses)
        rows.append(
            {
                "bot": name,
                "rating": ratings[name],
                "wins": int(wins),
                "losses": int(losses),
                "share": wins / (wins + losses) if wins + losses else None,
                "ci95": [low, high],
            }
        )
    return sorted(rows, key=lambda row: -row["rating"])


def run_ladder(
    args: argparse.Namespace, ruleset: Ruleset, seats: list[Seat], options: dict[str, Any], err: Console
) -> list[dict]:
    pairs = list(itertools.combinations(seats, 2))
    matches = []
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,.0f} of {task.total:,.0f} games"),
        TimeRemainingColumn(),
        console=err,
        transient=True,
        disable=args.json or not err.is_terminal,
    ) as progress:
        task = progress.add_task("ladder", total=len(pairs) * args.games)
        for a, b in pairs:
            progress.update(task, description=literal(f"{a} v {b}"))
            a_wins, b_wins = play_match(args, ruleset, (a, b), options, lambda count: progress.advance(task, count))
            low, high = wilson(a_wins, a_wins + b_wins)
            matches.append(
                {
                    "a": str(a),
                    "b": str(b),
                    "games": args.games,
                    "a_wins": a_wins,
                    "b_wins": b_wins,
                    "a_share": a_wins / (a_wins + b_wins) if a_wins + b_wins else None,
                    "ci95": [low, high],
                }
            )
    return matches


def check(args: argparse.Namespace) -> None:
    if not GAMES[0] <= args.games <= GAMES[1]:
        raise CommandError(words()("cli.error.ladder.games", low=GAMES[0], high=GAMES[1], games=args.games))
    arguments.check_jobs(args.jobs)


def share_of(wins: int, losses: int) -> str:
    return percent(wins, wins + losses) if wins + losses else "-"


def interval(ci: list[float]) -> str:
    low, high = (words()("cli.simulate.percent", value=words().fixed(100 * end, 1)) for end in ci)
    return words()("cli.ladder.interval", low=low, high=high)


def run(args: argparse.Namespace) -> int:
    out = console()
    try:
        check(args)
        ruleset = ruleset_of(args, needs="simulate")
        options = options_of(args, ruleset)
        check_players(ruleset, args.players)
        seats = contestants(args.bots, ruleset)
        started = time.perf_counter()
        matches = run_ladder(args, ruleset, seats, options, console(stderr=True))
        elapsed = time.perf_counter() - started
    except CommandError as error:
        return fail("ladder", error, error.code)
    except RuleError as error:
        return fail("ladder", error, 2)
    ladder = standings(seats, matches)
    if args.json:
        settings = {"ruleset": ruleset.name, "players": args.players, "seed": args.seed, "options": options}
        report = {**settings, "games_per_match": args.games, "seconds": elapsed, "ladder": ladder, "matches": matches}
        sys.stdout.write(msgspec.json.encode(report).decode() + "\n")
        return 0
    header = words()(
        "cli.ladder.header",
        bots=len(seats),
        ruleset=ruleset.name,
        players=args.players,
        games=args.games,
        seed=str(args.seed),
    )
    number = words().number
    if ruleset.options:
        header += ", " + describe_options(ruleset, options)
    table = Table(title=literal(header), title_justify="left")
    for column in ("rank", "bot", "rating", "wins", "losses", "win_share", "interval"):
        table.add_column(words()(f"cli.column.{column}"), justify="right")
    for rank, row in enumerate(ladder, 1):
        table.add_row(
            number(rank),
            literal(row["bot"]),
            words().fixed(row["rating"], 0, grouped=False),
            number(row["wins"]),
            number(row["losses"]),
            share_of(row["wins"], row["losses"]),
            interval(row["ci95"]),
        )
    out.print(table)
    games = Table(title=words()("cli.ladder.matches"), title_justify="left")
    for column in ("bot", "against", "wins", "losses", "win_share", "interval"):
        games.add_column(words()(f"cli.column.{column}"), justify="right")
    for match in matches:
        games.add_row(
            literal(match["a"]),
            literal(match["b"]),
            number(match["a_wins"]),
            number(match["b_wins"]),
            share_of(match["a_wins"], match["b_wins"]),
            interval(match["ci95"]),
        )
    out.print(games)
    out.print(words()("cli.ladder.footer", games=len(matches) * args.games, seconds=words().fixed(elapsed, 1)))
    return 0
