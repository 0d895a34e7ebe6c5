"""The mapper: stored events to each game's events and back, between the recorder below
(raw entries, events/records.py) and the domain above. Writing, each event becomes its
ruleset's stored form (events.codec.Codec.encode_stored); reading, each raw entry goes to
the decoder of the ruleset its stored type names (events/rulesets.py), today's stored
forms in one pass, and a finished game's copy in one msgspec call, without an object per
stream field. Nothing below it decodes an event, and nothing above it reads a raw entry.

Stored bytes that do not decode are never accepted: the one-pass road and the one-by-one
road decode with the same strict decoders, and the one-by-one road names the first entry
that is wrong (InvalidLog, at its version).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any, Union

import msgspec

from events.codec import Codec, Event, GameFinished, InvalidLog, MalformedEvent, RematchCreated
from events.records import DATA, SCHEMA, TYPE, Entries, FinishedCopy, StoredEvent, version_of
from events.rulesets import EVENT_RULES, decode_stored

#: Events after which a game's log is kept whole in its finished copy too: its end, and
#: the one event that may follow it.
ENDING: frozenset[type[Event]] = frozenset((GameFinished, RematchCreated))

#: Today's stored form of every event of every ruleset -> its Struct and the decoder of its
#: ruleset's events (events.codec.Codec.stored_forms).
FORMS: dict[tuple[bytes, bytes], tuple[type[Event], msgspec.msgpack.Decoder[Event]]] = {
    form: (cls, rules.codec.decoder) for rules in EVENT_RULES.values() for form, cls in rules.codec.stored_forms.items()
}
#: A finished copy: [ruleset, [event, ...]], each event the stored data of today's form (it
#: carries its type tag), so one ruleset's decoder reads the whole list in one call.
_COPY = msgspec.msgpack.Decoder(tuple[str, msgspec.Raw])
_LOGS: dict[str, msgspec.msgpack.Decoder[list[Event]]] = {
    name: msgspec.msgpack.Decoder(list[Union[tuple(rules.codec.types.values())]])  # type: ignore[misc]  # noqa: UP007
    for name, rules in EVENT_RULES.items()
}


def finished_copy_header(ruleset: str) -> bytes:
    """What a finished copy of a game of `ruleset` starts with; the list of its events'
    stored data follows (an array header, then each entry's data, as the store has them)."""
    return b"\x92" + msgspec.msgpack.encode(ruleset)


def finished_copy(ruleset: str, count: int, stored: bytes) -> bytes:
    """The finished copy of a game of `ruleset` whose `count` events' stored data are
    `stored`, one after another in version order: the header, a msgpack array32 header
    (the count in 4 bytes, big-endian), the data, as the recorder's script makes it."""
    return finished_copy_header(ruleset) + b"\xdd" + count.to_bytes(4, "big") + stored


def decode_finished(copy: bytes) -> list[tuple[int, Event]] | None:
    """A finished copy's events, numbered from version 1, decoded as strictly as the
    stream's entries are; None when it does not decode (the caller reads the stream, the
    source of truth, which names anything wrong)."""
    try:
        ruleset, raw = _COPY.decode(copy)
        events = _LOGS[ruleset].decode(raw)
    except (msgspec.DecodeError, KeyError):
        return None
    return list(enumerate(events, 1)) if events else None


def decode_entries(entries: list[Any]) -> list[tuple[int, Event]] | None:
    """Stream entries (as XRANGE gives them: [id, [field, value, ...]]) of today's stored
    form, decoded as `events_of` decodes them, in one pass; None when any entry is
    anything else (the caller then decodes them one by one, which says what is wrong)."""
    if not entries:
        return []
    decoded: list[Event] = []
    append = decoded.append
    forms = FORMS
    try:
        # Entry ids are `0-<version>`. A stream's ids rise strictly, so when the first and
        # the last are 0-v and 0-(v+n-1), the n entries are exactly versions v, ..., v+n-1:
        # no id in between needs reading.
        first = version_of(entries[0])
        if entries[0][0] != b"0-%d" % first or entries[-1][0] != b"0-%d" % (first + len(entries) - 1):
            return None
        for _, fields in entries:
            form = forms.get((fields[1], fields[3]))
            if form is None or len(fields) != 6 or fields[0] != TYPE or fields[2] != SCHEMA or fields[4] != DATA:
                return None
            cls, decoder = form
            event = decoder.decode(fields[5])
            if type(event) is not cls:  # stored as one kind, holding another
                return None
            append(event)
    except (msgspec.DecodeError, LookupError, TypeError, ValueError):
        return None
    return list(zip(range(first, first + len(decoded)), decoded, strict=True))


def records_of(events: Sequence[Event], codec: Codec) -> list[StoredEvent]:
    """Events of `codec`'s ruleset in their stored form, for a recorder."""
    return [StoredEvent(*codec.encode_stored(event)) for event in events]


def copy_for(events: Sequence[Event], codec: Codec) -> FinishedCopy | None:
    """The finished copy an append of `events` should keep: one when they end the game
    (or follow its end), None otherwise."""
    return _copy(codec) if ENDING.intersection(map(type, events)) else None


@cache
def _copy(codec: Codec) -> FinishedCopy:
    # The copy holds only today's stored forms: an older one in the log leaves no copy.
    return FinishedCopy(finished_copy_header(codec.ruleset), tuple(codec.stored_forms))


def events_of(entries: Entries) -> list[tuple[int, Event]]:
    """Raw entries as (version, event) pairs; InvalidLog names the first entry that does
    not decode."""
    decoded = decode_entries(entries)  # entries of today's form, in one pass
    if decoded is not None:
        return decoded
    # Anything else one by one: an older schema is upcast, and a broken entry named.
    events = []
    for raw in entries:
        version, pairs = version_of(raw), raw[1]
        try:
            fields = dict(zip(pairs[::2], pairs[1::2], strict=True)) if isinstance(pairs, list) else pairs
            event = decode_stored(fields[TYPE].decode(), int(fields[SCHEMA]), fields[DATA])
        except (MalformedEvent, KeyError, ValueError) as error:
            raise InvalidLog(version, f"unreadable stored event: {error}") from None
        events.append((version, event))
    return events


def events_of_log(log: bytes | Entries) -> list[tuple[int, Event]] | None:
    """A whole log as a recorder's `read_log` gives it, as (version, event) pairs; None
    for a finished copy that does not decode (the caller then reads the stream, the
    source of truth)."""
    return decode_finished(log) if isinstance(log, bytes) else events_of(log)


__all__ = [
    "ENDING",
    "FORMS",
    "copy_for",
    "decode_entries",
    "decode_finished",
    "events_of",
    "events_of_log",
    "finished_copy",
    "finished_copy_header",
    "records_of",
]
