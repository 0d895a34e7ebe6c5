"""The seam between the recorder's raw records and the rulesets' events: stream entries
as XRANGE and XREAD give them, or a finished game's copy, handed to the decoder of the
ruleset each entry names (events/rulesets.py's `decode_stored`, after events/restore.py's
one-pass decoding of today's stored forms). The recorder never decodes an event itself,
and nothing else reads raw records."""

from __future__ import annotations

from typing import Any

from events.codec import Event, MalformedEvent
from events.replay import InvalidLog
from events.restore import decode_entries, decode_finished
from events.rulesets import decode_stored


def events_of(entries: list[list[Any]]) -> list[tuple[int, Event]]:
    """Stream entries as XRANGE and XREAD give them: [id, [field, value, ...]], as
    (version, event) pairs; InvalidLog names the first entry that does not decode."""
    decoded = decode_entries(entries)  # entries of today's form, in one pass
    if decoded is not None:
        return decoded
    # Anything else one by one: an older schema is upcast, and a broken entry named.
    events = []
    for entry_id, pairs in entries:
        version = int(entry_id.split(b"-")[1])
        try:
            fields = dict(zip(pairs[::2], pairs[1::2], strict=True)) if isinstance(pairs, list) else pairs
            event = decode_stored(fields[b"t"].decode(), int(fields[b"s"]), fields[b"d"])
        except (MalformedEvent, KeyError, ValueError) as error:
            raise InvalidLog(version, f"unreadable stored event: {error}") from None
        events.append((version, event))
    return events


def events_of_copy(copy: bytes) -> list[tuple[int, Event]] | None:
    """A finished copy's events, numbered from version 1; None when it does not decode
    (the caller then reads the stream, the source of truth)."""
    return decode_finished(copy)
