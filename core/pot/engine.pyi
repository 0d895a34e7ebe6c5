"""The compiled rules of the pot game (core/pot/engine.pyx over core/pot/rules.pyx): the documented API.

A game is created from its number of players (2 to 6) and either a `seed` (it deals itself
from it, reproducibly) or an explicit `deal`; with neither it waits for `Game.deal`. Moves
are `(seat, card, close)`: a seat 0..n-1, a card code `T0`…`T6` (its toxicity) and whether
the pot is closed after the card went in (a bool).

Every refusal raises a `core.errors.RuleError` whose `code` names the reason, and leaves
the game exactly as it was:

- `invalid_players`, `invalid_seed`, `invalid_games`, `invalid_bot`, `invalid_threads`
- `seat_out_of_range`, `unknown_card`, `invalid_move` (`close` is not a bool, or a
  malformed entry of a recorded game), `invalid_deal` (wrong sizes, cards missing or
  doubled; a seed and a deal together)
- `game_finished`, `awaiting_deal`, `not_awaiting_deal`, `not_your_turn`,
  `card_not_in_hand`, `cannot_close` (the card would explode the pot, or the draw pile is
  empty)

When several are true, the first in this order is raised: seat, card, close, then
finished, awaiting deal, turn, hand, closing (the empty pile before the explosion).

Hidden information is the caller's to guard: `hand` shows what only its owner may see,
`draw_order` what nobody may see while the game is active; `view(seat)` shows exactly what
that seat may see, and `view()` what the public may.

The greedy bot plays the legal move it likes best, the first in canonical order on a tie:
1. a closing that scores more than 0 points, the one that scores most;
2. otherwise, the pot kept open with its highest card that does not explode the pot
   (a toxic pot is hard for the next seat to close with profit);
3. when every card explodes the pot, its lowest card, kept open;
and never a closing that scores 0 points or less (the same card kept open is always legal).
The random bot plays uniformly among the legal moves.
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
from core.results import (
    EngineBot,
    PotDeal,
    PotMove,
    PotPlayed,
    PotResult,
    PotView,
    Replayed,
    Simulation,
)

#: Every card code (kind k is toxicity k), in the canonical order of hands and legal moves.
CARD_CODES: tuple[str, ...]
#: The fewest and the most players of a game.
PLAYER_BOUNDS: tuple[int, int]
DECK_SIZE: int
HAND_SIZE: int
#: A pot whose toxicity exceeds this explodes.
EXPLODE_LIMIT: int

# A deal as `PotDeal` or as plain sequences (hands, the pot's first card, the draw pile).
# A name of the stub only: the compiled module has no such object.
_DealLike = PotDeal | tuple[Sequence[Sequence[str]], str, Sequence[str]]

@disjoint_base  # an extension type: no class can inherit from it and another such type
class Game(CompiledGame[PotMove]):
    def __init__(self, players: int, *, seed: int | None = None, deal: _DealLike | None = None) -> None:
        """A new game of 2 to 6 `players`. With a `seed` (0 to 2**63 - 1, core.errors.SEED_LIMIT) it is dealt
        `seeded_deal(seed, players)`; with a `deal` (fully checked) it is dealt that; with
        neither it waits for `deal`. Both together is `invalid_deal`."""

    @property
    def seed(self) -> int | None: ...

    # -- public state (and CompiledGame's: players, status, turn, totals, winners) ------
    @property
    def endgame(self) -> bool:
        """The game is dealt and the draw pile is empty: no more closing, no more drawing."""
    @property
    def pot(self) -> tuple[str, ...]:
        """The pot's cards, in the order they went in."""
    @property
    def toxicity(self) -> int: ...
    @property
    def draw_pile(self) -> int:
        """How many cards are left in the draw pile (never their order)."""
    @property
    def hand_sizes(self) -> tuple[int, ...]: ...

    # -- hidden information -----------------------------------------------------------
    def hand(self, seat: int) -> tuple[str, ...]:
        """The cards `seat` holds, in canonical order. Only that seat may see them."""
    def draw_order(self) -> tuple[str, ...]:
        """The draw pile, top first. Nobody may see it while the game is active."""

    # -- moves (and CompiledGame's: legal_moves, choose, search) ----------------------
    def check(self, seat: int, card: str, close: bool = False) -> None:
        """Raise what `play` would raise for this move; change nothing."""
    def play(self, seat: int, card: str, close: bool = False) -> PotPlayed:
        """Play a card into the pot, and close it if `close`. Reports, in the order they
        happened, the pot it exploded or closed, the card that started the next pot, the
        cards drawn, and the last pot closed when every hand is empty."""
    def deal(self, hands: Sequence[Sequence[str]], pot: str, draw_pile: Sequence[str]) -> None:
        """Deal the game that waits: four cards per seat, the pot's first card and the
        draw pile (top first), the whole deck once."""

    # -- results ----------------------------------------------------------------------
    def results(self) -> tuple[PotResult, ...]:
        """The score sheet: every pot that was closed or exploded, in order."""
    def view(self, seat: int | None = None) -> PotView:
        """The game as `seat` may see it (its hand, and its legal moves when it is to
        move), or as the public may with `seat` None."""
    def copy(self) -> Game: ...

def seeded_deal(seed: int, players: int) -> PotDeal:
    """The deal of a game with this seed: the deck (T0 ×8, …, T6 ×8) shuffled with
    Fisher–Yates from `stream_seed(seed, 1)` as Poison's first round, dealt four cards
    one at a time from seat 0; the next card starts the pot, the rest is the pile."""

def replay(
    players: int,
    moves: Sequence[tuple[int, str, bool]],
    *,
    seed: int | None = None,
    deal: _DealLike | None = None,
) -> Replayed[Game]:
    """Replay a recorded game in one C loop. Stops at the first move that cannot be
    applied (illegal or malformed, whatever its shape) and reports it in
    `Replayed.error`, with `Replayed.illegal_at` its index. Raises only for invalid game
    arguments (players, seed, deal) or when `moves` is not a list."""

def simulate(
    players: int,
    games: int,
    *,
    seed: int = 0,
    bots: Sequence[EngineBot] | None = None,
    first: int = 0,
    threads: int = 1,
    playouts: int | Sequence[int | None] | None = None,
) -> Simulation:
    """Play `games` complete games in C, each seat played by its bot in `bots` (default:
    every seat `random`; they share one random stream). Game g (numbered from `first`) is
    dealt from the seed `stream_seed(seed, g)` and its bots draw from
    `stream_seed(game seed, 0)`; the highest total wins (a shared win counts for each).
    The same arguments give the same result here and in core.pot.reference. `threads` (1 to
    64, THREAD_BOUNDS) plays the games on that many threads at once, without
    the GIL: the figures are the same for any number of threads; anything else raises
    `invalid_threads`. An `mcts` seat searches `playouts` playouts a move (one number for
    every seat, or one per seat; None: DEFAULT_PLAYOUTS), its seeds drawn from its game's
    stream; anything else raises `invalid_budget`. (core.pot.reference has no `mcts`.)"""
