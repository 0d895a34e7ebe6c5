"""What the event layer needs to know of a ruleset: the interface every ruleset implements.

The generic machinery (a new game, a move and the bot moves after it, replay and its
checks, redaction) lives in events.play, events.replay and events.rulesets; each ruleset
supplies only what differs: its events and codec, how options become a game, how a deal
and a move become events, and what a seat may see of each event. Implementations go
through the core's engine for every rule; they never decide one themselves.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import msgspec

from core.errors import RuleError, rule_error
from core.rulesets import Ruleset
from events.codec import Codec, Event, GameCreatedFields, GameFinished, Player, event_type


class InvalidDeal(ValueError):
    """A recorded deal the rules could not have made here; the message says why."""


class EventRules(ABC):
    """One ruleset's events. `game` arguments are the ruleset's engine Game."""

    ruleset: Ruleset
    codec: Codec
    #: The ruleset's move: a NamedTuple of the fields a move names besides its seat.
    move_type: type[NamedTuple]
    deal_type: type[Event]
    played_type: type[Event]

    @property
    def name(self) -> str:
        return self.ruleset.name

    @property
    def created_type(self) -> type[Event]:
        """The ruleset's game_created, the first event of every log (events.replay and
        events.rulesets know a log's start by that type, whatever its ruleset)."""
        return self.codec.types["game_created"]

    def create(
        self, game_id: str, players: tuple[Player, ...], seed: int, options: Mapping[str, Any]
    ) -> tuple[Event, Any]:
        """The game_created event and the engine's game (waiting for its first deal).
        Raises core.RuleError for options the ruleset refuses. This one is a game without
        options, its event the shared fields (GameCreatedFields); a ruleset with options
        makes its own."""
        self.check_options(options)
        made = self.created_type
        assert issubclass(made, GameCreatedFields), f"{self.name}'s game_created is its own: make it in create"
        created = made(game_id=game_id, ruleset=self.name, players=players, seed=seed)
        return created, self.start(created)

    def check_options(self, options: Mapping[str, Any]) -> None:
        """core.RuleError `invalid_option` for any option the ruleset does not have: each
        game's `create` asks this first, so none reads an option it would silently drop."""
        unknown = set(options) - {option.name for option in self.ruleset.options}
        if unknown:
            raise rule_error("invalid_option", f"{self.ruleset.title} has no option {', '.join(sorted(unknown))}")

    def start(self, created: Event) -> Any:
        """The engine's game a game_created event describes; core.RuleError if none can be.
        This one is the engine's Game for the event's players, all a game without options
        needs; a ruleset with options reads them from its event."""
        assert isinstance(created, GameCreatedFields), f"{self.name}'s game_created is its own: read it in start"
        return self.ruleset.engine.Game(len(created.players))

    def deal_due(self, game: Any) -> bool:
        return game.status == "dealing"

    def stage(self, game: Any) -> str:
        """Where the game stands, in words for messages ("round 2")."""
        return "the game"

    def deal(self, game: Any, seed: int) -> Event:
        """Deal what is due from the game's seed (through the core), and its event."""
        game.deal(*self.seeded_deal(game, seed))
        return self.dealt_event(game)

    @abstractmethod
    def seeded_deal(self, game: Any, seed: int) -> tuple[Any, ...]:
        """The arguments of the engine's `Game.deal` that `seed` makes for the deal due
        (the core's seeded_deal); `recorded_deal` reads the same from an event."""

    @abstractmethod
    def dealt_event(self, game: Any) -> Event:
        """The event of the deal `game` was just dealt, every card in it (the store keeps
        every fact; `redact` hides what a seat may not see)."""

    @abstractmethod
    def recorded_deal(self, game: Any, event: Event) -> tuple[Any, ...] | None:
        """The arguments of the engine's `Game.deal` that a deal event (`deal_type`) records;
        None when it hides cards. InvalidDeal for a deal that is not due here."""

    def dealt(self, game: Any, event: Event, seed: int | None) -> Any:
        """A copy of `game` dealt as `event` records; InvalidDeal when the rules (or, for a
        seeded game, its seed) could not have dealt it so."""
        kind = event_type(event)
        deal = self.recorded_deal(game, event)
        if deal is None:
            raise InvalidDeal(f"{kind} hides cards: only a complete log can be replayed")
        twin = game.copy()
        try:
            twin.deal(*deal)
        except RuleError as refused:
            raise InvalidDeal(f"{kind}: {refused}") from None
        if seed is not None and self.dealt_event(twin) != self.deal(game.copy(), seed):
            raise InvalidDeal(f"{kind}: this is not the deal seed {seed} makes")
        return twin

    def play(self, game: Any, seat: int, move: Any) -> list[Event]:
        """Apply the move to `game` (changed in place) and return its events, its own
        first and, when it ends the game, game_finished last (every ruleset's last event);
        core.RuleError (and `game` unchanged) when the rules refuse it."""
        caused = self.caused(game, seat, move)
        if game.status == "finished":
            caused.append(GameFinished(totals=game.totals, winners=game.winners))
        return caused

    @abstractmethod
    def caused(self, game: Any, seat: int, move: Any) -> list[Event]:
        """Apply the move to `game` (changed in place) and return the events it caused, its
        own first, but for the game_finished `play` adds; core.RuleError (and `game`
        unchanged) when the rules refuse it."""

    def move_of(self, event: Event) -> tuple[int, Any]:
        """The seat and move a played event (`played_type`) records: it names its seat and
        each field of the move (`move_type`), as every ruleset's does."""
        assert isinstance(event, self.played_type)
        played: Any = event
        return played.seat, self.move_type(*(getattr(played, name) for name in self.move_type._fields))

    @abstractmethod
    def describe(self, move: Any) -> str:
        """A move in words, for messages ("R5 into cauldron 2")."""

    def visible(self, event: Event, seat: int | None, over: bool) -> Event:
        """The event as `seat` (None: the public) may read it. Once the game is over
        (finished or abandoned), everything; while it is active, never the seed (it deals
        every hand, and every random bot's choice follows from it) nor the salt of its
        commitment (events.commitment: with it, the seed could be tried against the
        commitment), and only what `redact` leaves."""
        if over:
            return event
        if isinstance(event, self.created_type):
            return msgspec.structs.replace(event, seed=None, salt=None)
        return self.redact(event, seat)

    @abstractmethod
    def redact(self, event: Event, seat: int | None) -> Event:
        """The event as `seat` (None: the public) may read it while the game is active."""

    def batched(self, created: Any, events: Sequence[tuple[int, Event]]) -> Any | None:
        """The engine's game after a whole stored log (`events`, game_created first and
        already checked), replayed by the core in one batch from its moves and deals alone,
        skipping what they caused (events.restore); None when the log holds anything that
        cannot be judged so. A ruleset without a batch is always rebuilt checked."""
        return None

    @abstractmethod
    def summary(self, game: Any) -> dict[str, str | int]:
        """The listing's fields of this ruleset's game, besides status, players and version."""
