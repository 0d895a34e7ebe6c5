"""`poison play`: a person plays seat 0 against bots, in the terminal."""

from __future__ import annotations

import argparse
import secrets

from rich.console import Console
from rich.table import Table

from core import BOTS, Game, Move, RuleError, derive_seed
from service.commands import CommandError, console, fail
from service.commands.tables import round_table

HELP = "a move is its number in the list, or a card and a cauldron like 'R5 0'; 'q' quits"


def add(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "play",
        help="play a game against bots in the terminal",
        description="Play seat 0 against bots. Each turn shows your hand, the cauldrons, everyone's piles and your "
        "legal moves; " + HELP + ".",
    )
    command.add_argument("--players", type=int, default=4, help="3 to 6 (default 4)")
    command.add_argument(
        "--bots",
        default="greedy",
        help=f"one bot for every other seat, or one per other seat ({', '.join(BOTS)}; default greedy)",
    )
    command.add_argument("--seed", type=int, help="0 to 2**64 - 1 (default: random)")
    command.add_argument("--rounds", type=int, help="1 to 20 (default: one per player)")
    command.add_argument("--cauldrons", default="dynamic", help="dynamic (default) or fixed")


def opponents(spec: str, players: int) -> list[str]:
    bots = [name.strip() for name in spec.split(",")]
    if len(bots) == 1:
        bots *= players - 1
    if len(bots) != players - 1:
        raise CommandError(f"--bots names {len(bots)} bots for {players - 1} opponents: give one, or one per opponent")
    unknown = [bot for bot in bots if bot not in BOTS]
    if unknown:
        raise CommandError(f"unknown bot {unknown[0]!r}: choose from {', '.join(BOTS)}")
    return bots


def parse_move(text: str, legal: tuple[Move, ...]) -> Move | str:
    """The move the person typed, or what is wrong with it."""
    words = text.split()
    if len(words) == 1 and words[0].isdigit():
        number = int(words[0])
        if 1 <= number <= len(legal):
            return legal[number - 1]
        return f"there is no move {number}: choose 1 to {len(legal)}"
    if len(words) == 2 and words[1].isdigit():
        return Move(words[0].upper(), int(words[1]))
    return f"'{text}' is not a move: {HELP}"


def show_table(console: Console, game: Game, names: list[str]) -> None:
    console.print(f"\nround {game.round} of {game.rounds}, dealer {names[game.dealer]}")
    for index, cauldron in enumerate(game.cauldrons):
        console.print(
            f"  cauldron {index}: {cauldron.colour or 'colourless':<10} total {cauldron.total:>2}  "
            f"{' '.join(cauldron.cards) or '(empty)'}"
        )
    seats = Table(show_edge=False, box=None, padding=(0, 2))
    for column in ("seat", "player", "cards in hand", "cards taken (face down)"):
        seats.add_column(column)
    for seat, name in enumerate(names):
        seats.add_row(str(seat), name, str(game.hand_sizes[seat]), str(game.pile_sizes[seat]))
    console.print(seats)


def run(args: argparse.Namespace) -> int:
    out = console(highlight=False)
    try:
        bots = opponents(args.bots, args.players) if 3 <= args.players <= 6 else []
        seed = args.seed if args.seed is not None else secrets.randbits(63)
        game = Game(args.players, rounds=args.rounds, cauldrons=args.cauldrons, seed=seed)
    except (CommandError, RuleError) as error:
        return fail("play", error, 2)
    names = ["you", *(f"{bot} bot {seat}" for seat, bot in enumerate(bots, start=1))]
    out.print(f"Poison: you are seat 0 against {', '.join(names[1:])}; seed {seed}. Lowest total wins.")
    moves = 0
    while game.status == "active":
        seat = game.turn
        if seat != 0:
            card, cauldron = game.choose(bots[seat - 1], derive_seed(seed, moves))
            report(out, game, names, game.play(seat, card, cauldron))
            moves += 1
            continue
        show_table(out, game, names)
        legal = game.legal_moves()
        out.print(f"your hand: {' '.join(game.hand(0))}")
        out.print("your moves: " + "  ".join(f"{i}) {m.card}→{m.cauldron}" for i, m in enumerate(legal, 1)))
        while True:
            try:
                text = out.input("your move: ").strip()
            except EOFError:
                out.print("\ngame abandoned")
                return 1
            if text.lower() in {"q", "quit", "exit"}:
                out.print("game abandoned")
                return 1
            choice = parse_move(text, legal)
            if isinstance(choice, str):
                out.print(f"[red]{choice}[/red]")
                continue
            try:
                played = game.play(0, choice.card, choice.cauldron)
            except RuleError as refused:
                out.print(f"[red]{refused}[/red] — {HELP}")
                continue
            report(out, game, names, played)
            moves += 1
            break
    out.print(round_table(game, names, title="The game, round by round"))
    winners = [names[seat] for seat in game.winners]
    out.print(f"winner{'s' if len(winners) > 1 else ''}: {', '.join(winners)} (lowest total {min(game.totals)})")
    return 0


def report(console: Console, game: Game, names: list[str], played) -> None:
    line = f"{names[played.seat]} plays {played.card} into cauldron {played.cauldron}: total {played.total}"
    if played.taken:
        line += f" — overflow! {names[played.seat]} takes {' '.join(played.taken)}"
    console.print(line)
    if played.round_over:
        result = game.round_results()[-1]
        scores = ", ".join(f"{names[s]} {score}" for s, score in enumerate(result.scores))
        console.print(f"[bold]round {result.round} scored:[/bold] {scores}")
