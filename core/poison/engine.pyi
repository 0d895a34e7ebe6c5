"""The compiled rules of Poison (core/poison/engine.pyx over core/poison/rules.pyx): the documented API.

A game is created from its number of players, its options, and either a `seed` (every
round is then dealt from it, reproducibly) or explicit `deals` (recorded hands; rounds
without one wait for `Game.deal`). Moves are `(seat, card, cauldron)`: a seat 0..n-1, a
card code (`R1 R2 R4 R5 R7`, `B…`, `P…`, `G4` for poison) and a cauldron 0..2.

Every refusal raises a `core.errors.RuleError` whose `code` names the reason (an
`IllegalMove` or an `InvalidArgument`), and leaves the game exactly as it was:

- `invalid_players`, `invalid_rounds`, `invalid_rule`, `invalid_seed`, `invalid_games`,
  `invalid_threads`
- `seat_out_of_range`, `unknown_card`, `cauldron_out_of_range`
- `invalid_deal` (wrong number or size of hands, cards missing or doubled),
  `invalid_move` (a malformed entry of a recorded game)
- `game_finished`, `awaiting_deal`, `not_awaiting_deal`, `not_your_turn`,
  `card_not_in_hand`, `illegal_cauldron`

When several are true, the first in this order is raised: seat, card and cauldron range,
then finished, awaiting deal, turn, hand, cauldron colour.

Hidden information is the caller's to guard: `hand`, `set_aside` and `taken` show what
only their owner (or nobody, during the round) may see; `view(seat)` shows exactly what
that seat may see, and `view()` what the public may.
"""

from collections.abc import Sequence

from typing_extensions import disjoint_base

from core.results import COLOURS as COLOURS
from core.results import (
    Bot,
    Cauldron,
    CauldronRule,
    Colour,
    Deal,
    EngineBot,
    Move,
    Played,
    Replayed,
    RoundResult,
    Searched,
    Simulation,
    Status,
    Taken,
    View,
)

#: Every card code, in the canonical order of hands, legal moves and the deck.
CARD_CODES: tuple[str, ...]
CAULDRON_RULES: tuple[CauldronRule, ...]
#: The bots both implementations play, the plain reference too.
BOTS: tuple[Bot, ...]
#: Every bot `Game.choose` and `simulate` play: BOTS and the search bot `mcts` (core/search.pyx).
ENGINE_BOTS: tuple[EngineBot, ...]
#: The playouts of one `mcts` decision when none are given.
DEFAULT_PLAYOUTS: int
#: The fewest and the most playouts, and milliseconds, one `mcts` decision may be given.
PLAYOUT_BOUNDS: tuple[int, int]
MILLISECOND_BOUNDS: tuple[int, int]
STATUSES: tuple[Status, ...]
#: The fewest and the most players of a game, and rounds.
PLAYER_BOUNDS: tuple[int, int]
ROUND_BOUNDS: tuple[int, int]
#: The fewest and the most threads one `simulate` call plays its games on.
THREAD_BOUNDS: tuple[int, int]

# A deal as `Deal` or as plain sequences (recorded hands). A name of the stub only: the
# compiled module has no such object.
_DealLike = Deal | tuple[Sequence[Sequence[str]], Sequence[str]]

@disjoint_base  # an extension type: no class can inherit from it and another such type
class Game:
    def __init__(
        self,
        players: int,
        *,
        rounds: int | None = None,
        cauldrons: CauldronRule = "dynamic",
        seed: int | None = None,
        deals: Sequence[_DealLike] | None = None,
    ) -> None:
        """A new game of 3 to 6 `players` and `rounds` rounds (1 to 20, default one per
        player) with the `cauldrons` rule. With a `seed` (0 to 2**63 - 1, core.errors.SEED_LIMIT) every round is
        dealt from it; with `deals` (at most one per round, all checked at once, each
        against the dealer the rules name for its round) the first rounds are dealt from
        them; otherwise the game waits for `deal`."""

    # -- options ----------------------------------------------------------------------
    @property
    def players(self) -> int: ...
    @property
    def rounds(self) -> int: ...
    @property
    def cauldron_rule(self) -> CauldronRule: ...
    @property
    def seed(self) -> int | None: ...

    # -- public state -----------------------------------------------------------------
    @property
    def status(self) -> Status:
        """`dealing` while a round waits for its hands, `active` while it is played."""
    @property
    def round(self) -> int:
        """The round being played or dealt, from 1; the last one once finished."""
    @property
    def dealer(self) -> int: ...
    @property
    def turn(self) -> int | None:
        """The seat to move, or None when no round is being played."""
    @property
    def cauldrons(self) -> tuple[Cauldron, Cauldron, Cauldron]: ...
    @property
    def hand_sizes(self) -> tuple[int, ...]: ...
    @property
    def pile_sizes(self) -> tuple[int, ...]:
        """How many cards each seat has taken this round (their faces stay hidden)."""
    @property
    def totals(self) -> tuple[int, ...]:
        """Each seat's sum of the scores of the finished rounds."""
    @property
    def winners(self) -> tuple[int, ...]:
        """The seats with the lowest total once the game is finished; () before."""

    # -- hidden information -----------------------------------------------------------
    def hand(self, seat: int) -> tuple[str, ...]:
        """The cards `seat` holds, in canonical order. Only that seat may see them."""
    def set_aside(self) -> tuple[str, ...]:
        """The unused fourth hand of a three-player round; () otherwise. Never shown
        during the game."""
    def taken(self, seat: int) -> Taken:
        """What `seat` took this round, by suit. Face down: nobody may see it until the
        round is scored (see `round_results`)."""

    # -- moves ------------------------------------------------------------------------
    def legal_moves(self) -> tuple[Move, ...]:
        """Every legal move of the seat to move, ordered by card then cauldron; () when
        no round is being played. Never empty while one is."""
    def check(self, seat: int, card: str, cauldron: int) -> None:
        """Raise what `play` would raise for this move; change nothing."""
    def play(self, seat: int, card: str, cauldron: int) -> Played:
        """Play a card. An overflow is reported in `Played.taken`; the move that empties
        the last hand scores the round (and, seeded or with deals left, deals the next)."""
    def choose(
        self, bot: EngineBot, seed: int = 0, *, playouts: int | None = None, milliseconds: int | None = None
    ) -> Move:
        """The move `bot` would play for the seat to move: `random` draws from `seed`'s
        stream, `greedy` avoids overflowing and, when forced, takes the cheapest pile
        (poison 2, a potion 1, a colour it already leads in 0), `mcts` is `search(seed,
        ...)`'s move. Raises `invalid_bot`, `invalid_budget` (a budget out of range, or
        given to a bot that does not search), `game_finished` or `awaiting_deal`."""
    def search(self, seed: int = 0, *, playouts: int | None = None, milliseconds: int | None = None) -> Searched[Move]:
        """The `mcts` bot's information-set Monte Carlo tree search for the seat to move,
        from what that seat may see alone (core/poison/mcts.pyx): `playouts` (PLAYOUT_BOUNDS,
        default DEFAULT_PLAYOUTS), stopping sooner when `milliseconds` (MILLISECOND_BOUNDS)
        run out. The same position, seed and playouts (without milliseconds) always give
        the same result. It runs without the GIL on a copy of the seat's view, so another
        thread may search, or play, meanwhile. Raises `invalid_budget`, `invalid_seed`,
        `game_finished` or `awaiting_deal`."""
    def deal(self, hands: Sequence[Sequence[str]], set_aside: Sequence[str] = ()) -> None:
        """Deal the round that waits: one hand per seat, each exactly the size the deal
        from the dealer's left gives it, the whole deck once (with three players, the
        fourth hand goes to `set_aside`)."""

    # -- results ----------------------------------------------------------------------
    def round_results(self) -> tuple[RoundResult, ...]:
        """Every scored round: its dealer (as the game state recorded it), taken counts per
        seat and suit, discards and scores."""
    def view(self, seat: int | None = None) -> View:
        """The game as `seat` may see it (its hand, and its legal moves when it is to
        move), or as the public may with `seat` None."""
    def copy(self) -> Game: ...
    def __copy__(self) -> Game: ...

def derive_seed(seed: int, stream: int) -> int:
    """An independent seed for one use of `seed`: round r is dealt from `derive_seed(seed, r)`,
    a random bot draws from `derive_seed(seed, 0)` (splitmix64, as core.poison.reference)."""

def seeded_deal(seed: int, players: int, round: int) -> Deal:
    """The deal a game with this seed uses for `round` (from 1)."""

def score_round(
    taken: Sequence[Sequence[int]],
) -> tuple[tuple[int, ...], tuple[tuple[Colour, ...], ...]]:
    """Scores and discarded colours of one round, from each seat's taken counts
    (red, blue, purple, poison)."""

def replay(
    players: int,
    moves: Sequence[tuple[int, str, int]],
    *,
    rounds: int | None = None,
    cauldrons: CauldronRule = "dynamic",
    seed: int | None = None,
    deals: Sequence[_DealLike] = (),
) -> Replayed[Game]:
    """Replay a recorded game in one C loop: rounds are dealt from `deals` (or from
    `seed`) as they start, moves applied in order. Stops at the first move that cannot be
    applied (an illegal or malformed move, or a round whose deal is missing or invalid:
    a deal is checked against the dealer the game state names when its round starts)
    and reports it in `Replayed.error`, with `Replayed.illegal_at` its index. Raises only
    for invalid game options; never reads past the record, whatever the rules do."""

def simulate(
    players: int,
    games: int,
    *,
    seed: int = 0,
    rounds: int | None = None,
    cauldrons: CauldronRule = "dynamic",
    bots: Sequence[EngineBot] | None = None,
    first: int = 0,
    threads: int = 1,
    playouts: int | Sequence[int | None] | None = None,
) -> Simulation:
    """Play `games` complete games in C, each seat played by its bot in `bots` (default:
    every seat `random`, choosing uniformly among its legal moves; they share one random
    stream). Game g (numbered from `first`) is dealt from the seed `stream_seed(seed, g)`,
    so a long run can be split into chunks that add up to exactly the same figures; the
    same arguments give the same result here and in core.poison.reference. `threads` (1 to 64,
    THREAD_BOUNDS) plays the games on that many threads at once, without the GIL, each
    a contiguous run of game numbers: the figures are the same for any number of threads;
    anything else raises `invalid_threads`. An `mcts` seat searches `playouts` playouts a
    move (one number for every seat, or one per seat; None: DEFAULT_PLAYOUTS), its seeds
    drawn from its game's stream; anything else raises `invalid_budget`. (core.poison.reference
    has no `mcts`.)"""
