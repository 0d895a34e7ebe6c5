"""Reading an exported log as people hand it over: NDJSON (one event per line, as
`/export` writes it; blank lines are skipped) or JSON `{"events": [...]}`. The service's
`POST /v1/replays` and `poison replay` read logs here, so both take the same forms and
name a bad entry the same way: by the version it would have, and by its line or entry."""

from __future__ import annotations

import msgspec

from events.codec import MalformedEvent, PublicEvent, decode_public_line
from events.replay import InvalidLog
from events.wording import plain

#: The media types of NDJSON: the registered one and the one most tools send.
NDJSON = ("application/x-ndjson", "application/ndjson")


class NotALog(ValueError):
    """A JSON body that is not `{"events": [...]}` at all (as opposed to a log with a bad
    event); `detail` says how, without the words of HTTP."""

    def __init__(self, detail: str) -> None:
        super().__init__(f'the body is not a log {{"events": [...]}}: {detail}')
        self.detail = detail


class _Wrapped(msgspec.Struct, forbid_unknown_fields=True):
    events: list[msgspec.Raw]


_wrapped = msgspec.json.Decoder(_Wrapped)


def from_ndjson(body: bytes) -> list[PublicEvent]:
    events: list[PublicEvent] = []
    for number, line in enumerate(body.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            events.append(decode_public_line(line))
        except MalformedEvent as error:
            raise InvalidLog(len(events) + 1, f"line {number} is not an event: {error}") from None
    return events


def from_json(body: bytes) -> list[PublicEvent]:
    try:
        wrapped = _wrapped.decode(body)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        raise NotALog(plain(error, kind=_Wrapped)) from None
    events: list[PublicEvent] = []
    for number, raw in enumerate(wrapped.events, start=1):
        try:
            events.append(decode_public_line(bytes(raw)))
        except MalformedEvent as error:
            raise InvalidLog(number, f"entry {number} is not an event: {error}") from None
    return events


def looks_like_json(body: bytes) -> bool:
    """Whether a log handed over without a media type (a file, standard input) is the JSON
    form: it opens an object whose first key is "events". An NDJSON log's first line opens an
    event object, whose first key is never "events"."""
    start = body.lstrip()
    if not start.startswith(b"{"):
        return False
    return start[1:].lstrip().startswith(b'"events"')
