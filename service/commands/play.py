"""`poison play`: a person plays one seat of a game at the terminal, here or on a server.

Here, the game is driven exactly as the service drives it, in memory: events.play turns each
move into its events and lets the bots whose turn follows play from the game's seed and the
log's version (core.rulesets.bot_seed), so a seed plays the same bot moves here as over HTTP;
what the seat sees is made by the service's own views. On a server (`--server URL`), the
same is read over the HTTP API (service.commands.remote). Either way the terminal draws only
what a `Seat` gives (service.commands.screens.seat), so the two look the same.

Into a terminal, the board is redrawn every turn, with what happened since your last move
above it; into a pipe or a file, the same lines scroll by once each, in plain text (what was
typed is echoed after its prompt, so a transcript reads as the game went). A search bot
(`--bots mcts` or `mcts:N`, N playouts a move) may take a while to answer: when a move's
answer takes visibly long, the terminal says who is thinking until it comes.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import threading
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any, TypeVar

import msgspec
from rich.columns import Columns
from rich.console import Console, RenderableType
from rich.text import Text

from core import RuleError
from core.errors import SEARCH_BOT
from core.rulesets import DEFAULT_RULESET, Ruleset
from events.codec import Event, Player
from events.play import create_game, play_move
from service.commands import CommandError, Commands, add_command, arguments, console, fail, visible
from service.commands.arguments import (
    add_ruleset,
    add_seats,
    check_players,
    engine_seats_for,
    options_of,
    ruleset_of,
)
from service.commands.screens import SCREENS, Players, Screen, screen_for
from service.commands.screens.base import said, searchers, strength
from service.commands.screens.seat import Refused, Seat, refusal
from service.i18n import words

#: What a person types to leave the game (the end of input leaves it too).
QUIT = frozenset({"q", "quit", "exit"})
#: The bot of every other seat, unless --bots says otherwise.
BOTS = "greedy"
#: The name of your seat in a game made here or on a server, unless --name gives another.
YOUR_NAME = "you"
#: Seconds a move's answer may take before the terminal says who is thinking: a greedy bot
#: answers at once, a search may take seconds, and a still screen should never last longer.
THINKING_AFTER = 0.15
#: The defaults of the options that describe a new game: a game joined with --game has its
#: own, so there they are refused (see `check_server_options`).
NEW_GAME_DEFAULTS = {"ruleset": DEFAULT_RULESET, "players": 4, "bots": BOTS, "seat": 0}


class Paragraphs(argparse.HelpFormatter):
    """Help filled to the terminal's width paragraph by paragraph (argparse would run the
    epilog's paragraphs into one)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n\n".join(super(Paragraphs, self)._fill_text(part, width, indent) for part in text.split("\n\n"))


def add(commands: Commands) -> None:
    command = add_command(
        commands,
        "play",
        {"examples": "; ".join(f"{name}: {screen.example}" for name, screen in SCREENS.items())},
        epilog=words()("cli.help.play.epilog"),
        formatter_class=Paragraphs,
    )
    add_ruleset(command)
    add_seats(command, BOTS, "other_seat", engine=True)
    command.add_argument(
        "--seed", type=arguments.seed, help=words()("cli.help.play.seed", range=arguments.seed_range())
    )
    command.add_argument("--seat", type=int, metavar="N", help=words()("cli.help.play.seat"))
    server = command.add_argument_group(
        words()("cli.help.play.server_group"), words()("cli.help.play.server_description")
    )
    server.add_argument("--server", metavar="URL", help=words()("cli.help.play.server"))
    server.add_argument("--game", metavar="ID", help=words()("cli.help.play.game"))
    server.add_argument("--token", help=words()("cli.help.play.token"))
    server.add_argument("--open", type=arguments.whole_number, metavar="N", help=words()("cli.help.play.open"))
    server.add_argument("--list", action="store_true", help=words()("cli.help.play.list"))
    server.add_argument("--join", metavar="ID", help=words()("cli.help.play.join"))
    server.add_argument("--name", help=words()("cli.help.play.name", name=YOUR_NAME))
    server.add_argument("--rematch", action="store_true", help=words()("cli.help.play.rematch"))
    # None tells an option given from one left out: a game joined with --game has its own.
    command.set_defaults(**dict.fromkeys(NEW_GAME_DEFAULTS))


# -- a game played here ------------------------------------------------------------------------


def unset_if_none(playouts: int | None) -> int | msgspec.UnsetType:
    """A seat's playouts as events.codec.Player takes them: left out (UNSET: the ruleset's
    default for a search bot, and nothing at all for another bot), or the number given."""
    return msgspec.UNSET if playouts is None else playouts


def bot_name(bot: str, seat: int) -> str:
    """A bot's seat named by what plays it: "greedy bot 2", "mcts bot 1" (here and on a server)."""
    return f"{bot} bot {seat}"


class LocalSeat:
    """A game played in memory, with the service's code: the person at seat `you`, bots in
    every other seat."""

    def __init__(
        self, ruleset: Ruleset, bots: list[arguments.Seat], you: int, seed: int, options: dict[str, Any]
    ) -> None:
        seats = [seat for seat in range(len(bots) + 1) if seat != you]
        bot_of = dict(zip(seats, bots, strict=True))
        names = ["you" if seat == you else bot_name(bot_of[seat].bot, seat) for seat in range(len(bots) + 1)]
        created = tuple(
            Player(seat=seat, name=name)
            if seat == you
            else Player(seat=seat, name=name, bot=bot_of[seat].bot, playouts=unset_if_none(bot_of[seat].playouts))
            for seat, name in enumerate(names)
        )
        events, self.logged = create_game(ruleset.name, "terminal", created, seed=seed, options=options)
        self.you = you
        self.seed = seed
        self.players = Players.of(names, you)
        self._opening = self._visible(events)

    @property
    def view(self) -> Any:
        # The service's views (without Litestar: tests/service/test_cli_imports.py) are
        # imported when a game is drawn, not whenever `poison` starts (`poison simulate`).
        from service.views import game_view

        return game_view(self.logged, seat=self.you)

    def _visible(self, events: Iterable[Event]) -> list[Event]:
        """The events as this seat may see them, as the service shows them."""
        rules = self.logged.rules
        return [rules.visible(event, self.you, self.logged.finished) for event in events]

    def opening(self) -> list[Event]:
        return self._opening

    def play(self, move: tuple[Any, ...]) -> list[Event]:
        try:
            events, self.logged = play_move(self.logged, self.you, move)
        except RuleError as refused:
            raise refusal(refused.code, str(refused), move) from None
        return self._visible(events)

    def wait(self) -> Iterable[list[Event]]:
        return ()  # the bots answer each move at once: here it is never another's turn

    def catch_up(self) -> list[Event]:
        return []  # nothing plays this game but this command

    def scores(self) -> Any:
        from service.views import scores

        return scores(self.logged)

    def where(self) -> Text:
        return said("cli.play.seed", seed=str(self.seed))

    def come_back(self) -> str | None:
        return None  # the game lives in this process only

    def play_again(self) -> str | None:
        return None  # a new `poison play` is the next game


# -- the terminal -------------------------------------------------------------------------------


class Terminal:
    """One seat's game drawn on a console: redrawn every turn into a terminal, told line by
    line into a pipe."""

    def __init__(self, seat: Seat, screen: Screen, out: Console, title: str) -> None:
        self.seat = seat
        self.screen = screen
        self.out = out
        self.redraw = out.is_terminal
        self.echo = not sys.stdin.isatty()
        players = seat.players
        others = [s for s in range(len(players)) if s != seat.you]
        self.header = said(
            "cli.play.header",
            game=title,
            seat=seat.you,
            others=Text(words()("cli.comma")).join(self.named(other) for other in others),
            where=seat.where(),
            best=screen.best,
        )
        #: What happened since the person's last move, as told (a redrawn board shows it again).
        self.story: list[RenderableType] = []

    def named(self, seat: int) -> Text:
        """A seat's name, with its strength if a search bot plays it ("mcts bot 1 (2,000 playouts)")."""
        shown = strength(self.seat.view.players[seat])
        name = self.seat.players.name(seat)
        return name if shown is None else said("cli.play.strength", name=name, strength=shown)

    def thinking(self) -> Text:
        """Who the person waits for while a move's answer takes long: the search bots."""
        seats = searchers(self.seat.view.players)
        if not seats:
            return said("cli.play.waiting_answer")
        return said("cli.play.thinking", count=len(seats), names=self.seat.players.listed(seats))

    def say(self, *renderables: RenderableType) -> None:
        # Into a terminal, rich wraps lines between words at its width (the console never
        # breaks lines into a pipe, so a transcript keeps one line per line).
        self.out.print(*renderables, soft_wrap=not self.redraw)

    def tell(self, events: Iterable[Event], *, now: bool = False) -> None:
        """Narrate events: into a pipe at once; into a terminal with the next board, or at
        once too (`now`) while the person watches others move."""
        lines = self.screen.narrate(list(events), self.seat.players, self.seat.view)
        self.story += lines
        if now or not self.redraw:
            for line in lines:
                self.say(line)

    def play(self) -> int:
        """The game to its end, or until the person leaves it: the exit status. Ctrl-C is
        not caught here: the command line ends every command it stops alike."""
        try:
            return self._play()
        except KeyboardInterrupt:
            self.say()  # after the prompt or a terminal's "^C": what is said next has its own line
            raise

    def _play(self) -> int:
        if not self.redraw:
            self.say(self.header)
        self.tell(self.seat.opening())
        while self.seat.view.status == "active":
            if self.seat.view.turn != self.seat.you:
                self.draw(waiting=True)
                for moved in self.seat.wait():
                    self.tell(moved, now=True)
                continue
            self.draw()
            played = self.turn()
            if played is None:
                self.say(Text(self.farewell()))
                return 0
            self.story = []
            self.tell(played)
        self.draw_end()
        return 0

    def turn(self) -> list[Event] | None:
        """Ask for a move until the game takes one: its events (None: the person left)."""
        view = self.seat.view
        legal = self.screen.legal(view)
        while True:
            text = self.ask(words()("cli.play.prompt"))
            if text is None or text.lower() in QUIT:
                return None
            move = self.screen.parse_move(text, legal, view)
            if isinstance(move, str):
                self.say(Text(visible(move), style="red"))
                continue
            try:
                return patiently(self.out, self.thinking, partial(self.seat.play, move))
            except Refused as refused:
                self.say(
                    said("cli.play.refused", refusal=Text(visible(str(refused)), style="red"), help=self.screen.help)
                )
                if refused.stale:
                    return self.seat.catch_up()  # the game moved on: draw it as it is now

    def ask(self, prompt: str) -> str | None:
        """A line the person typed, or None at the end of the input."""
        try:
            text = self.out.input(prompt).strip()
        except EOFError:
            self.say()
            return None
        if self.echo:
            self.say(Text(text))
        return text

    def farewell(self) -> str:
        left = words()("cli.play.left", version=str(self.seat.view.version))
        come_back = self.seat.come_back()
        return left if come_back is None else words()("cli.play.come_back", left=left, come_back=come_back)

    # -- frames --------------------------------------------------------------------------------

    def top(self) -> None:
        """Into a terminal, a fresh screen: the headline and what happened since your move."""
        if self.redraw:
            self.out.clear()
            self.say(self.header)
            for line in self.story:
                self.say(line)

    def draw(self, *, waiting: bool = False) -> None:
        view = self.seat.view
        players = self.seat.players
        self.top()
        self.say()
        for renderable in self.screen.board(view, players):
            self.say(renderable)
        self.say(said("cli.play.hand", cards=self.screen.cards(view.you.hand, empty="cli.none")))
        if waiting:
            self.say(said("cli.play.waiting", name=players.name(view.turn)))
            return
        labels = [
            said("cli.play.numbered", number=number, move=self.screen.label(move))
            for number, move in enumerate(self.screen.legal(view), 1)
        ]
        if self.redraw:
            # Each move in one piece: the list wraps between moves, never inside one.
            self.say(said("cli.play.moves", moves=Text()))
            self.say(Columns(labels, padding=(0, 2)))
        else:
            self.say(said("cli.play.moves", moves=Text.assemble(" ", Text("  ").join(labels))))

    def draw_end(self) -> None:
        self.top()
        sheet = self.seat.scores()
        self.say(self.screen.score_sheet(sheet, self.seat.players, title=self.screen.play_title))
        for line in self.screen.ending(sheet, self.seat.players):
            self.say(line)
        if again := self.seat.play_again():
            self.say(Text(again))


T = TypeVar("T")


def starting(bots: list[arguments.Seat]) -> Callable[[], Text]:
    """What a new game's making says when it takes long: the bots before your seat play their
    first moves as it is made (here or on a server), and a search among them takes a while."""
    searching = any(bot.bot == SEARCH_BOT for bot in bots)
    return lambda: said("cli.play.bots_thinking" if searching else "cli.play.making")


def patiently(out: Console, words: Callable[[], Text], work: Callable[[], T], *, after: float = THINKING_AFTER) -> T:
    """`work()`'s result (or its exception). Into a terminal, once it has taken `after`
    seconds (THINKING_AFTER), a spinner with `words()` shows until it is done, then vanishes:
    the person never faces a still screen with no word. The work runs on a thread of its own
    (the search releases the GIL, so the spinner turns); Ctrl-C still ends the command at once
    (the thread is a daemon, left to end with the process). Into a pipe, nothing is added to
    the transcript."""
    if not out.is_terminal:
        return work()
    outcome: list[tuple[bool, Any]] = []

    def run() -> None:
        try:
            outcome.append((True, work()))
        except BaseException as error:  # handed to the caller, as if it had run there
            outcome.append((False, error))
        finally:
            done.set()

    done = threading.Event()
    threading.Thread(target=run, name="poison-play-answer", daemon=True).start()
    if not done.wait(after):
        with out.status(words(), spinner="dots"):
            done.wait()
    succeeded, value = outcome[0]
    if not succeeded:
        raise value
    result: T = value
    return result


# -- the command ----------------------------------------------------------------------------------


def new_game(args: argparse.Namespace) -> tuple[Ruleset, dict[str, Any], list[arguments.Seat], int]:
    """The new game the options describe: its ruleset and options, the bots of the other
    seats, and your seat (CommandError for any option out of bounds)."""
    for name, default in NEW_GAME_DEFAULTS.items():
        if getattr(args, name) is None:
            setattr(args, name, default)
    ruleset = ruleset_of(args)
    options = options_of(args, ruleset)
    check_players(ruleset, args.players)
    if not 0 <= args.seat < args.players:
        raise CommandError(words()("cli.error.play.seat", seat=args.seat, players=args.players, last=args.players - 1))
    waiting = args.open or 0
    if not 0 <= waiting < args.players:
        raise CommandError(
            words()("cli.error.play.open_many", open=waiting, players=args.players, others=args.players - 1)
            if waiting > 0
            else words()("cli.error.play.open_few", open=waiting)
        )
    if waiting and args.seed is not None:
        # As the service refuses it (seed_with_open_seats), in the command's own words.
        raise CommandError(words()("cli.error.play.seed_open", seed=str(args.seed), open=waiting))
    bots = engine_seats_for(args.bots, ruleset, args.players - 1 - waiting, of="other_seats")
    return ruleset, options, bots, args.seat


#: The options that only play on a server, as they are written.
SERVER_ONLY = {
    "game": "--game",
    "token": "--token",
    "open": "--open",
    "list": "--list",
    "join": "--join",
    "name": "--name",
    "rematch": "--rematch",
}


def check_server_options(args: argparse.Namespace) -> None:
    # An empty id or token is refused here: it would read as no option below, then as one.
    for flag, value, wanted in (
        ("--game", args.game, "game"),
        ("--join", args.join, "game"),
        ("--token", args.token, "token"),
    ):
        if value is not None and not value.strip():
            raise CommandError(words()("cli.error.play.empty", flag=flag, wanted=wanted))
    given_server = [flag for name, flag in SERVER_ONLY.items() if getattr(args, name) not in (None, False)]
    if args.server is None and (args.game is not None or args.token is not None):
        raise CommandError(words()("cli.error.play.game_token_server"))
    if args.server is None and given_server:
        raise CommandError(words()("cli.error.play.needs_server", flag=given_server[0]))
    if (args.game is None) != (args.token is None):
        raise CommandError(words()("cli.error.play.together"))
    if args.rematch and args.game is None:
        raise CommandError(words()("cli.error.play.rematch"))
    # One way to a seat at a time: a game's token, an open seat, or the list to choose from.
    ways = [flag for flag, given in (("--game", args.game), ("--join", args.join), ("--list", args.list)) if given]
    if len(ways) > 1:
        raise CommandError(words()("cli.error.play.two_ways", first=ways[0], second=ways[1]))
    if args.game is not None or args.join is not None or args.list:
        way = ways[0]
        given = [name for name in NEW_GAME_DEFAULTS if getattr(args, name) is not None]
        if way == "--join" and "seat" in given:
            given.remove("seat")  # --join --seat N: which open seat to take
        given += [name for name, value in vars(args).items() if name.startswith("option_") and value is not None]
        given += ["seed"] if args.seed is not None else []
        given += ["open"] if args.open is not None else []
        if given:
            flag = "--" + given[0].removeprefix("option_").replace("_", "-")
            raise CommandError(words()("cli.error.play.new_game_only", flag=flag, way=way))
        if args.name is not None and way == "--game":
            raise CommandError(words()("cli.error.play.name_token"))


def run(args: argparse.Namespace) -> int:
    """A game played here (a game on a server, --server, is service.commands.remote's: the
    command line picks, so that this module never imports that one, which imports it)."""
    out = console(highlight=False)
    try:
        check_server_options(args)
        ruleset, options, bots, you = new_game(args)
        seed = args.seed if args.seed is not None else secrets.randbits(63)
        # The bots before your seat play as the game is made: a search among them may take a while.
        seat = patiently(out, starting(bots), partial(LocalSeat, ruleset, bots, you, seed, options))
    except CommandError as error:
        return fail("play", error, error.code)
    except RuleError as error:
        return fail("play", error, 2)
    screen = screen_for(ruleset.name)
    return Terminal(seat, screen, out, screen.title).play()
