"""The events of a game of Poison: what happened, as frozen msgspec Structs, and their codec.

Events are facts ("card_played"), never requests. Their public form is
`{"version": n, "type": "...", "data": {...}}`; in the store each event is the msgpack of
its data beside its type and schema version (events.codec says how, for every ruleset).

Evolving a schema: adding a field with a default is compatible and keeps the version. Any
other change gets a new schema version for that type and an upcaster that turns the stored
older form into the next one on read (the `upcast_vN_vN+1` pattern); old events are never
rewritten. This module must not import the store or the service.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec

from core.rulesets import POISON
from events.codec import (
    TABLE_EVENTS,
    BotName,
    Clock,
    Codec,
    Event,
    GameFinished,
    MalformedEvent,
    Player,
    PlayerName,
    PublicEvent,
    Seat,
    Seed,
    Struct,
    Upcaster,
    decode_public_line,
    encode_public,
    event_data,
    event_type,
    to_public,
)
from events.commitment import Commitment, Salt

#: A card code, checked as one of the game's codes: a set lookup where a pattern cost a regular
#: expression per card (two thirds of decoding a stored six-round game).
if TYPE_CHECKING:  # to a type checker a card is a string; msgspec checks it against the codes
    Card = str
else:
    Card = Literal[POISON.card_codes]  # the core's codes, declared once
CauldronIndex = Annotated[int, msgspec.Meta(ge=0, le=2)]
RoundNumber = Annotated[int, msgspec.Meta(ge=1, le=20)]
Colour = Literal["red", "blue", "purple"]


class Rules(Struct, frozen=True):
    cauldrons: Literal["dynamic", "fixed"] = "dynamic"


class TakenCounts(Struct, frozen=True):
    red: Annotated[int, msgspec.Meta(ge=0, le=14)]
    blue: Annotated[int, msgspec.Meta(ge=0, le=14)]
    purple: Annotated[int, msgspec.Meta(ge=0, le=14)]
    poison: Annotated[int, msgspec.Meta(ge=0, le=8)]


class GameCreated(Event, frozen=True, tag="game_created"):
    game_id: str
    players: tuple[Player, ...]
    rounds: RoundNumber
    rules: Rules = Rules()
    seed: Seed | None = None
    ruleset: Literal["poison"] = "poison"  # logs written before the second ruleset say none
    # The game's commitment to its deals (events.commitment); logs written before it say none.
    seed_commitment: Commitment | None = None
    salt: Salt | None = None  # secret, as the seed is, while the game is active
    # Unset (and so not written) for a game without a clock, as every log before clocks.
    clock: Clock | msgspec.UnsetType = msgspec.UNSET


class RoundStarted(Event, frozen=True, tag="round_started"):
    round: RoundNumber
    dealer: Seat
    hands: tuple[tuple[Card, ...] | None, ...]  # None: a hand the reader may not see
    set_aside: tuple[Card, ...] | None = ()  # None while hidden


class CardPlayed(Event, frozen=True, tag="card_played"):
    round: RoundNumber
    seat: Seat
    card: Card
    cauldron: CauldronIndex
    total: Annotated[int, msgspec.Meta(ge=1, le=13)]  # the cauldron's total once complete


class CauldronOverflowed(Event, frozen=True, tag="cauldron_overflowed"):
    round: RoundNumber
    seat: Seat
    cauldron: CauldronIndex
    taken: tuple[Card, ...]


class RoundScored(Event, frozen=True, tag="round_scored"):
    round: RoundNumber
    scores: tuple[int, ...]
    taken: tuple[TakenCounts, ...]
    discarded: tuple[tuple[Colour, ...], ...]


AnyEvent = GameCreated | RoundStarted | CardPlayed | CauldronOverflowed | RoundScored | GameFinished


# ---- schema versions and upcasters --------------------------------------------------------


def upcast_round_scored_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
    """round_scored v1 (the first drafts of the log) kept each seat's taken counts as a list
    `[red, blue, purple, poison]`; v2 names them, as the public form always did."""
    suits = ("red", "blue", "purple", "poison")
    return data | {"taken": [dict(zip(suits, counts, strict=True)) for counts in data["taken"]]}


#: Poison's events, stored under their bare type names (as every log before the pot game).
CODEC = Codec(
    "poison",
    (GameCreated, RoundStarted, CardPlayed, CauldronOverflowed, RoundScored, GameFinished, *TABLE_EVENTS),
    prefix="",
    schema_versions={"round_scored": 2},
    upcasters={("round_scored", 1): upcast_round_scored_v1_v2},
)
EVENT_TYPES: dict[str, type[Event]] = CODEC.types
#: The schema version every event type is written with today.
SCHEMA_VERSIONS: dict[str, int] = CODEC.schema_versions
#: (type, version) -> the upcaster to version + 1.
UPCASTERS: dict[tuple[str, int], Upcaster] = CODEC.upcasters
encode_stored = CODEC.encode_stored
decode_stored = CODEC.decode_stored
decode_data = CODEC.decode_data
from_public = CODEC.from_public

__all__ = [
    "EVENT_TYPES",
    "SCHEMA_VERSIONS",
    "UPCASTERS",
    "AnyEvent",
    "BotName",
    "Card",
    "CardPlayed",
    "CauldronIndex",
    "CauldronOverflowed",
    "Colour",
    "Event",
    "GameCreated",
    "GameFinished",
    "MalformedEvent",
    "Player",
    "PlayerName",
    "PublicEvent",
    "RoundNumber",
    "RoundScored",
    "RoundStarted",
    "Rules",
    "Seat",
    "Seed",
    "Struct",
    "TakenCounts",
    "decode_data",
    "decode_public_line",
    "decode_stored",
    "encode_public",
    "encode_stored",
    "event_data",
    "event_type",
    "from_public",
    "to_public",
]
