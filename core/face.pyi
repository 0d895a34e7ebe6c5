"""What every compiled game object has (core/face.pyx): each engine's `Game` subclasses
`CompiledGame`, over its own move type, and adds what is its own (options, deals, moves'
results, views). The numbers every engine shares are declared here once and re-exported by
each engine."""

from typing import Generic, Self, TypeVar

from typing_extensions import disjoint_base

from core.results import Bot, EngineBot, Searched, Status

_MoveT = TypeVar("_MoveT")

#: The bots both implementations of every game play, the plain references too.
BOTS: tuple[Bot, ...]
#: Every bot `Game.choose` and `simulate` play: BOTS and the search bot `mcts` (core/search.pyx).
ENGINE_BOTS: tuple[EngineBot, ...]
#: The playouts of one `mcts` decision when none are given.
DEFAULT_PLAYOUTS: int
#: The fewest and the most playouts, and milliseconds, one `mcts` decision may be given.
PLAYOUT_BOUNDS: tuple[int, int]
MILLISECOND_BOUNDS: tuple[int, int]
#: The fewest and the most threads one `simulate` call plays its games on.
THREAD_BOUNDS: tuple[int, int]
#: A game's status: `dealing` while it waits for a deal, `active` while a seat is to move.
STATUSES: tuple[Status, ...]

@disjoint_base
class Facts:
    """One game's words for what its face returns and refuses: C-level only."""

@disjoint_base  # an extension type: no class can inherit from it and another such type
class CompiledGame(Generic[_MoveT]):
    @property
    def players(self) -> int: ...
    @property
    def status(self) -> Status: ...
    @property
    def turn(self) -> int | None:
        """The seat to move, or None when no seat is (the game waits for a deal, or is over)."""
    @property
    def totals(self) -> tuple[int, ...]:
        """Each seat's points so far."""
    @property
    def winners(self) -> tuple[int, ...]:
        """The seats with the best total once the game is finished (the lowest in Poison,
        the highest in the pot game); () before."""
    def legal_moves(self) -> tuple[_MoveT, ...]:
        """Every legal move of the seat to move, in canonical order (by card, then its
        second number); () when no seat is to move, and never empty while one is."""
    def choose(
        self, bot: EngineBot, seed: int = 0, *, playouts: int | None = None, milliseconds: int | None = None
    ) -> _MoveT:
        """The move `bot` would play for the seat to move: `random` draws from `seed`'s
        stream, `greedy` follows the game's rule (its engine's docstring), `mcts` is
        `search(seed, ...)`'s move. Raises `invalid_bot`, `invalid_budget` (a budget out of
        range, or given to a bot that does not search), `invalid_seed`, `game_finished` or
        `awaiting_deal`."""
    def search(
        self, seed: int = 0, *, playouts: int | None = None, milliseconds: int | None = None
    ) -> Searched[_MoveT]:
        """The `mcts` bot's information-set Monte Carlo tree search for the seat to move,
        from what that seat may see alone (core/search.pyx, over the game's table in its
        mcts.pyx): `playouts` (PLAYOUT_BOUNDS, default DEFAULT_PLAYOUTS), stopping sooner
        when `milliseconds` (MILLISECOND_BOUNDS) run out. The same position, seed and
        playouts (without milliseconds) always give the same result. It runs without the
        GIL on a copy of the seat's view, so another thread may search, or play, meanwhile.
        Raises `invalid_budget`, `invalid_seed`, `game_finished` or `awaiting_deal`."""
    def __copy__(self) -> Self: ...
