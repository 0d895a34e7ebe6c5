"""Replaying an exported log: validate every event against the rules, store nothing."""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Request, post
from litestar.params import QueryParameter

from events.codec import MalformedEvent, PublicEvent, decode_public_line
from events.replay import InvalidLog, decode_log, rebuild, require_complete
from service.problems import ApiError, documented
from service.schemas import ReplayBody, Replayed
from service.views import game_view, scores

_body_decoder = msgspec.json.Decoder(ReplayBody)


def parse_log(body: bytes, content_type: str) -> list[PublicEvent]:
    """The events of a log sent as NDJSON (one event per line) or as {"events": [...]}."""
    if content_type.startswith("application/x-ndjson") or content_type.startswith("application/ndjson"):
        events = []
        for number, line in enumerate(body.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                events.append(decode_public_line(line))
            except MalformedEvent as error:
                raise InvalidLog(number, f"line {number} is not an event: {error}") from None
        return events
    if content_type.startswith("application/json") or not content_type:
        try:
            wrapped = _body_decoder.decode(body)
        except msgspec.DecodeError as error:
            raise ApiError(400, "invalid_request", f"the body is not a log: {error}") from None
        events = []
        for number, raw in enumerate(wrapped.events, start=1):
            try:
                events.append(msgspec.convert(raw, PublicEvent))
            except msgspec.ValidationError as error:
                raise InvalidLog(number, f"entry {number} is not an event: {error}") from None
        return events
    raise ApiError(400, "invalid_request", 'send the log as application/x-ndjson or as JSON {"events": [...]}')


@post(
    "/v1/replays",
    status_code=200,
    tags=["replays"],
    summary='Validate and replay an exported log (NDJSON, or JSON {"events": [...]})',
    responses=documented(400, 413, 422),
)
async def replay_log(
    request: Request,
    version: Annotated[int | None, QueryParameter(ge=1, description="replay only the first N events")] = None,
) -> Replayed:
    body = await request.body()
    public = parse_log(body, request.headers.get("content-type", ""))
    if version is not None:
        if version > len(public):
            raise ApiError(400, "invalid_request", f"version {version} is beyond the log's {len(public)} events")
        public = public[:version]
    logged = rebuild(decode_log(public))
    if version is None:
        require_complete(logged)  # a whole log may not stop half-way through a move
    return Replayed(version=logged.version, game=game_view(logged, everything=True), scores=scores(logged))
