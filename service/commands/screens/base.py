"""The interface of a ruleset's screen (service.commands.screens has one per ruleset), and
what every screen shares: who sits where and how they are named, coloured cards, moves
parsed from what a person types.

`poison play` draws a game only from what the HTTP API shows a seat (service.schemas: its
GameView, score sheet and events), whether the game is played here or on a server, so the
two can never look different. `poison replay` draws a whole log from the engine's state.
Names from outside are never read as markup: play builds rich Text from them, and replay
gives them as markup that shows them exactly (service.commands.literal).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from core.errors import SEARCH_BOT
from core.rulesets import Ruleset
from events.codec import Event
from service.commands import visible
from service.i18n import isolated, words

#: How the person's own seat is called in English (the catalogue's `cli.you`): every line
#: about it is in the second person.
YOU = "you"
#: What stands for a styled argument while a message is formatted: never in a catalogue.
_SLOT = "\x00"


def said(key: str, /, **args: Any) -> Text:
    """The catalogue's message `key` in the reader's language as rich Text: an argument that
    is Text (a name in bold, a card in its colour) keeps its style where the message puts it."""
    styled = {name: value for name, value in args.items() if isinstance(value, Text)}
    order = list(styled)
    plain = {name: f"{_SLOT}{order.index(name)}{_SLOT}" if name in styled else value for name, value in args.items()}
    pieces = words()(key, **plain).split(_SLOT)
    # Formatted, the message alternates words and slot numbers: "a", "0", " b", "1", "".
    return Text.assemble(*(styled[order[int(piece)]] if odd else piece for odd, piece in _alternate(pieces)))


def _alternate(pieces: list[str]) -> Iterable[tuple[bool, str]]:
    return ((index % 2 == 1, piece) for index, piece in enumerate(pieces))


@dataclass(frozen=True)
class Players:
    """The seats' names as one seat sees them: its own is "you", and the verbs agree ("you
    play", "ada plays"). `you` is None for a reader who holds no seat."""

    names: tuple[str, ...]
    you: int | None = None
    #: Who plays the reader's seat while they are away ("the greedy bot, for you,"): the
    #: sentences of its moves name it in the third person (the seats table still says "you").
    stand_in: str | None = None

    @classmethod
    def of(cls, names: Iterable[str], you: int | None) -> Players:
        """Seats named as a game names them, yours called "you"; another seat that is itself
        named "you" is told apart by its number. What a terminal would obey in a name (an
        escape, a newline) is shown written out instead."""
        shown = []
        you_word = words()("cli.you")
        for seat, name in enumerate(map(visible, names)):
            if seat == you:
                shown.append(you_word)
            elif you is not None and name.casefold() in {YOU, you_word.casefold()}:
                shown.append(words()("cli.seat.named", name=name, seat=seat))
            else:
                shown.append(name)
        return cls(tuple(shown), you)

    def __len__(self) -> int:
        return len(self.names)

    def name(self, seat: int) -> Text:
        """A seat's name isolated in its own direction (FSI ... PDI); yours, the reader's
        own word for "you", in bold."""
        if seat == self.you:
            return Text(self.names[seat] if self.stand_in is None else self.stand_in, style="bold")
        return Text(isolated(self.names[seat]))

    def cell(self, seat: int) -> Text:
        """A seat's name alone in a table's cell: not isolated, since the cell holds nothing
        else for it to reorder, and a terminal that draws FSI and PDI as marks (tmux does)
        would push that row's columns two cells out of line with the others."""
        if seat == self.you:
            return Text(self.names[seat], style="bold")
        return Text(self.names[seat])

    def who(self, seat: int) -> str:
        """The `who` of a message whose verb agrees with its subject: "you play", "ada plays"."""
        return "you" if seat == self.you and self.stand_in is None else "other"

    def did(self, key: str, seat: int, /, **args: Any) -> Text:
        """The message `key` of what `seat` did, its `who` and `name` filled in, so that its
        verb agrees with the seat ("you play R5", "ada plays R5")."""
        return said(key, who=self.who(seat), name=self.name(seat), **args)

    def away(self, bot: str) -> Players:
        """The seats as the moves of the reader's seat are told while `bot` plays it."""
        return replace(self, stand_in=words()("cli.away.for_you", bot=bot))

    def listed(self, seats: Iterable[int]) -> Text:
        return Text(words()("cli.comma")).join(self.name(seat) for seat in seats)


def strength(player: Any) -> str | None:
    """A search bot's strength as a seat of a view or a listing carries it ("2,000
    playouts"), or None for a seat that does not search (the API gives it no `playouts`)."""
    playouts = getattr(player, "playouts", None)  # None, or UNSET, where a Struct omits it
    return words()("cli.playouts", count=playouts) if isinstance(playouts, int) else None


def seat_state(player: Any) -> str | None:
    """A seat's state beside its name in the seats table ("(away)", "(resigned)": a bot plays
    it for its person), or None while its person plays it."""
    if getattr(player, "resigned", False):
        return words()("cli.seat.resigned")
    if getattr(player, "away", False):
        return words()("cli.seat.away")
    return None


def searchers(players: Sequence[Any]) -> list[int]:
    """The seats the search bot plays: the ones whose moves may take visibly long."""
    return [seat for seat, player in enumerate(players) if getattr(player, "bot", None) == SEARCH_BOT]


class Scored(Protocol):
    """What the score sheets read of a game: the API's sheet or the engine's game alike."""

    @property
    def totals(self) -> Sequence[int]: ...
    @property
    def winners(self) -> Sequence[int]: ...


class Screen(ABC):
    """One ruleset in the terminal. In replay's methods `game` is the ruleset's engine Game
    and `names` are already escaped; play's take the API's bodies and `Players`."""

    ruleset: Ruleset
    #: A legal move as the API shows it (the ruleset's `move_out_type`): its fields, by name,
    #: in the order of the engine's moves.
    move_type: type[Any]

    @property
    def help(self) -> str:
        """How a person types a move in `poison play` (after its number in the list)."""
        return words()(f"cli.{self.ruleset.name}.help")

    @property
    def example(self) -> str:
        """A typed move or two, for `poison play --help`."""
        return words()(f"cli.{self.ruleset.name}.example")

    @property
    def play_title(self) -> str:
        """The title of the score sheet at the end of `poison play`."""
        return words()(f"cli.{self.ruleset.name}.play_title")

    # -- replay: a log's game, from the engine -------------------------------------------

    def sheet(self, game: Any, names: Sequence[str], title: str | None = None) -> Table:
        """The score sheet so far (round by round, pot by pot, ...) and the totals."""
        return self.sheet_of(game.results(), game.totals, names, title)

    def scored(self, game: Any) -> bool:
        """Whether anything has been scored yet (the sheet has a line)."""
        return bool(game.results())

    @abstractmethod
    def headline(self, created: Any, game: Any) -> str:
        """What a log's game_created says, in one line ("game g1: 4 players, ...")."""

    @abstractmethod
    def in_play(self, game: Any, names: Sequence[str]) -> list[RenderableType]:
        """Where an unfinished game stands, for the public (no hand is shown)."""

    # -- play: one seat's game, from the API's bodies ------------------------------------

    @abstractmethod
    def card_style(self, card: str) -> str:
        """The rich style of a card: its suit's colour (never alone: the code is shown too)."""

    @abstractmethod
    def board(self, view: Any, players: Players) -> list[RenderableType]:
        """The table as a seat sees it from its GameView (without its hand)."""

    def score_sheet(self, scores: Any, players: Players, title: str | None = None) -> Table:
        """The API's score sheet (GET /scores) as a table, with the totals."""
        names = [players.cell(seat) for seat in range(len(players))]
        return self.sheet_of(self.score_lines(scores), scores.totals, names, title)

    @abstractmethod
    def score_lines(self, scores: Any) -> Sequence[Any]:
        """The lines of the API's score sheet (its rounds, its pots), as `sheet_of` reads them."""

    @abstractmethod
    def sheet_of(self, lines: Sequence[Any], totals: Sequence[int], names: Sequence[Name], title: str | None) -> Table:
        """A score sheet's table: `lines` are the engine's results or the API's score lines
        alike (they have the same fields), then a row of `totals`."""

    @abstractmethod
    def label(self, move: Sequence[Any]) -> Text:
        """A move (the ruleset's fields after the seat: `(card, cauldron)`, `(card, close)`)
        as the list of moves shows it."""

    @abstractmethod
    def typed(self, parts: list[str], view: Any) -> tuple[Any, ...] | str | None:
        """The move the parts name (not checked against the rules), what is wrong with it
        when the view alone can tell, or None if the parts name no move."""

    def move_fields(self, move: Sequence[Any]) -> dict[str, Any]:
        """A move as the API's move body has it ({"card": "R5", "cauldron": 0})."""
        return dict(zip(self.move_type.__struct_fields__, move, strict=True))

    def create_body(self, players: list[dict[str, Any]], seed: int | None, options: dict[str, Any]) -> dict[str, Any]:
        """The body of POST /v1/games for a new game of this ruleset."""
        body: dict[str, Any] = {"ruleset": self.ruleset.name, "players": players}
        if seed is not None:
            body["seed"] = seed
        return body | self.options_body(options)

    def options_body(self, options: dict[str, Any]) -> dict[str, Any]:
        """The create body's fields for the options given (None: the game's default)."""
        return {}

    @abstractmethod
    def narrate(self, events: Sequence[Event], players: Players, view: Any) -> list[RenderableType]:
        """What a move's events say, line by line (a scored round as its table), as the
        seat may see them; `view` is the game at or after the last of them."""

    # -- the same for every ruleset -------------------------------------------------------

    @property
    def best(self) -> str:
        """Which total wins, as a message's `best` selects: "lowest" or "highest"."""
        return "lowest" if self.ruleset.lowest_wins else "highest"

    def winning_total(self, game: Scored) -> int:
        return int(game.totals[game.winners[0]])

    @staticmethod
    def _columns(*columns: str) -> list[str]:
        """The headings of a table's columns (the catalogue's `cli.column.<name>`)."""
        return [words()(f"cli.column.{column}") for column in columns]

    def seats(self, view: Any, players: Players, *own: str) -> Table:
        """The board's seats: each one's number, name and hand size, the ruleset's `own`
        counts (fields of a seat in the view, each its column), and its total."""
        number = words().number
        table = seats_table(self._columns("seat", "player", "hand", *own, "total"))
        for player in view.players:
            state = seat_state(player)
            name = players.cell(player.seat)
            table.add_row(
                number(player.seat),
                name if state is None else Text.assemble(name, " ", Text(state, style="dim")),
                number(player.hand_size),
                *(number(getattr(player, field)) for field in own),
                number(view.totals[player.seat]),
            )
        return table

    def card(self, card: str) -> Text:
        return Text(card, style=self.card_style(card))

    def cards(self, cards: Sequence[str], empty: str = "cli.empty") -> Text:
        """The cards, each in its colour, or the message `empty` for none."""
        return Text(" ").join(self.card(card) for card in cards) if cards else Text(words()(empty))

    def legal(self, view: Any) -> list[tuple[Any, ...]]:
        """The legal moves of the view's `you`, as tuples of the move's fields."""
        return [tuple(self.move_fields_of(move)) for move in view.you.legal_moves]

    @staticmethod
    def move_fields_of(move: Any) -> tuple[Any, ...]:
        # The API's move Structs list their fields in the order of the engine's moves.
        return tuple(getattr(move, field) for field in move.__struct_fields__)

    def parse_move(self, text: str, legal: Sequence[tuple[Any, ...]], view: Any) -> tuple[Any, ...] | str:
        """The move the person typed (its number in the list, or typed out), or what is
        wrong with it."""
        parts = text.split()
        if len(parts) == 1 and parts[0].isdecimal():  # isdigit() takes "²", int() not
            number = int(parts[0])
            if 1 <= number <= len(legal):
                return tuple(legal[number - 1])
            return words()("cli.move.none", number=number, last=len(legal))
        move = self.typed(parts, view)
        if move is None:
            return words()("cli.move.unknown", typed=repr(text), help=self.help)
        if not isinstance(move, str) and move[0] not in self.ruleset.card_codes:
            return words()(
                "cli.move.card", card=repr(move[0]), game=self.title, codes=" ".join(self.ruleset.card_codes)
            )
        return move

    @property
    def title(self) -> str:
        """The game's name in the reader's language (`poison.title`, `pot.title`)."""
        return words()(f"{self.ruleset.name}.title")

    def ending(self, scores: Scored, players: Players) -> list[Text]:
        """The last lines of `poison play`, after the score sheet."""
        totals = Text(words()("cli.comma")).join(
            said("cli.total.of", name=players.name(seat), total=total) for seat, total in enumerate(scores.totals)
        )
        if not scores.winners:  # abandoned: the game ended before anyone could win it
            return [said("cli.final", totals=totals), Text(words()("cli.no_winners"), style="bold")]
        return [
            said("cli.final", totals=totals),
            said(
                "cli.winners",
                count=len(scores.winners),
                names=players.listed(scores.winners),
                best=self.best,
                total=self.winning_total(scores),
            ),
        ]


def follows(lines: list[RenderableType], consequence: Text) -> None:
    """What a card caused (an overflow, an explosion, a closing), told after the card's own
    line ("… — overflow! …"), or on a line of its own if the card is not in `lines`."""
    if lines and isinstance(lines[-1], Text):
        lines[-1].append_text(said("cli.then", consequence=consequence))
    else:
        lines.append(consequence)


#: A seat's name on a sheet: a rich Text (play), or markup with the name escaped (replay).
Name = str | Text


def as_text(name: Name) -> Text:
    return name if isinstance(name, Text) else Text.from_markup(name, emoji=False)


def seats_table(columns: Sequence[str], title: str | None = None) -> Table:
    """A borderless table of the seats, as the board shows them (a narrow terminal keeps
    its columns whole longer than with borders)."""
    table = Table(title=title, title_justify="left", show_edge=False, box=None, padding=(0, 1), pad_edge=False)
    for column in columns:
        table.add_column(column)
    return table
