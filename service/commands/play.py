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
import io
import os
import secrets
import select
import sys
import threading
import time
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any, TypeVar

import msgspec
from rich.columns import Columns
from rich.console import Console, RenderableType
from rich.text import Text

from core import RuleError
from core.errors import CLOCK_BOUNDS, SEARCH_BOT
from core.rulesets import DEFAULT_RULESET, Ruleset
from events import play as table
from events.away import DEFAULT_BOT
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
from service.commands.screens.away import away_bots, clock_line, is_away_event, seconds_left, time_words, told
from service.commands.screens.base import said, searchers, strength
from service.commands.screens.seat import Refused, Seat, refusal
from service.i18n import words

#: What a person types to leave the game (the end of input leaves it too).
QUIT = frozenset({"q", "quit", "exit"})
#: What a person types to resign (a bot plays the seat to the end; asked to confirm first).
RESIGN = frozenset({"resign"})
#: What a person whose clock ran out types to play their seat again.
BACK = frozenset({"r", "return", "back"})
#: What confirms a question asked (y/N): anything else is no.
YES = frozenset({"y", "yes"})
#: The bot of every other seat, unless --bots says otherwise.
BOTS = "greedy"
#: The name of your seat in a game made here or on a server, unless --name gives another.
YOUR_NAME = "you"
#: Seconds a move's answer may take before the terminal says who is thinking: a greedy bot
#: answers at once, a search may take seconds, and a still screen should never last longer.
THINKING_AFTER = 0.15
#: Seconds between two looks at the game while a bot plays the person's seat: the board goes
#: on as the game does while the prompt waits for them to come back (a look is one read of
#: the events since the view, and nothing more when nothing happened).
AWAY_LOOK_S = 1.0
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
    server.add_argument(
        "--clock",
        type=arguments.clock_seconds,
        metavar="SECONDS",
        help=words()("cli.help.play.clock", low=CLOCK_BOUNDS[0], high=CLOCK_BOUNDS[1]),
    )
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

    def resign(self) -> list[Event]:
        try:
            events, self.logged = table.resign(self.logged, self.you, DEFAULT_BOT)
        except RuleError as refused:
            raise refusal(refused.code, str(refused), ()) from None
        return self._visible(events)

    def return_to_seat(self) -> list[Event]:
        try:
            events, self.logged = table.come_back(self.logged, self.you)
        except RuleError as refused:
            raise refusal(refused.code, str(refused), ()) from None
        return self._visible(events)

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


class Late:
    """What the keyboard gives when the time to answer ran out before a line was typed."""


#: The one Late: `Keyboard.line(until=...)` returns it.
LATE = Late()


class Keyboard:
    """The lines a person types, read from standard input by one reader, so that a prompt
    with a clock can stop waiting when the clock runs out (the rest of the command's
    questions read through it too, and none of the input is read twice or lost). From a
    real file or terminal it reads with select and os.read (Python's own buffer would read
    a pipe ahead, out of select's sight); from anything else (a test's StringIO) line by line."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        try:
            self.fd: int | None = stream.fileno()
        except (OSError, ValueError, io.UnsupportedOperation):
            self.fd = None
        self._buffer = b""
        self._ended = False

    def line(self, until: float | None = None) -> str | Late | None:
        """The next line typed, without its end; None at the end of the input; LATE when
        `until` (time.monotonic) came first."""
        if self.fd is None:
            text = self.stream.readline()
            return text.removesuffix("\n") if text else None
        while b"\n" not in self._buffer and not self._ended:
            if until is not None and not select.select([self.fd], [], [], max(0.0, until - time.monotonic()))[0]:
                return LATE
            chunk = os.read(self.fd, 4096)
            self._ended = not chunk
            self._buffer += chunk
        if not self._buffer:
            return None
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode(errors="replace").removesuffix("\r")

    def ready(self, seconds: float) -> bool:
        """Whether a line is typed (or the input ended) within `seconds`."""
        if self.fd is None or b"\n" in self._buffer or self._ended:
            return True
        return bool(select.select([self.fd], [], [], seconds)[0])


_keyboards: dict[int, Keyboard] = {}


def keyboard() -> Keyboard:
    """The reader of the standard input this process has now (a test gives each run its own)."""
    found = _keyboards.get(id(sys.stdin))
    if found is None or found.stream is not sys.stdin:
        _keyboards.clear()
        found = _keyboards[id(sys.stdin)] = Keyboard(sys.stdin)
    return found


def read_line(out: Console, prompt: str, until: float | None = None) -> str | Late | None:
    """The prompt, then the line typed after it (stripped), None at the end of the input, or
    LATE when `until` came first."""
    prompted(out, prompt)
    return typed(out, keyboard().line(until))


def prompted(out: Console, prompt: str) -> None:
    """A prompt, shown at once, its line left open for what is typed."""
    out.print(Text(prompt), end="")
    out.file.flush()


def typed(out: Console, text: str | Late | None) -> str | Late | None:
    """What the keyboard gave after a prompt, stripped; at the end of the input the prompt's
    line is ended, as a typed line would have ended it."""
    if text is None:
        out.print()
    return text.strip() if isinstance(text, str) else text


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
        #: The bot that plays each away seat, as the events told it.
        self.bots: dict[int, str] = {}

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
        once too (`now`) while the person watches others move. The away seats' events are
        told in their place among the moves."""
        lines: list[RenderableType] = []
        moves: list[Event] = []
        for event in events:
            if is_away_event(event):
                lines += self.narrate(moves)
                moves = []
                said_away = told(event, self.seat.players)
                lines += [] if said_away is None else [said_away]
                self.bots = away_bots([event], self.bots)
            else:
                moves.append(event)
        lines += self.narrate(moves)
        self.story += lines
        if now or not self.redraw:
            for line in lines:
                self.say(line)

    def narrate(self, events: list[Event]) -> list[RenderableType]:
        """What moves say; the reader's own seat in the third person while a bot plays it."""
        if not events:
            return []
        bot = self.bots.get(self.seat.you)
        players = self.seat.players if bot is None else self.seat.players.away(bot)
        return self.screen.narrate(events, players, self.seat.view)

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
            mine = self.seat.view.players[self.seat.you]
            if mine.resigned:
                self.watch()
                continue
            if self.seat.view.turn != self.seat.you and not mine.away:
                self.watch()
                continue
            self.draw()
            played = self.away() if mine.away else self.turn()
            if played is None:
                self.say(Text(self.farewell()))
                return 0
            self.story = []
            self.tell(played)
        self.draw_end()
        return 0

    def watch(self) -> None:
        """The other seats' moves as they happen, until it is the person's turn or the end."""
        self.draw(waiting=True)
        for moved in self.seat.wait():
            self.tell(moved, now=True)

    def turn(self) -> list[Event] | None:
        """Ask for a move until the game takes one: its events (None: the person left)."""
        view = self.seat.view
        legal = self.screen.legal(view)
        while True:
            left = seconds_left(view)
            if left is None:
                text = self.ask(words()("cli.play.prompt"))
            else:
                text = self.ask(words()("cli.play.prompt_clock", left=time_words(left)), seconds=left)
            if isinstance(text, Late):
                return self.late()
            if text is None or text.lower() in QUIT:
                return None
            if text.lower() in RESIGN:
                if self.confirmed():
                    return self.step(self.seat.resign)
                continue
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

    def late(self) -> list[Event]:
        """The person's time ran out before they moved: what the game did meanwhile (the
        clock's own events, once the server appends them)."""
        self.say()  # after the prompt, which no answer ended
        waiting = iter(self.seat.wait())
        try:
            return next(waiting, [])
        finally:
            close = getattr(waiting, "close", None)
            if close is not None:
                close()

    def away(self) -> list[Event] | None:
        """A bot plays the person's seat (their clock ran out): come back, resign or leave.
        The events of the choice (None: the person left), or what the game did until it
        ended while they were away."""
        while True:
            text = self.watching(words()("cli.away.prompt"))
            if isinstance(text, list):
                return text
            if text is None or text.lower() in QUIT:
                return None
            if text.lower() in BACK:
                return self.step(self.seat.return_to_seat)
            if text.lower() in RESIGN:
                if self.confirmed():
                    return self.step(self.seat.resign)
                continue
            self.say(Text(words()("cli.away.choose"), style="red"))

    def step(self, request: Callable[[], list[Event]]) -> list[Event]:
        """A resignation or a return sent: its events, or, refused (the game moved on, or
        ended), what happened meanwhile."""
        try:
            return patiently(self.out, self.thinking, request)
        except Refused as refused:
            self.say(Text(visible(str(refused)), style="red"))
            return self.seat.catch_up()

    def confirmed(self) -> bool:
        """Whether the person means to resign (asked once more: it cannot be undone)."""
        answer = self.ask(words()("cli.resign.confirm"))
        if isinstance(answer, str) and answer.lower() in YES:
            return True
        self.say(Text(words()("cli.resign.kept")))
        return False

    def ask(self, prompt: str, *, seconds: float | None = None) -> str | Late | None:
        """A line the person typed, None at the end of the input, or LATE when `seconds` ran
        out first. Into a terminal, the clock's line above the prompt counts down meanwhile."""
        until = None if seconds is None else time.monotonic() + seconds
        counted = until is not None and self.redraw
        text = self.counting_down(until) if until is not None and counted else read_line(self.out, prompt, until)
        return self.echoed(text)

    def echoed(self, text: T) -> T:
        """`text`, said once more where the input is not a terminal's (it echoes nothing)."""
        if self.echo and isinstance(text, str):
            self.say(Text(text))
        return text

    def watching(self, prompt: str) -> str | list[Event] | None:
        """A line the person typed after the prompt (None at the end of the input), while
        the game goes on without them: every AWAY_LOOK_S what it did is told (into a
        terminal, on the board drawn again), then the prompt asked again. What the person
        had begun to type stays theirs: the keyboard keeps it. The events, if the game
        ended meanwhile."""
        reader = keyboard()
        prompted(self.out, prompt)
        while isinstance(text := reader.line(time.monotonic() + AWAY_LOOK_S), Late):
            caught = self.seat.catch_up()
            if not caught:
                continue
            if self.seat.view.status != "active":
                self.say()  # the prompt's line ends: the end of the game is drawn next
                return caught
            if not self.redraw:
                self.say()  # the prompt's line ends: the moves follow it
            self.tell(caught)
            if self.redraw:
                self.draw()
            prompted(self.out, prompt)
        answer = typed(self.out, text)
        assert not isinstance(answer, Late)  # the loop ends on a line typed or the input's end
        return self.echoed(answer)

    def counting_down(self, until: float) -> str | Late | None:
        """The clock's line, then the prompt; the line is rewritten each second while the
        person types (the cursor is kept where they type: saved, moved up to the clock's
        line, restored), until a line is typed or the time runs out (LATE)."""
        reader = keyboard()
        shown = self.clock_text()
        self.out.file.write(f"{shown}\n")
        prompted(self.out, words()("cli.play.prompt"))
        while not reader.ready(min(1.0, max(0.0, until - time.monotonic()))):
            if until <= time.monotonic():
                return LATE
            again = self.clock_text()
            if again != shown:
                self.out.file.write(f"\x1b7\x1b[1A\r\x1b[2K{again}\x1b8")
                self.out.file.flush()
                shown = again
        return typed(self.out, reader.line())

    def clock_text(self) -> str:
        """The clock's line as plain text, cut to one line of the terminal (so that the line
        above the prompt is always one line, and can be rewritten in place)."""
        line = clock_line(self.seat.view, self.seat.players)
        return "" if line is None else line.plain[: max(1, self.out.width - 1)]

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
        mine = view.players[self.seat.you]
        self.top()
        self.say()
        for renderable in self.screen.board(view, players):
            self.say(renderable)
        self.say(said("cli.play.hand", cards=self.screen.cards(view.you.hand, empty="cli.none")))
        # On the person's own turn in a terminal, the clock's line counts down above the prompt.
        counted = self.redraw and not waiting and view.turn == self.seat.you and seconds_left(view) is not None
        # While a bot plays the seat, the board is drawn again only when the game moves: no clock.
        if not counted and not mine.away and (clock := clock_line(view, players)) is not None:
            self.say(clock)
        if mine.resigned:
            self.say(Text(words()("cli.away.watching"), style="bold"))
        if waiting:
            self.say(said("cli.play.waiting", name=players.name(view.turn)))
            return
        if mine.away:
            bot = self.bots.get(self.seat.you)
            self.say(said("cli.away.you", known=str(bot is not None).lower(), bot=bot or ""))
            self.say(Text(words()("cli.away.offer")))
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
        if view.clock is not None:  # where a clock runs, a person may also give the seat up
            self.say(Text(words()("cli.resign.offer"), style="dim"))

    def draw_end(self) -> None:
        self.top()
        sheet = self.seat.scores()
        self.say(self.screen.score_sheet(sheet, self.seat.players, title=self.screen.play_title))
        for line in self.screen.ending(sheet, self.seat.players):
            self.say(line)
        if self.seat.view.status == "finished" and (again := self.seat.play_again()):
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
    "clock": "--clock",
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
        given += ["clock"] if args.clock is not None else []
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
