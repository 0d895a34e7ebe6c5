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

from core.face import BOTS as BOTS
from core.face import DEFAULT_PLAYOUTS as DEFAULT_PLAYOUTS
from core.face import ENGINE_BOTS as ENGINE_BOTS
from core.face import MILLISECOND_BOUNDS as MILLISECOND_BOUNDS
from core.face import PLAYOUT_BOUNDS as PLAYOUT_BOUNDS
from core.face import STATUSES as STATUSES
from core.face import THREAD_BOUNDS as THREAD_BOUNDS
from core.face import CompiledGame
from core.results import COLOURS as COLOURS
from core.results import (
    Cauldron,
    CauldronRule,
    Colour,
    Deal,
    EngineBot,
    Move,
    Played,
    Replayed,
    RoundResult,
    Simulation,
    Taken,
    View,
)

#: Every card code, in the canonical order of hands, legal moves and the deck.
CARD_CODES: tuple[str, ...]
CAULDRON_RULES: tuple[CauldronRule, ...]
#: The fewest and the most players of a game, and rounds.
PLAYER_BOUNDS: tuple[int, int]
ROUND_BOUNDS: tuple[int, int]

# A deal as `Deal` or as plain sequences (recorded hands). A name of the stub only: the
# compiled module has no such object.
_DealLike = Deal | tuple[Sequence[Sequence[str]], Sequence[str]]

@disjoint_base  # an extension type: no class can inherit from it and another such type
class Game(CompiledGame[Move]):
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
    def rounds(self) -> int: ...
    @property
    def cauldron_rule(self) -> CauldronRule: ...
    @property
    def seed(self) -> int | None: ...

    # -- public state (and CompiledGame's: players, status, turn, totals, winners) ------
    @property
    def round(self) -> int:
        """The round being played or dealt, from 1; the last one once finished."""
    @property
    def dealer(self) -> int: ...
    @property
    def cauldrons(self) -> tuple[Cauldron, Cauldron, Cauldron]: ...
    @property
    def hand_sizes(self) -> tuple[int, ...]: ...
    @property
    def pile_sizes(self) -> tuple[int, ...]:
        """How many cards each seat has taken this round (their faces stay hidden)."""

    # -- hidden information -----------------------------------------------------------
    def hand(self, seat: int) -> tuple[str, ...]:
        """The cards `seat` holds, in canonical order. Only that seat may see them."""
    def set_aside(self) -> tuple[str, ...]:
        """The unused fourth hand of a three-player round; () otherwise. Never shown
        during the game."""
    def taken(self, seat: int) -> Taken:
        """What `seat` took this round, by suit. Face down: nobody may see it until the
        round is scored (see `results`)."""

    # -- moves (and CompiledGame's: legal_moves, choose, search) ----------------------
    def check(self, seat: int, card: str, cauldron: int) -> None:
        """Raise what `play` would raise for this move; change nothing."""
    def play(self, seat: int, card: str, cauldron: int) -> Played:
        """Play a card. An overflow is reported in `Played.taken`; the move that empties
        the last hand scores the round (and, seeded or with deals left, deals the next)."""
    def deal(self, hands: Sequence[Sequence[str]], set_aside: Sequence[str] = ()) -> None:
        """Deal the round that waits: one hand per seat, each exactly the size the deal
        from the dealer's left gives it, the whole deck once (with three players, the
        fourth hand goes to `set_aside`)."""

    # -- results ----------------------------------------------------------------------
    def results(self) -> tuple[RoundResult, ...]:
        """Every scored round: its dealer (as the game state recorded it), taken counts per
        seat and suit, discards and scores."""
    def view(self, seat: int | None = None) -> View:
        """The game as `seat` may see it (its hand, and its legal moves when it is to
        move), or as the public may with `seat` None."""
    def copy(self) -> Game: ...

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
