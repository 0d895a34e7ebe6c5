"""The events of a pot game, as frozen msgspec Structs, and their codec.

Stored under `pot:<type>` so that they never meet Poison's events of the same name; their
public form names no prefix (a public log says its ruleset in its game_created). What a seat
may not see while the game is active (other hands, the draw pile's order, other seats'
drawn cards) is a field that redaction sets to None.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

import msgspec

from core.rulesets import POT
from events.codec import TABLE_EVENTS, Codec, Event, GameCreatedFields, GameFinished, Seat

if TYPE_CHECKING:  # to a type checker a card is a string; msgspec checks it against the codes
    Card = str
else:
    Card = Literal[POT.card_codes]  # the core's codes, declared once
Toxicity = Annotated[int, msgspec.Meta(ge=0)]


class PotGameCreated(GameCreatedFields, frozen=True, tag="game_created"):
    ruleset: Literal["pot"]


class CardsDealt(Event, frozen=True, tag="cards_dealt"):
    """The one deal of a pot game: its hands, the card that starts the first pot, and the
    draw pile's order (top first). None: a hand, or the pile, the reader may not see."""

    hands: tuple[tuple[Card, ...] | None, ...]
    pot: Card
    draw_pile: tuple[Card, ...] | None


class PotCardPlayed(Event, frozen=True, tag="card_played"):
    seat: Seat
    card: Card
    close: bool
    toxicity: Toxicity  # the pot's toxicity right after the card went in


class PotExploded(Event, frozen=True, tag="pot_exploded"):
    seat: Seat
    cards: tuple[Card, ...]
    toxicity: Toxicity


class PotClosed(Event, frozen=True, tag="pot_closed"):
    seat: Seat
    cards: tuple[Card, ...]
    toxicity: Toxicity
    points: int


class PotStarted(Event, frozen=True, tag="pot_started"):
    card: Card  # the draw pile's top card, which starts the new pot


class CardsDrawn(Event, frozen=True, tag="cards_drawn"):
    seat: Seat
    count: Annotated[int, msgspec.Meta(ge=1, le=4)]
    cards: tuple[Card, ...] | None  # None for any other reader while the game is active


CODEC = Codec(
    "pot",
    (
        PotGameCreated,
        CardsDealt,
        PotCardPlayed,
        PotExploded,
        PotClosed,
        PotStarted,
        CardsDrawn,
        GameFinished,
        *TABLE_EVENTS,
    ),
    prefix="pot:",
)
