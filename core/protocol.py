"""What an engine is: the `Engine` protocol every game's compiled engine satisfies.

The generic layers (the registry in core.rulesets, events, the service) reach a game's
rules through its engine module; this says, for mypy to check, what every engine offers
under the same names: its card codes, bots and bounds, a `Game` whose objects answer the
same questions (`EngineGame`: state, moves, bots, search, `results()`, `view()`) and
`replay`; a compiled engine (`CompiledEngine`) adds `simulate`. A game's own options
(Poison's rounds and cauldrons, its deals) stay its own, as keyword arguments the protocol
leaves open. `ENGINES` holds each engine to the
protocol, so a new game's engine that lacks a name fails the type check, not a player.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, Self

from core.poison import engine as poison_engine
from core.pot import engine as pot_engine
from core.results import Bot, EngineBot, Replayed, Searched, Simulation, Status


class EngineGame(Protocol):
    """A game object of an engine (core/face.pyi's CompiledGame, and what each game adds)."""

    @property
    def players(self) -> int: ...
    @property
    def seed(self) -> int | None: ...
    @property
    def status(self) -> Status: ...
    @property
    def turn(self) -> int | None: ...
    @property
    def hand_sizes(self) -> tuple[int, ...]: ...
    @property
    def totals(self) -> tuple[int, ...]: ...
    @property
    def winners(self) -> tuple[int, ...]: ...
    def hand(self, seat: int) -> tuple[str, ...]: ...
    def legal_moves(self) -> tuple[Any, ...]: ...
    def choose(
        self, bot: EngineBot, seed: int = 0, *, playouts: int | None = None, milliseconds: int | None = None
    ) -> Any: ...
    def search(
        self, seed: int = 0, *, playouts: int | None = None, milliseconds: int | None = None
    ) -> Searched[Any]: ...
    def results(self) -> tuple[Any, ...]: ...
    def view(self, seat: int | None = None) -> Any: ...
    def copy(self) -> Self: ...


class Engine(Protocol):
    """A game's compiled engine module (core/<game>/engine.pyx)."""

    CARD_CODES: tuple[str, ...]
    BOTS: tuple[Bot, ...]
    ENGINE_BOTS: tuple[EngineBot, ...]
    DEFAULT_PLAYOUTS: int
    PLAYER_BOUNDS: tuple[int, int]
    PLAYOUT_BOUNDS: tuple[int, int]
    MILLISECOND_BOUNDS: tuple[int, int]
    THREAD_BOUNDS: tuple[int, int]
    STATUSES: tuple[Status, ...]

    def Game(self, players: int, *, seed: int | None = None) -> EngineGame: ...  # noqa: N802 (a class)

    def replay(self, players: int, moves: Sequence[Any], *, seed: int | None = None) -> Replayed[Any]: ...


class CompiledEngine(Engine, Protocol):
    """An engine that plays many games at once in C (each product game's); a ruleset whose
    engine has no `simulate` says so in its `lacks`."""

    def simulate(
        self,
        players: int,
        games: int,
        *,
        seed: int = 0,
        bots: Sequence[EngineBot] | None = None,
        first: int = 0,
        threads: int = 1,
        playouts: int | Sequence[int | None] | None = None,
    ) -> Simulation: ...


#: Every game's engine by its ruleset's name, each held to the protocol by the type check.
ENGINES: dict[str, CompiledEngine] = {"poison": poison_engine, "pot": pot_engine}
