"""What both games' plain-Python references share (core/poison/reference.py,
core/pot/reference.py), written once as the compiled engines share core/face.pyx.

The random numbers (splitmix64, the same as core/splitmix.pxd's, so a seed deals and plays
the same game in a reference and in its engine), the checks of what every game takes
(seeds, bots), `PlainGame`, the part of a reference's game that is the same in every game
(seats, hands, results, the bots' choice, a seat's part of a view), and the loops of
`replay` and `simulate`. Like the references it imports nothing compiled: it is the
oracle's, and must prove what the engines do, not repeat it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Generic, Self, TypeGuard, TypeVar

from core import errors
from core.results import Replayed, Simulation, Status

#: The bots both implementations of every game play (core.face's BOTS, in plain Python).
BOTS = ("random", "greedy")
#: A game's status: `dealing` while it waits for a deal, `active` while a seat is to move.
STATUSES: tuple[Status, ...] = ("dealing", "active", "finished")

# ---- random numbers: splitmix64, the same as the engines', so seeds agree -----------------

MASK = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15


def mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def stream_seed(seed: int, stream: int) -> int:
    """An independent seed for one use (a round's deal, a bot's choices) of a game seed."""
    return mix64((seed + stream * GOLDEN_GAMMA) & MASK)


class Random:
    def __init__(self, state: int) -> None:
        self.state = state

    def next(self) -> int:
        self.state = (self.state + GOLDEN_GAMMA) & MASK
        return mix64(self.state)

    def below(self, n: int) -> int:
        return ((self.next() >> 32) * n) >> 32


# ---- arguments ----------------------------------------------------------------------------


def is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def check_seed(seed: object) -> int:
    """A game's seed, or a simulation's."""
    if not is_int(seed) or not 0 <= seed <= errors.SEED_LIMIT:
        raise errors.invalid_seed(seed)
    return seed


def check_draw(seed: object) -> int:
    """What a bot draws from: any 64-bit state (core.rulesets.bot_seed derives them)."""
    if not is_int(seed) or not 0 <= seed <= errors.DRAW_LIMIT:
        raise errors.invalid_draw(seed)
    return seed


def check_bot(bot: object) -> str:
    if not (type(bot) is str and bot in BOTS):
        raise errors.refused_bot(bot, BOTS)
    return bot


# ---- a game -------------------------------------------------------------------------------

M = TypeVar("M", bound=tuple[Any, ...])


class PlainGame(Generic[M]):
    """The part of a reference's Game that every game has; a game's class sets the class
    variables and the state the methods read (`players`, `status`, `_turn`, `hands`,
    `sheet`), and says its own refusals (`_not_active`)."""

    card_codes: ClassVar[tuple[str, ...]]
    #: Whether the lowest total wins, and whether the greedy bot plays its lowest key.
    lowest_wins: ClassVar[bool]
    lowest_key: ClassVar[bool]

    players: int
    status: Status
    _turn: int
    hands: list[list[str]]
    sheet: list[Any]

    def _not_active(self) -> errors.RuleError:
        """The error of a move asked for while no seat is to move."""
        raise NotImplementedError

    def legal_moves(self) -> tuple[M, ...]:
        raise NotImplementedError

    def greedy_key(self, card: str, second: Any) -> Any:
        raise NotImplementedError

    @property
    def turn(self) -> int | None:
        return self._turn if self.status == "active" else None

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(len(hand) for hand in self.hands)

    @property
    def totals(self) -> tuple[int, ...]:
        """Each seat's points so far: the game's own."""
        raise NotImplementedError

    @property
    def winners(self) -> tuple[int, ...]:
        if self.status != "finished":
            return ()
        totals = self.totals
        best = min(totals) if self.lowest_wins else max(totals)
        return tuple(seat for seat, total in enumerate(totals) if total == best)

    def sorted_cards(self, cards: Sequence[str]) -> tuple[str, ...]:
        return tuple(sorted(cards, key=self.card_codes.index))

    def hand(self, seat: int) -> tuple[str, ...]:
        return self.sorted_cards(self.hands[self._seat(seat)])

    def _seat(self, seat: object) -> int:
        if not is_int(seat) or not 0 <= seat < self.players:
            raise errors.seat_out_of_range(seat, self.players)
        return seat

    def results(self) -> tuple[Any, ...]:
        return tuple(self.sheet)

    def _shown(
        self, seat: int | None
    ) -> tuple[tuple[int, ...], tuple[int, ...], int | None, tuple[str, ...] | None, tuple[M, ...] | None]:
        """The fields every game's view ends with: the totals, the winners, and what `seat`
        alone sees (its hand, and its legal moves when it is to move, else ()); for the
        public's view (seat None), no seat's."""
        if seat is None:
            return self.totals, self.winners, None, None, None
        seat = self._seat(seat)
        return self.totals, self.winners, seat, self.hand(seat), (self.legal_moves() if seat == self.turn else ())

    def choose(self, bot: str, seed: int = 0) -> M:
        """The move `bot` plays for the seat to move (`seed` drives the random bot)."""
        check_bot(bot)
        return self._choose(bot, Random(stream_seed(check_draw(seed), 0)))

    def _choose(self, bot: str, rng: Random) -> M:
        if self.status != "active":
            raise self._not_active()
        legal = self.legal_moves()
        if bot == "greedy":
            best = min if self.lowest_key else max  # either keeps the first of equals
            return best(legal, key=lambda move: self.greedy_key(*move))
        return legal[rng.below(len(legal))]

    def play(self, seat: int, card: str, *second: Any) -> Any:
        """Play `card` (and the move's second field, in a game whose move has one)."""
        raise NotImplementedError

    def _twin(self) -> Self:
        """A copy that shares no hand and no score sheet with this game (the game's copy()
        then unshares its own lists)."""
        twin = type(self).__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.hands = [list(hand) for hand in self.hands]
        twin.sheet = list(self.sheet)
        return twin

    def copy(self) -> Self:
        raise NotImplementedError

    def __copy__(self) -> Self:
        return self.copy()


# ---- batch entry points -------------------------------------------------------------------

G = TypeVar("G", bound=PlainGame[Any])


#: What a recorded move of so many fields (its seat first) is called in a refusal.
_TUPLES = {2: "pair", 3: "triple"}


def replay_moves(
    game: G,
    moves: Sequence[Any],
    shape: str,
    deal_due: Callable[[], errors.RuleError | None] | None = None,
    *,
    size: int = 3,
) -> Replayed[G]:
    """Play recorded `moves` (each a `shape` tuple of `size` fields, the seat first) on
    `game`; stop at the first the rules refuse. `deal_due`, if given, deals what the game
    waits for before each move (and after the last) and returns the refusal of a deal that
    cannot be dealt."""
    for index in range(len(moves) + 1):
        refused = deal_due() if deal_due is not None else None
        if refused is not None:
            return Replayed(game, index, refused)
        if index == len(moves):
            break
        move = moves[index]
        if not (isinstance(move, (tuple, list)) and len(move) == size):
            error = errors.rule_error(
                "invalid_move", f"move {index} is not a {shape} {_TUPLES[size]}: {errors.quoted(move)}"
            )
            return Replayed(game, index, error)
        try:
            game.play(*move)
        except errors.RuleError as refusal:
            return Replayed(game, index, refusal)
    return Replayed(game, len(moves), None)


def simulate_games(
    players: int, games: int, seed: int, bots: Sequence[str] | None, first: int, seeded: Callable[[int], PlainGame[Any]]
) -> Simulation:
    """Play games number `first` to `first + games - 1`, each seat played by its bot (random
    by default), each game `seeded(its seed)`; a shared win counts for each winner. The
    arguments are checked in the engines' order: seed, games, first, bots."""
    check_seed(seed)
    if not is_int(games) or not 0 <= games <= errors.MAX_GAMES:
        raise errors.invalid_games(games)
    if not is_int(first) or not 0 <= first <= errors.MAX_FIRST:
        raise errors.invalid_first(first)
    if bots is None:
        bots = ["random"] * players
    if not isinstance(bots, (list, tuple)) or len(bots) != players:
        raise errors.bots_per_seat(players)
    for bot in bots:
        check_bot(bot)
    wins = [0] * players
    score_sum = [0] * players
    score_squares = [0] * players
    moves = 0
    for number in range(first, first + games):
        game_seed = stream_seed(seed, number)  # any 64-bit state: dealt without Game's check
        game = seeded(game_seed)
        rng = Random(stream_seed(game_seed, 0))
        while game.status == "active":
            card, second = game._choose(bots[game._turn], rng)
            game.play(game._turn, card, second)
            moves += 1
        for seat, total in enumerate(game.totals):
            wins[seat] += seat in game.winners
            score_sum[seat] += total
            score_squares[seat] += total * total
    return Simulation(games, moves, tuple(wins), tuple(score_sum), tuple(score_squares))
