"""`poison play`: a person plays seat 0 against bots, in the terminal, in any ruleset.

The game is driven exactly as the service drives it, through events.play in memory: each
move becomes its events, and the bots whose turn follows play from the game's seed and the
log's version (core.rulesets.bot_seed), so a seed plays the same bot moves here as over
HTTP. What each move did is told from its events as seat 0 may see them.
"""

from __future__ import annotations

import argparse
import secrets

from rich.console import Console
from rich.markup import escape

from core import RuleError
from events.codec import Event, Player
from events.play import LoggedGame, create_game, play_move
from service.commands import CommandError, arguments, console, fail
from service.commands.arguments import add_ruleset, add_seats, bots_for, check_players, options_of, ruleset_of
from service.commands.screens import SCREENS, Screen, screen_for

YOU = 0  # the person's seat


def add(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "play",
        help="play a game against bots in the terminal",
        description="Play seat 0 against bots. Each turn shows the table, your hand and your legal moves, "
        "numbered; a move is its number, or typed out ("
        + "; ".join(f"{name}: {screen.example}" for name, screen in SCREENS.items())
        + "); 'q' quits.",
    )
    add_ruleset(command)
    add_seats(command, "greedy", "other seat")
    command.add_argument("--seed", type=arguments.seed, help=f"{arguments.SEED_RANGE} (default: random)")


def tell(out: Console, screen: Screen, logged: LoggedGame, events: list[Event], names: list[str]) -> None:
    """What the events of a move say, as seat 0 may see them."""
    rules = logged.rules
    for line in screen.narrate([rules.visible(event, YOU, finished=False) for event in events], names):
        out.print(line)


def run(args: argparse.Namespace) -> int:
    out = console(highlight=False)
    try:
        ruleset = ruleset_of(args)
        options = options_of(args, ruleset)
        check_players(ruleset, args.players)
        bots = bots_for(args.bots, ruleset, args.players - 1, of="opponents", each="opponent")
        seed = args.seed if args.seed is not None else secrets.randbits(63)
        names = ["you", *(f"{bot} bot {seat}" for seat, bot in enumerate(bots, start=1))]
        players = (
            Player(seat=YOU, name=names[YOU]),
            *(Player(seat=seat, name=names[seat], bot=bot) for seat, bot in enumerate(bots, start=1)),
        )
        events, logged = create_game(ruleset.name, "terminal", players, seed=seed, options=options)
    except CommandError as error:
        return fail("play", error, error.code)
    except RuleError as error:
        return fail("play", error, 2)
    screen = screen_for(ruleset.name)
    names = [escape(name) for name in names]
    out.print(
        f"{ruleset.title}: you are seat 0 against {', '.join(names[1:])}; seed {seed}. "
        f"{screen.best.capitalize()} total wins."
    )
    tell(out, screen, logged, events, names)
    while not logged.finished:
        game = logged.game
        for renderable in screen.position(game, names):
            out.print(renderable)
        legal = game.legal_moves()
        out.print(f"your hand: {' '.join(game.hand(YOU))}")
        out.print("your moves: " + "  ".join(f"{i}) {screen.label(move)}" for i, move in enumerate(legal, 1)))
        while True:
            try:
                text = out.input("your move: ").strip()
            except EOFError:
                out.print("\ngame abandoned")
                return 1
            if text.lower() in {"q", "quit", "exit"}:
                out.print("game abandoned")
                return 1
            choice = screen.parse_move(text, legal)
            if isinstance(choice, str):
                out.print(f"[red]{choice}[/red]")
                continue
            try:
                events, logged = play_move(logged, YOU, choice)
            except RuleError as refused:
                out.print(f"[red]{escape(str(refused))}[/red] — {screen.help}")
                continue
            tell(out, screen, logged, events, names)
            break
    out.print(screen.sheet(logged.game, names, title=screen.play_title))
    for line in screen.ending(logged.game, names):
        out.print(line)
    return 0
