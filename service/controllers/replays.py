"""Replaying an exported log: validate every event against the rules, store nothing.

A log with mcts seats is checked by re-running each of their searches: its work is counted
first (events.replay.search_work), refused above REPLAY_PLAYOUTS, and done in a search
thread (events.games.Searches), never on the event loop. A long log is read and checked in
a rebuild thread (events.games.Games.rebuilds) instead. Either is billed to the client's
budgets (events.budgets) before it is checked, and dropped if its client hangs up while it
waits for a thread."""

from __future__ import annotations

from typing import Annotated

from litestar import Request, post
from litestar.params import QueryParameter

from events import commitment
from events.codec import Event, PublicEvent
from events.exported import NDJSON, NotALog, from_json, from_ndjson
from events.replay import decode_log, require_complete, search_work
from service.answers import Replayed
from service.controllers.games import client_address
from service.dependencies import games_of, gone_of, media_type
from service.documented import REPLAY_PLAYOUTS, problems
from service.problems import ApiError
from service.views import game_view, scores

#: The media types a replayed log may come as (service.dependencies.GuardedRequest refuses others, 415).
MEDIA_TYPES = ("application/json", *NDJSON)
#: The longest body read on the event loop itself: a longer log is read (and decoded) in a
#: rebuild thread, since reading costs about as much per event as a short rebuild.
INLINE_LOG_BYTES = 16_384


def parse_log(body: bytes, content_type: str) -> list[PublicEvent]:
    """The events of a log sent as NDJSON or as {"events": [...]} (events.exported reads both)."""
    kind = media_type(content_type)
    if kind in NDJSON:
        return from_ndjson(body)
    if kind == "application/json":
        try:
            return from_json(body)
        except NotALog as error:
            raise ApiError(400, "invalid_request", str(error)) from None
    raise ApiError(415, "unsupported_media_type", 'send the log as application/x-ndjson or as JSON {"events": [...]}')


def read_log(body: bytes, content_type: str, version: int | None) -> list[tuple[int, Event]]:
    """The events of a log's body, decoded, only its first `version` if given."""
    public = parse_log(body, content_type)
    if version is not None:
        if version > len(public):
            raise ApiError(400, "invalid_request", f"version {version} is beyond the log's {len(public)} events")
        public = public[:version]
    return decode_log(public)


@post(
    "/v1/replays",
    status_code=200,
    tags=["replays"],
    operation_id="replay_log",
    summary='Validate and replay an exported log (NDJSON, or JSON {"events": [...]})',
    description="Checks a log of either ruleset against the rules, event by event, and shows the game it describes; "
    "nothing is stored. A replayed log is public, so its view shows everything (`all`). A whole log must be "
    "complete (not stop in the middle of a move or before a deal that is due); with `version`, only its first "
    "events are replayed. The first bad event is named by its version (422 invalid_log, `at_version`); a log "
    "whose seed, salt and seed_commitment disagree is invalid_log at version 1, and `commitment` says whether the "
    "commitment holds or the log makes none. Each move "
    f"of an mcts seat is checked by running its search again: a log whose checks would search more than "
    f"{REPLAY_PLAYOUTS:,} playouts in all is 422 search_limit.",
    response_description="the game the log describes, and its scores",
    responses=problems("replay_log"),
    opt={"body_media_types": MEDIA_TYPES},
)
async def replay_log(
    request: Request,
    version: Annotated[
        int | None, QueryParameter(ge=1, description="replay only the first N events (N at most the log's length)")
    ] = None,
) -> Replayed:
    body = await request.body()
    games, gone = games_of(request), gone_of(request.receive)
    content_type = request.headers.get("content-type", "")
    long = len(body) > INLINE_LOG_BYTES
    numbered = await games.rebuilds.judge(long, read_log, body, content_type, version, gone=gone)
    work = search_work(numbered)
    if work > REPLAY_PLAYOUTS:
        raise ApiError(
            422,
            "search_limit",
            f"checking this log's mcts moves takes {work:,} playouts; a replay searches {REPLAY_PLAYOUTS:,} at most",
        )
    logged = await games.check_log(numbered, client=client_address(request), gone=gone)
    if version is None:
        require_complete(logged)  # a whole log may not stop half-way through a move
    return Replayed(
        version=logged.version,
        game=game_view(logged, everything=True),
        scores=scores(logged),
        commitment=commitment.check(logged.created),  # rebuild refused a log whose commitment breaks
    )
