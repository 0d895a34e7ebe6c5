"""High card's events: their Structs and codec (stored under `highcard:`), and its EventRules,
the event layer's facet of the game (EVENTS)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from events.codec import TABLE_EVENTS, Codec, Event, GameCreatedFields, GameFinished, Seat
from events.ruleset import EventRules
from tests.thirdgame import engine
from tests.thirdgame.engine import Game, seeded_deal
from tests.thirdgame.ruleset import HIGH_CARD

if TYPE_CHECKING:
    Card = str
else:
    Card = Literal[engine.CARD_CODES]


class HighCardCreated(GameCreatedFields, frozen=True, tag="game_created"):
    ruleset: Literal["highcard"]


class HandsDealt(Event, frozen=True, tag="hands_dealt"):
    hands: tuple[tuple[Card, ...] | None, ...]  # None: a hand the reader may not see


class HighCardPlayed(Event, frozen=True, tag="card_played"):
    seat: Seat
    card: Card
    total: int


class Tallied(Event, frozen=True, tag="tallied"):
    """The totals once every hand is empty, before game_finished: a last move causes three
    events, as the generic suites' cuts inside a move expect."""

    totals: tuple[int, ...]


CODEC = Codec(
    "highcard",
    (HighCardCreated, HandsDealt, HighCardPlayed, Tallied, GameFinished, *TABLE_EVENTS),
    prefix="highcard:",
)


def hands_dealt(game: Game) -> HandsDealt:
    return HandsDealt(hands=tuple(game.hand(seat) for seat in range(game.players)))


class HighCardEvents(EventRules):
    ruleset = HIGH_CARD
    codec = CODEC
    move_type = engine.Move  # the engine's own, as the real games' are the core's
    deal_type = HandsDealt
    played_type = HighCardPlayed

    def seeded_deal(self, game: Any, seed: int) -> tuple[Any, ...]:
        return (seeded_deal(seed, game.players),)

    def dealt_event(self, game: Any) -> Event:
        return hands_dealt(game)

    def recorded_deal(self, game: Any, event: Event) -> tuple[Any, ...] | None:
        assert isinstance(event, HandsDealt)
        hands = [hand for hand in event.hands if hand is not None]
        return (hands,) if len(hands) == len(event.hands) else None

    def caused(self, game: Any, seat: int, move: Any) -> list[Event]:
        (card,) = move
        played = game.play(seat, card)
        caused: list[Event] = [HighCardPlayed(seat=seat, card=card, total=played.total)]
        if played.finished:
            caused.append(Tallied(totals=game.totals))
        return caused

    def describe(self, move: Any) -> str:
        return str(move[0])

    def redact(self, event: Event, seat: int | None) -> Event:
        if isinstance(event, HandsDealt):
            return HandsDealt(hands=tuple(hand if index == seat else None for index, hand in enumerate(event.hands)))
        return event

    def summary(self, game: Any) -> dict[str, str | int]:
        return {}


EVENTS = HighCardEvents()
