"""How events are encoded, for every ruleset: the stored form, the public form, upcasting.

Each ruleset declares its events (frozen msgspec Structs tagged by `type`) and builds one
`Codec` of them; the codec holds the decoders, built once, and the schema versions and
upcasters of its types. Two rulesets may both have a `card_played`: the stored form of an
event names its ruleset (Poison's names stay bare, as every log written before the second
ruleset has them), and a public log names its ruleset in its first event, so no decoder
ever has to guess. This module must not import the store, the rules or the service (only
core.errors, for the bounds every layer shares). A refusal says what is wrong in words
(events.wording), never in msgspec's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any

import msgspec

from core.errors import CLOCK_BOUNDS, PLAYOUT_BOUNDS, SEED_LIMIT, quoted
from events.commitment import Commitment, Salt
from events.wording import NOTHING, plain

PlayerName = Annotated[str, msgspec.Meta(min_length=1, max_length=32)]
BotName = Annotated[str, msgspec.Meta(min_length=1, max_length=32)]
Seat = Annotated[int, msgspec.Meta(ge=0, le=5)]
Seed = Annotated[int, msgspec.Meta(ge=0, le=SEED_LIMIT)]
Playouts = Annotated[int, msgspec.Meta(ge=PLAYOUT_BOUNDS[0], le=PLAYOUT_BOUNDS[1])]
SecondsPerMove = Annotated[int, msgspec.Meta(ge=CLOCK_BOUNDS[0], le=CLOCK_BOUNDS[1])]

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


class Struct(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Base of every event payload part: immutable, and strict about what it accepts."""


class Event(Struct, frozen=True, tag_field="type"):
    """Base of every event union; the tag is the event's `type`."""


class Player(Struct, frozen=True):
    """A seat at the table: its player's name, and the bot that plays it, if any. A seat
    left open for someone to join (the lobby) has no name yet, and is never a bot's. A
    search bot's seat (`mcts`) carries the playouts of each of its decisions; no other seat
    has `playouts`, and being UNSET it is not written at all, so the stored and public
    forms of every seat without it are what they were before the search bot."""

    seat: Seat
    name: PlayerName | None = None
    bot: BotName | None = None
    playouts: Playouts | msgspec.UnsetType = msgspec.UNSET


class SeatJoined(Event, frozen=True, tag="seat_joined"):
    """Someone took an open seat of a waiting game (the lobby; every ruleset)."""

    seat: Seat
    name: PlayerName


class SeatLeft(Event, frozen=True, tag="seat_left"):
    """A joined or named seat of a waiting game opened again: its player left."""

    seat: Seat


class GameStarted(Event, frozen=True, tag="game_started"):
    """The last open seat was taken: the first deal follows at once. Only a game created
    with open seats logs it (a fully seated game starts with its creation, as always)."""


class RematchCreated(Event, frozen=True, tag="rematch_created"):
    """The next game of the same table (same ruleset, options and players, a new seed);
    logged right after game_finished, at most once."""

    game_id: str


class Clock(Struct, frozen=True):
    """A game's clock: each person has this long for each move (the service's clock; a
    replay reads none)."""

    seconds_per_move: SecondsPerMove


class SeatTimedOut(Event, frozen=True, tag="seat_timed_out"):
    """The person of the seat to move let its clock run out: `bot` plays the seat from now on
    (the seat is away), its move following at once."""

    seat: Seat
    bot: BotName


class SeatResigned(Event, frozen=True, tag="seat_resigned"):
    """The person of a seat gave it up for the rest of the game: `bot` plays it from now on,
    and the seat never comes back."""

    seat: Seat
    bot: BotName


class SeatReturned(Event, frozen=True, tag="seat_returned"):
    """The person of a seat that timed out plays it again."""

    seat: Seat


class GameAbandoned(Event, frozen=True, tag="game_abandoned"):
    """The game ended without winners: no person was left at the table who was not away, or
    it waited for its open seats longer than the service lets a game wait."""


#: The events of seats whose person is away, and of the end that leaves a game without winners.
AWAY_EVENTS: tuple[type[Event], ...] = (SeatTimedOut, SeatResigned, SeatReturned, GameAbandoned)
#: The table's events, which every ruleset's codec carries: the lobby's and the away seats'.
TABLE_EVENTS: tuple[type[Event], ...] = (SeatJoined, SeatLeft, GameStarted, RematchCreated, *AWAY_EVENTS)


class GameCreatedFields(Event, frozen=True):
    """The fields, in their order, of the game_created of a ruleset whose game has no options
    (Poison's own, older, differs): a ruleset's event narrows `ruleset` to its name, and
    events.ruleset.EventRules makes it."""

    game_id: str
    ruleset: str
    players: tuple[Player, ...]
    seed: Seed | None = None
    # The game's commitment to its deals (events.commitment); logs written before it say none.
    seed_commitment: Commitment | None = None
    salt: Salt | None = None  # secret, as the seed is, while the game is active
    # Unset (and so not written) for a game without a clock, as every log before clocks.
    clock: Clock | msgspec.UnsetType = msgspec.UNSET


class GameFinished(Event, frozen=True, tag="game_finished"):
    """The last event of every game, whatever its ruleset."""

    totals: tuple[int, ...]
    winners: tuple[Seat, ...]


class PublicEvent(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """An event as the API and exported logs show it."""

    version: Annotated[int, msgspec.Meta(ge=1)]
    type: str
    data: dict[str, Any]


class MalformedEvent(ValueError):
    """Stored or submitted bytes that are no event of any known schema."""


class InvalidLog(ValueError):
    """A log that breaks the rules or is malformed; `at_version` is its first bad event."""

    def __init__(self, at_version: int, reason: str) -> None:
        super().__init__(f"event {at_version}: {reason}")
        self.at_version = at_version
        self.reason = reason


def event_type(event: Event) -> str:
    return event.__struct_config__.tag  # type: ignore[return-value]


def event_data(event: Event) -> dict[str, Any]:
    """The event's fields as plain data, without its type tag."""
    data = msgspec.to_builtins(event)
    del data["type"]
    return data


_msgpack_encoder = msgspec.msgpack.Encoder()
_msgpack_decoder = msgspec.msgpack.Decoder(dict[str, Any])
_json_encoder = msgspec.json.Encoder()
_public_decoder = msgspec.json.Decoder(PublicEvent)


class Codec:
    """The events of one ruleset: their types, schema versions, upcasters and decoders.

    `prefix` is put before a type in the stored form ('' for Poison, whose logs predate it);
    `decode_stored` and `decode_data` take the type without it."""

    def __init__(
        self,
        ruleset: str,
        types: tuple[type[Event], ...],
        *,
        prefix: str,
        schema_versions: Mapping[str, int] | None = None,
        upcasters: Mapping[tuple[str, int], Upcaster] | None = None,
    ) -> None:
        self.ruleset = ruleset
        self.prefix = prefix
        self.types: dict[str, type[Event]] = {cls.__struct_config__.tag: cls for cls in types}  # type: ignore[misc]
        self.schema_versions: dict[str, int] = dict.fromkeys(self.types, 1) | dict(schema_versions or {})
        self.upcasters: dict[tuple[str, int], Upcaster] = dict(upcasters or {})
        # Events of today's schema decode straight into their Struct (the stored data carries
        # the type tag); only older ones take the slower road through a dict and upcasters.
        union: Any = types[0]
        for cls in types[1:]:
            union = union | cls
        #: Today's stored data of any of these types, into its Struct (the data carries its tag).
        self.decoder: msgspec.msgpack.Decoder[Event] = msgspec.msgpack.Decoder(union)
        #: Each type's stored form today, as the store hands it back (stored type, schema
        #: version, both bytes) -> its Struct: what a stored entry must say for `decoder`
        #: alone to read it (events.restore's road for whole logs).
        self.stored_forms: dict[tuple[bytes, bytes], type[Event]] = {
            ((prefix + kind).encode(), str(version).encode()): self.types[kind]
            for kind, version in self.schema_versions.items()
        }

    def encode_stored(self, event: Event) -> tuple[str, int, bytes]:
        """(stored type, schema version, msgpack data): the stored form of an event."""
        kind = event_type(event)
        return self.prefix + kind, self.schema_versions[kind], _msgpack_encoder.encode(event)

    def decode_data(self, kind: str, data: dict[str, Any], schema: int | None = None) -> Event:
        """An event from its type and data, upcast from `schema` to today's version first."""
        cls = self.types.get(kind)
        if cls is None:
            raise MalformedEvent(f"unknown event type {quoted(kind)} for the {self.ruleset} ruleset")
        current = self.schema_versions[kind]
        schema = current if schema is None else schema
        if not 1 <= schema <= current:
            raise MalformedEvent(f"{kind} has no schema version {schema} (today's is {current})")
        while schema < current:
            data = self.upcasters[(kind, schema)](data)
            schema += 1
        try:
            return msgspec.convert({"type": kind, **data}, cls)
        except msgspec.ValidationError as error:
            raise MalformedEvent(f"{kind}: {plain(error, data, kind=cls, whole='its data')}") from None
        except TypeError as error:  # a value msgspec cannot even look at (not plain data)
            raise MalformedEvent(f"{kind}: its data is not plain JSON data ({type(error).__name__})") from None

    def decode_stored(self, kind: str, schema: int, payload: bytes) -> Event:
        if schema == self.schema_versions.get(kind):
            try:
                event = self.decoder.decode(payload)
            except msgspec.DecodeError as error:  # ValidationError included
                try:
                    document = _msgpack_decoder.decode(payload)
                except msgspec.DecodeError:
                    document = NOTHING
                said = plain(error, document, kind=self.types.get(kind), whole="the stored data")
                raise MalformedEvent(f"{kind}: {said}") from None
            if event_type(event) != kind:
                raise MalformedEvent(f"stored as {kind} but holds {event_type(event)}")
            return event
        try:
            data = _msgpack_decoder.decode(payload)
        except msgspec.DecodeError as error:
            raise MalformedEvent(f"{kind}: {plain(error, whole='the stored data')}") from None
        if not isinstance(data, dict):
            raise MalformedEvent(f"{kind}: the stored data is not a mapping")
        data.pop("type", None)
        return self.decode_data(kind, data, schema)

    def from_public(self, public: PublicEvent) -> Event:
        """An event from its public form (an exported log line), validated. A whole number
        written with a fraction (`3.0`) is taken where an integer is due (whole_numbers)."""
        try:
            return self.decode_data(public.type, public.data)
        except MalformedEvent:
            # Refused: once more with such numbers whole (what is wrong even so is said then).
            return self.decode_data(public.type, whole_numbers(public.data))


def to_public(version: int, event: Event) -> PublicEvent:
    return PublicEvent(version, event_type(event), event_data(event))


def decode_public_line(line: bytes | str) -> PublicEvent:
    """An event in its public form (a line of an export, an entry of a replayed log);
    MalformedEvent says what is wrong with it ("version is missing")."""
    try:
        return _public_decoder.decode(line)
    except msgspec.DecodeError as error:  # ValidationError included
        try:
            document = msgspec.json.decode(line)
        except msgspec.DecodeError:
            document = NOTHING
        if isinstance(error, msgspec.ValidationError):
            try:  # its version written as `1.0`, say
                return msgspec.convert(whole_numbers(document), PublicEvent, strict=True)
            except msgspec.ValidationError:
                pass  # wrong with its numbers made whole too: said of it as sent
        raise MalformedEvent(plain(error, document, kind=PublicEvent, whole="it")) from None


def whole_numbers(document: Any) -> Any:
    """`document` with every number whose fraction is zero as an integer (`3.0` -> `3`).

    The OpenAPI document calls the bodies' and the events' whole numbers `integer`, and
    JSON Schema's integer is any number whose fraction is zero, so a client generated from
    it, or a language whose every number is a float, may send `3.0`. msgspec refuses those
    even when lax (which would also turn "3" into 3), so a body or an event refused is
    decoded again with such numbers made integers: what needs nothing pays nothing."""
    if isinstance(document, float):
        return int(document) if document.is_integer() else document
    if isinstance(document, list):
        return [whole_numbers(item) for item in document]
    if isinstance(document, dict):
        return {key: whole_numbers(value) for key, value in document.items()}
    return document


def encode_public(event: PublicEvent) -> bytes:
    return _json_encoder.encode(event)
