"""The events of a game of Poison: what happened, as frozen msgspec Structs, and their codecs.

Events are facts ("card_played"), never requests. Their public form is the one of
http-api.md, `{"version": n, "type": "...", "data": {...}}`; in the store each event is the
msgpack of its data beside its type and schema version. Encoders and decoders are built
once, here.

Evolving a schema: adding a field with a default is compatible and keeps the version. Any
other change gets a new schema version for that type and an upcaster that turns the stored
older form into the next one on read (the `upcast_vN_vN+1` pattern); old events are never
rewritten. This module must not import the store or the service.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

import msgspec

Card = Annotated[str, msgspec.Meta(pattern=r"^([RBP][12457]|G4)$")]
Seat = Annotated[int, msgspec.Meta(ge=0, le=5)]
CauldronIndex = Annotated[int, msgspec.Meta(ge=0, le=2)]
RoundNumber = Annotated[int, msgspec.Meta(ge=1, le=20)]
Colour = Literal["red", "blue", "purple"]
BotName = Annotated[str, msgspec.Meta(min_length=1, max_length=32)]
PlayerName = Annotated[str, msgspec.Meta(min_length=1, max_length=32)]
Seed = Annotated[int, msgspec.Meta(ge=0)]  # below 2**64 too: msgspec bounds stop at int64, replay checks


class Struct(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Base of every event payload part: immutable, and strict about what it accepts."""


class Player(Struct):
    seat: Seat
    name: PlayerName
    bot: BotName | None = None


class Rules(Struct):
    cauldrons: Literal["dynamic", "fixed"] = "dynamic"


class TakenCounts(Struct):
    red: Annotated[int, msgspec.Meta(ge=0, le=14)]
    blue: Annotated[int, msgspec.Meta(ge=0, le=14)]
    purple: Annotated[int, msgspec.Meta(ge=0, le=14)]
    poison: Annotated[int, msgspec.Meta(ge=0, le=8)]


class Event(Struct, tag_field="type"):
    """Base of the event union; the tag is the event's `type`."""


class GameCreated(Event, tag="game_created"):
    game_id: str
    players: tuple[Player, ...]
    rounds: RoundNumber
    rules: Rules = Rules()
    seed: Seed | None = None


class RoundStarted(Event, tag="round_started"):
    round: RoundNumber
    dealer: Seat
    hands: tuple[tuple[Card, ...] | None, ...]  # None: a hand the reader may not see
    set_aside: tuple[Card, ...] | None = ()  # None while hidden


class CardPlayed(Event, tag="card_played"):
    round: RoundNumber
    seat: Seat
    card: Card
    cauldron: CauldronIndex
    total: Annotated[int, msgspec.Meta(ge=1, le=13)]  # the cauldron's total once complete


class CauldronOverflowed(Event, tag="cauldron_overflowed"):
    round: RoundNumber
    seat: Seat
    cauldron: CauldronIndex
    taken: tuple[Card, ...]


class RoundScored(Event, tag="round_scored"):
    round: RoundNumber
    scores: tuple[int, ...]
    taken: tuple[TakenCounts, ...]
    discarded: tuple[tuple[Colour, ...], ...]


class GameFinished(Event, tag="game_finished"):
    totals: tuple[int, ...]
    winners: tuple[Seat, ...]


AnyEvent = GameCreated | RoundStarted | CardPlayed | CauldronOverflowed | RoundScored | GameFinished
EVENT_TYPES: dict[str, type[Event]] = {
    cls.__struct_config__.tag: cls  # type: ignore[misc]
    for cls in (GameCreated, RoundStarted, CardPlayed, CauldronOverflowed, RoundScored, GameFinished)
}


class PublicEvent(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """An event as the API and exported logs show it."""

    version: Annotated[int, msgspec.Meta(ge=1)]
    type: str
    data: dict[str, Any]


class MalformedEvent(ValueError):
    """Stored or submitted bytes that are no event of any known schema."""


# ---- schema versions and upcasters --------------------------------------------------------

#: The schema version every event type is written with today.
SCHEMA_VERSIONS: dict[str, int] = dict.fromkeys(EVENT_TYPES, 1) | {"round_scored": 2}

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


def upcast_round_scored_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
    """round_scored v1 (the first drafts of the log) kept each seat's taken counts as a list
    `[red, blue, purple, poison]`; v2 names them, as the public form always did."""
    suits = ("red", "blue", "purple", "poison")
    return data | {"taken": [dict(zip(suits, counts, strict=True)) for counts in data["taken"]]}


#: (type, version) -> the upcaster to version + 1.
UPCASTERS: dict[tuple[str, int], Upcaster] = {
    ("round_scored", 1): upcast_round_scored_v1_v2,
}


# ---- codecs, built once ----------------------------------------------------------------------

_msgpack_encoder = msgspec.msgpack.Encoder()
_msgpack_decoder = msgspec.msgpack.Decoder(dict[str, Any])
# Events of today's schema decode straight into their Struct (the stored data carries the
# type tag); only older ones take the slower road through a dict and their upcasters.
_event_decoder = msgspec.msgpack.Decoder(AnyEvent)
_json_encoder = msgspec.json.Encoder()
_public_decoder = msgspec.json.Decoder(PublicEvent)


def event_type(event: Event) -> str:
    return event.__struct_config__.tag  # type: ignore[return-value]


def event_data(event: Event) -> dict[str, Any]:
    """The event's fields as plain data, without its type tag."""
    data = msgspec.to_builtins(event)
    del data["type"]
    return data


def encode_stored(event: Event) -> tuple[str, int, bytes]:
    """(type, schema version, msgpack data): the stored form of an event."""
    kind = event_type(event)
    return kind, SCHEMA_VERSIONS[kind], _msgpack_encoder.encode(event)


def decode_data(kind: str, data: dict[str, Any], schema: int | None = None) -> Event:
    """An event from its type and data, upcast from `schema` to today's version first."""
    cls = EVENT_TYPES.get(kind)
    if cls is None:
        raise MalformedEvent(f"unknown event type {kind!r}")
    current = SCHEMA_VERSIONS[kind]
    schema = current if schema is None else schema
    if not 1 <= schema <= current:
        raise MalformedEvent(f"{kind} has no schema version {schema} (today's is {current})")
    while schema < current:
        data = UPCASTERS[(kind, schema)](data)
        schema += 1
    try:
        return msgspec.convert({"type": kind, **data}, cls)
    except (msgspec.ValidationError, TypeError) as error:
        raise MalformedEvent(f"{kind}: {error}") from None


def decode_stored(kind: str, schema: int, payload: bytes) -> Event:
    if schema == SCHEMA_VERSIONS.get(kind):
        try:
            event = _event_decoder.decode(payload)
        except (msgspec.ValidationError, msgspec.DecodeError) as error:
            raise MalformedEvent(f"{kind}: {error}") from None
        if event_type(event) != kind:
            raise MalformedEvent(f"stored as {kind} but holds {event_type(event)}")
        return event
    try:
        data = _msgpack_decoder.decode(payload)
    except msgspec.DecodeError as error:
        raise MalformedEvent(f"{kind}: undecodable data ({error})") from None
    data.pop("type", None)
    return decode_data(kind, data, schema)


def to_public(version: int, event: Event) -> PublicEvent:
    return PublicEvent(version, event_type(event), event_data(event))


def from_public(public: PublicEvent) -> Event:
    """An event from its public form (an exported log line), validated."""
    return decode_data(public.type, public.data)


def decode_public_line(line: bytes | str) -> PublicEvent:
    try:
        return _public_decoder.decode(line)
    except msgspec.DecodeError as error:
        raise MalformedEvent(str(error)) from None


def encode_public(event: PublicEvent) -> bytes:
    return _json_encoder.encode(event)
