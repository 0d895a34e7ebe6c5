"""Loading a game from our own store quickly: its stored entries decoded in one pass, and
its state rebuilt by the core in one batch, without re-deriving every event in Python.

The checked rebuild (events.replay) re-derives each event through the rules and compares:
right for a log from outside, but every log in our store was checked event by event when it
was appended, in the same atomic step as everything its move caused. So a whole stored log
may be rebuilt from its moves and deals alone, through the core's batch replay (one C loop),
skipping what those moves caused. What it gives is exactly what the checked rebuild gives
(tests/events/test_restore.py holds the two equal over many random games of every ruleset).

Each road falls back to the checked one on anything it does not know: an entry that is not
today's stored form (an older schema, a missing field: the general decoding names what is
wrong, as InvalidLog at its version), an event kind it does not batch (the lobby's), a game
with open seats, a ruleset without a batch (EventRules.batched), or a move or deal the core refuses. Stored bytes
that do not decode are never accepted: both roads decode them with the same strict decoder.

A finished game's log is also kept whole in one value (its finished copy, written by the
store in the same atomic step as `game_finished`): `finished_copy` is its form and
`decode_finished` reads it back in one msgspec call, without an object per stream field.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

import msgspec

from events.codec import Event
from events.play import LoggedGame
from events.replay import rebuild, start
from events.rulesets import EVENT_RULES

#: Today's stored form of every event of every ruleset -> its Struct and the decoder of its
#: ruleset's events (events.codec.Codec.stored_forms).
FORMS: dict[tuple[bytes, bytes], tuple[type[Event], msgspec.msgpack.Decoder[Event]]] = {
    form: (cls, rules.codec.decoder) for rules in EVENT_RULES.values() for form, cls in rules.codec.stored_forms.items()
}
#: The fields of a stored entry, in the order the append script writes them.
TYPE, SCHEMA, DATA = b"t", b"s", b"d"
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
    form, decoded as events.mapper decodes them, in one pass; None when any entry is
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
        first = int(entries[0][0].split(b"-")[1])
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


def restore(events: Sequence[tuple[int, Event]]) -> LoggedGame:
    """The game a whole log read back from our own store makes: the same as
    events.replay.rebuild(events), InvalidLog included, but through the core in one batch
    when it can. Only for a whole log as the store holds it (every move with everything it
    caused, as each append writes them), never for a log from outside."""
    restored = _batched(events)
    # Every search bot move of our store was judged when appended: taken as logged (still legal).
    return restored if restored is not None else rebuild(events, research=False)


def _batched(events: Sequence[tuple[int, Event]]) -> LoggedGame | None:
    if not events or [version for version, _ in events] != list(range(1, len(events) + 1)):
        return None  # empty, or versions that are not 1, 2, 3, ...: the checked road says why
    logged = start(*events[0])  # game_created's own checks, as the checked road makes them
    if getattr(logged, "lobby", None) is not None:
        return None  # a game created with open seats: the lobby's events are judged one by one
    game = logged.rules.batched(logged.created, events)
    if game is None:
        return None
    logged.game = game
    logged.version = len(events)
    return logged


__all__ = ["FORMS", "decode_entries", "decode_finished", "finished_copy_header", "restore"]
