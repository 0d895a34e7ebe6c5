"""The values the rules engine hands out, shared by the compiled core and the reference.

Plain immutable tuples: cheap to build from C, comparable with `==` (the property tests
compare the two implementations value by value) and free of any behaviour of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Generic, Literal, NamedTuple, TypeVar

if TYPE_CHECKING:
    from core.errors import RuleError

#: A potion's colour: a cauldron's, and a colour a seat discards at scoring.
Colour = Literal["red", "blue", "purple"]
#: How Poison's cauldrons get their colour: from their potions, or red, blue, purple all game.
CauldronRule = Literal["dynamic", "fixed"]
#: The bots that can play a seat, in either game, wherever a bot is offered (the service too).
Bot = Literal["random", "greedy"]
#: Every bot the engines play: those, and the search bot `mcts` (its `Game.choose`, `Game.search`
#: and `simulate`; not yet offered by the service).
EngineBot = Literal["random", "greedy", "mcts"]
#: Where a game is: waiting for its cards, being played, or over (either game).
Status = Literal["dealing", "active", "finished"]
#: Colour names in their index order; poison is the fourth suit of a taken pile.
COLOURS: tuple[Colour, Colour, Colour] = ("red", "blue", "purple")
SUITS = (*COLOURS, "poison")

G = TypeVar("G")
M = TypeVar("M")


class Move(NamedTuple):
    """A card code and the cauldron (0, 1, 2) it goes into."""

    card: str
    cauldron: int


class Cauldron(NamedTuple):
    colour: Colour | None  # None while colourless (empty, or poison only)
    total: int
    cards: tuple[str, ...]  # in the order they were played


class Taken(NamedTuple):
    """How many cards of each suit one seat took (face down) in a round."""

    red: int
    blue: int
    purple: int
    poison: int


class Deal(NamedTuple):
    """The hands of one round, seat by seat; `set_aside` is the unused fourth hand of a
    three-player round (empty otherwise). Card order within a hand carries no meaning."""

    hands: tuple[tuple[str, ...], ...]
    set_aside: tuple[str, ...] = ()


class Played(NamedTuple):
    """What one move did."""

    seat: int
    card: str
    cauldron: int
    total: int  # the cauldron's total once the move is complete
    taken: tuple[str, ...]  # what an overflow made the seat take; empty if none
    round_over: bool
    game_over: bool

    @property
    def overflowed(self) -> bool:
        # An overflow always takes something: only a total of 7 or more can overflow.
        return bool(self.taken)


class RoundResult(NamedTuple):
    round: int  # 1-based
    dealer: int
    taken: tuple[Taken, ...]  # per seat
    discarded: tuple[tuple[Colour, ...], ...]  # colours each seat discarded
    scores: tuple[int, ...]


class View(NamedTuple):
    """A game as one seat (or, with `seat` None, the public) may see it."""

    status: Status
    round: int
    rounds: int
    dealer: int
    turn: int | None
    cauldrons: tuple[Cauldron, ...]
    hand_sizes: tuple[int, ...]
    taken: tuple[int, ...]  # pile sizes this round, never their contents
    scores: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    seat: int | None
    hand: tuple[str, ...] | None
    legal_moves: tuple[Move, ...] | None


class Simulation(NamedTuple):
    """Totals over many complete games of bot play."""

    games: int
    moves: int
    wins: tuple[int, ...]  # per seat; a shared win counts for every winner
    score_sum: tuple[int, ...]  # per seat, sum of final totals
    score_squares: tuple[int, ...]  # per seat, sum of squared final totals (for spread)


def merged(parts: Sequence[Simulation]) -> Simulation:
    """The totals of several runs of the same seats (disjoint runs of game numbers, say) as
    one: every figure is a sum, so the order of the parts does not matter."""
    if not parts:
        raise ValueError("merging needs at least one simulation")
    if len({len(part.wins) for part in parts}) != 1:
        raise ValueError("only simulations of as many seats can be merged")
    seats = range(len(parts[0].wins))
    return Simulation(
        sum(part.games for part in parts),
        sum(part.moves for part in parts),
        tuple(sum(part.wins[seat] for part in parts) for seat in seats),
        tuple(sum(part.score_sum[seat] for part in parts) for seat in seats),
        tuple(sum(part.score_squares[seat] for part in parts) for seat in seats),
    )


class Searched(NamedTuple, Generic[M]):
    """What one search of the `mcts` bot found, for the seat to move."""

    move: M  # the move chosen: the one tried most often
    playouts: int  # the playouts made (fewer than the budget when milliseconds ran out; 0 if forced)
    moves: tuple[M, ...]  # every legal move, in canonical order
    visits: tuple[int, ...]  # the playouts that began with each of them


class Replayed(NamedTuple, Generic[G]):
    """The outcome of replaying a recorded game."""

    game: G  # the game after the last move that was applied
    applied: int  # how many moves were applied
    error: RuleError | None  # why the replay stopped early; None when every move was legal

    @property
    def illegal_at(self) -> int | None:
        """Index of the first move that could not be applied, if any."""
        return None if self.error is None else self.applied


# ---- the pot game (rules.md, "The pot game") ----------------------------------------------


class PotMove(NamedTuple):
    """A legal move of the pot game: a card, and whether the pot is closed after it."""

    card: str
    close: bool


class PotDeal(NamedTuple):
    """The deal of a pot game: the only random fact of it."""

    hands: tuple[tuple[str, ...], ...]  # four cards per seat, in canonical order (T0..T6)
    pot: str  # the card that starts the first pot
    draw_pile: tuple[str, ...]  # top first


class PotResult(NamedTuple):
    """One line of the score sheet: a pot that ended."""

    seat: int  # who closed it, or whose card exploded it
    outcome: str  # "closed" or "exploded"
    cards: tuple[str, ...]  # in the order they went in
    toxicity: int
    points: int  # 0 for an explosion


class PotPlayed(NamedTuple):
    """What one move of the pot game did, in the order it happened."""

    seat: int
    card: str
    close: bool
    toxicity: int  # the pot's toxicity right after the card went in
    ended: PotResult | None  # the pot this move exploded, or closed on request
    started: str | None  # the draw pile's card that started the next pot, if any
    drawn: tuple[str, ...]  # the cards the seat drew back up to four (in draw order)
    final: PotResult | None  # the last pot, closed when the last card of any hand went in
    game_over: bool


class PotView(NamedTuple):
    """A pot game as one seat (or, with `seat` None, the public) may see it."""

    status: Status
    turn: int | None
    endgame: bool  # the draw pile is empty: no more closing, no more drawing
    pot: tuple[str, ...]
    toxicity: int
    draw_pile: int  # a count, never the order
    hand_sizes: tuple[int, ...]
    pots: tuple[PotResult, ...]
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    seat: int | None
    hand: tuple[str, ...] | None
    legal_moves: tuple[PotMove, ...] | None
