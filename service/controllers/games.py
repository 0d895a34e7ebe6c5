"""Games: create, list, read (now or at a version), play, scores, event log, live stream, export.

Each route's entry in the OpenAPI document (its id, summary, description, who may call it
and the problems it can answer) is declared on it; service.documented holds the problem
codes and the headers, service.openapi what Litestar cannot derive (bodies read here
rather than by Litestar, media types, examples)."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Annotated, cast

import msgspec
from litestar import Controller, Request, get, post
from litestar.background_tasks import BackgroundTask
from litestar.datastructures import ResponseHeader
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import PathParameter, QueryParameter
from litestar.response import ServerSentEvent, ServerSentEventMessage
from litestar.types import ASGIApp

from core import RuleError
from core.errors import SEARCH_BOT, quoted
from core.rulesets import DEFAULT_RULESET
from events.codec import Clock, Event, GameAbandoned, GameFinished, Player, SeatLeft
from events.games import Appended, Games, GameSummary, Gone, Idempotency, UnknownGame, VersionConflict
from events.lobby import after_event, check_seating, lobby_of
from events.play import LoggedGame
from service.answers import GameCreatedOut, MovePlayed
from service.clients import StreamPlace, Streams, client_of
from service.dependencies import Scoped, caller_seat, create_body, games_of, gone_of, keys_of, strict_body
from service.documented import (
    IDEMPOTENCY_KEY_LENGTH,
    SEED_WITH_OPEN_SEATS,
    TOKEN_OPTIONAL,
    TOKEN_REQUIRED,
    problems,
)
from service.problems import ApiError, problem_body, refusal
from service.responses import JSONBytes, Response, header
from service.ruleset import open_mark
from service.rulesets import AnyGameView, AnyScores, service_rules
from service.schemas import (
    ClockIn,
    EventLog,
    GameList,
    GameListed,
    GameStatus,
    PlayCard,
    PlayerIn,
    SeatToken,
)
from service.tokens import new_game_id
from service.views import game_view, move_played, public_events, scores

#: Versions beyond any log (and beyond what a stream id can hold).
MAX_VERSION = 2**53
_encoder = msgspec.json.Encoder()


def pack_answer(status: int, body: bytes) -> bytes:
    """A move's answer as recorded with its idempotency key: status and body."""
    return _encoder.encode([status, msgspec.Raw(body)])


def idempotency_of(request: Scoped, *request_facts: object, scope: str) -> Idempotency | None:
    """The request's Idempotency-Key with the fingerprint of what it asks (`request_facts`,
    hashed as a JSON array) and whose key it is (`scope`); None without one, 400 for one of
    a wrong length."""
    key = header(request.scope, b"idempotency-key")
    if key is None:
        return None
    low, high = IDEMPOTENCY_KEY_LENGTH
    if not low <= len(key) <= high:
        raise ApiError(400, "invalid_request", f"an Idempotency-Key has {low} to {high} characters")
    return Idempotency(key, hashlib.sha256(_encoder.encode(request_facts)).hexdigest(), scope=scope)


async def refusal_kept(
    games: Games,
    game_id: str,
    refused: RuleError | VersionConflict,
    idempotency: Idempotency | None,
    kept: tuple[int, ...] = (409,),
) -> Appended:
    """A refused step answered the same way on every retry with its key: the problem
    `refused` is, recorded under `idempotency` when its status is one of `kept` (the
    refusals a retry cannot change: the game moved on, not the request); raised as it is
    otherwise, and without a key."""
    problem = refusal(refused)
    if idempotency is None or problem.status_code not in kept:
        raise problem from None
    return await games.remember(
        game_id, idempotency._replace(result=pack_answer(problem.status_code, problem_body(problem)))
    )


def answer_response(packed: bytes) -> JSONBytes:
    status, body = msgspec.json.decode(packed, type=tuple[int, msgspec.Raw])
    media_type = b"application/json" if status < 400 else b"application/problem+json"
    return JSONBytes(status, bytes(body), media_type=media_type)


def listed(summary: GameSummary) -> GameListed:
    fields = msgspec.structs.asdict(summary)
    if fields["ruleset"] == DEFAULT_RULESET:
        del fields["ruleset"]  # a listed game that names no ruleset is Poison's, as before the pot game
    return GameListed(**fields)


def seated(wanted: list[PlayerIn]) -> tuple[Player, ...]:
    """The seats of a new game as its body asks: a name (and maybe a bot), or open; 400
    for a seat that is both or neither, or a name given twice."""
    for seat, player in enumerate(wanted):
        if player.open is True and (player.name is not None or player.bot is not None):
            raise ApiError(400, "invalid_request", f"players[{seat}] is open: an open seat has no name and no bot")
        if player.open is not True and player.name is None:
            raise ApiError(400, "invalid_request", f"players[{seat}] needs a 'name' (or 'open': true)")
    for seat, player in enumerate(wanted):
        if player.playouts is not msgspec.UNSET and player.bot != SEARCH_BOT:
            who = f"the {player.bot} bot" if player.bot else "nobody yet" if player.open is True else "a person"
            raise ApiError(
                422,
                "playouts_without_search",
                f"players[{seat}].playouts: {who} plays this seat; playouts are the {SEARCH_BOT} bot's budget alone",
            )
    searchers = [seat for seat, player in enumerate(wanted) if player.bot == SEARCH_BOT]
    if searchers and all(player.bot is not None for player in wanted):
        # Each request then lets bots play only until a person's turn: a bounded number of
        # searches, where a table of bots alone would search a whole game in one request.
        raise ApiError(
            422,
            "search_without_person",
            f"players[{searchers[0]}] is the {SEARCH_BOT} bot: a game with it needs a person or an open seat",
        )
    players = tuple(Player(seat=seat, name=p.name, bot=p.bot, playouts=p.playouts) for seat, p in enumerate(wanted))
    wrong = check_seating(players)
    if wrong is not None:
        raise ApiError(400, "invalid_request", wrong)
    return players


def clock_of(request: Request, clock: ClockIn | None, players: tuple[Player, ...]) -> Clock | None:
    """A new game's clock: the body's, else the server's for a game with an open seat
    (`open_seat_clock`: a stranger who walks away must not hold the table), else none."""
    if clock is not None:
        return Clock(seconds_per_move=clock.seconds_per_move)
    default = getattr(request.app.state, "open_seat_clock", 0)
    return Clock(seconds_per_move=default) if default and lobby_of(players) is not None else None


def client_address(request: Scoped) -> str | None:
    """The client's address, which rate limits, budgets and the streams' caps are kept by
    (None over a Unix socket): the peer's, or the one a trusted proxy forwards
    (service/clients.py has made it the scope's client by then), an IPv6 one as its /64."""
    client = request.scope.get("client")
    return client_of(client[0]) if client else None


async def read_game(games: Games, request: Scoped, game_id: str) -> JSONBytes:
    """A game as the caller may see it now: `GET /v1/games/{game_id}` without a query (also
    answered by service/hot.py)."""
    logged = await games.load(game_id)
    seat = await caller_seat(request, games, game_id, required=False)
    return JSONBytes(200, _encoder.encode(game_view(logged, seat=seat)))


async def play_card(games: Games, request: Scoped, game_id: str, data: PlayCard, gone: Gone | None = None) -> JSONBytes:
    """A move of the seat whose token is sent, its body checked and decoded: `POST
    /v1/games/{game_id}/moves` (also answered by service/hot.py). `gone`: whether its client
    has hung up, for the bots' searches that may answer it (service.dependencies.gone_of)."""
    seat = cast(int, await caller_seat(request, games, game_id, required=True))  # required: a seat or 401
    move = service_rules((await games.rules_of(game_id)).name).move(data)
    idempotency = idempotency_of(request, seat, data, scope=f"seat{seat}")  # each caller's keys are its own

    def answer(after: LoggedGame, first_version: int, caused: list[Event]) -> bytes:
        body = move_played(after, first_version, caused, seat)
        # Recorded with an idempotency key, the answer carries its status too.
        return _encoder.encode(body) if idempotency is None else pack_answer(201, _encoder.encode(body))

    try:
        appended, _ = await games.play(
            game_id,
            seat,
            *move,
            expected_version=data.expected_version,
            idempotency=idempotency,
            answer=answer,
            client=client_address(request),
            gone=gone,
        )
    except (RuleError, VersionConflict) as refused:
        appended = await refusal_kept(games, game_id, refused, idempotency, kept=(409, 422))
    return JSONBytes(201, appended.result) if idempotency is None else answer_response(appended.result)


class _Ending:
    """Where a live stream ends, judged event by event as they come.

    - After game_finished or game_abandoned (or, for a game over before the stream began,
      after its last event): no move will ever follow. (A rematch_created may follow it, once; a stream
      whose batch holds it ends there too, and readers find the next game in the view.)
    - After the event that leaves an abandoned game (every person left its lobby): nothing
      is ever logged after it.
    - With a token, after its seat's seat_left: the token then opens no seat, and whoever
      sits there next is dealt a hand this stream must not show. Its events are cut there,
      even within one batch; the client's reconnect with that token is 401. (A seat_left
      before the token was checked was an earlier occupant's: the token is the seat's new
      one.)"""

    __slots__ = ("checked_at", "final", "lobby", "over", "seat")

    def __init__(self, logged: LoggedGame, seat: int | None) -> None:
        self.checked_at = logged.version  # the version the token was checked at
        self.final = logged.version if logged.over else None
        self.lobby = logged.lobby
        self.seat = seat
        #: Whether the game is over once the events cut so far are sent: its whole log
        #: (seed and salt included) is public from then on, and only then.
        self.over = logged.over

    def cut(self, batch: list[tuple[int, Event]]) -> tuple[list[tuple[int, Event]], bool]:
        """The batch's events this stream sends, and whether it ends after them."""
        finished = False
        for index, (version, event) in enumerate(batch):
            if version == self.final:
                return batch[: index + 1], True
            finished = finished or isinstance(event, GameFinished | GameAbandoned)
            self.over = self.over or finished
            if version <= self.checked_at:
                continue  # the lobby as loaded is already after it
            self.lobby = after_event(self.lobby, event)
            if self.lobby is not None and self.lobby.abandoned:
                self.over = True
                return batch[: index + 1], True
            if isinstance(event, SeatLeft) and event.seat == self.seat:
                # Its seat changed hands, in a game still waiting: nothing becomes public.
                return batch[: index + 1], True
        return batch, finished


GameId = Annotated[str, PathParameter(description="the game's id (`game_id` of its creation)", max_length=64)]


class GamesController(Controller):
    path = "/v1/games"
    tags = ("games",)

    @post(
        "/",
        status_code=201,
        operation_id="create_game",
        summary="Create a game",
        description="A new game of either ruleset, its seats people (each gets a token, shown only in this answer) "
        "or bots (played by the service at once, whenever it is their turn: bots that move first have already "
        "played in the game this answer shows).",
        response_description="the new game",
        response_headers=[ResponseHeader(name="Location", documentation_only=True)],
        responses=problems("create_game"),
    )
    async def create(self, request: Request) -> Response[GameCreatedOut]:
        # The body (schemas.CreateGame, documented by service.openapi) is read here, not by
        # Litestar: a body that names no ruleset is Poison's, which no union decoder allows.
        games = games_of(request)
        data = await create_body(request)
        rules = service_rules(data.__struct_config__.tag)
        options = rules.options(data)
        players = seated(data.players)
        if data.seed is not None and lobby_of(players) is not None:
            raise ApiError(422, "seed_with_open_seats", SEED_WITH_OPEN_SEATS)
        game_id = new_game_id()
        unknown_bots = {player.bot for player in data.players if player.bot is not None} - set(
            rules.ruleset.engine_bots
        )
        if unknown_bots:
            raise ApiError(
                400, "invalid_request", f"{rules.ruleset.title} has no bot {quoted(sorted(unknown_bots)[0])}"
            )
        # A person's seat gets a token; an open seat gets one when someone joins it.
        keys = keys_of(request)
        tokens = {p.seat: keys.new_token() for p in players if p.bot is None and p.name is not None}
        seed = data.seed if data.seed is not None else secrets.randbits(63)
        _, logged = await games.create(
            game_id,
            players,
            ruleset=rules.name,
            options=options,
            clock=clock_of(request, data.clock, players),
            seed=seed,
            token_hashes={seat: keys.verifier(token) for seat, token in tokens.items()},
            created_ms=int(time.time() * 1000),
            client=client_address(request),
            gone=gone_of(request.receive),
        )
        body = GameCreatedOut(
            game_id=game_id,
            players=[
                SeatToken(
                    seat=p.seat,
                    name=p.name,
                    open=open_mark(p),
                    **({"token": tokens[p.seat]} if p.seat in tokens else {}),
                )
                for p in players
            ],
            game=game_view(logged),
        )
        return Response(body, status_code=201, headers={"Location": f"/v1/games/{game_id}"})

    @get(
        "/",
        operation_id="list_games",
        summary="List games, newest first",
        description="A page of games. Follow `next` (as `cursor`) until it is null: a filtered page may hold fewer "
        "than `limit` games and still have a next one.",
        response_description="a page of games",
        responses=problems("list_games"),
    )
    async def list(
        self,
        request: Request,
        status: Annotated[GameStatus | None, QueryParameter(description="only games of this status")] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=200, description="the most games on the page")] = 50,
        cursor: Annotated[str | None, QueryParameter(max_length=100, description="`next` of the page before")] = None,
    ) -> GameList:
        try:
            found, following = await games_of(request).list_games(status=status, limit=limit, cursor=cursor)
        except ValueError as error:
            raise ApiError(400, "invalid_request", str(error)) from None
        return GameList(games=[listed(summary) for summary in found], next=following)

    @get(
        "/{game_id:str}",
        operation_id="get_game",
        summary="Read a game (with your hand, given your token)",
        description="The game as the caller may see it: the public view, and `you` (your hand and, on your turn, "
        "your legal moves) with a token of one of its seats. With `version`, the public view as it was right after "
        "that event (time travel); add `you=true` and your token to see your hand as it was then.",
        security=TOKEN_OPTIONAL,
        responses={
            # A union is documented too (as one of its members); Litestar's annotation says a class.
            200: ResponseSpec(data_container=AnyGameView, description="the game as the caller may see it"),
            **problems("get_game"),
        },
    )
    async def read(
        self,
        request: Request,
        game_id: GameId,
        version: Annotated[
            int | None,
            QueryParameter(
                ge=1, le=MAX_VERSION, description="the public view right after this event (1 to the game's version)"
            ),
        ] = None,
        you: Annotated[
            bool,
            QueryParameter(
                description="with `version` and a valid token: include `you` (your hand and legal moves) as they "
                "were after that event; time travel is otherwise the public view"
            ),
        ] = False,
    ) -> ASGIApp:  # a JSONBytes of a GameView (service/responses.py says why)
        """A token given is checked on every read, time travel included (401 when it is no
        seat's of this game). Time travel is the public view, as the contract says; a player
        may look back at their own hand with `you=true` and their token."""
        games = games_of(request)
        if version is not None:
            current = await games.version(game_id)
            if current == 0:
                raise UnknownGame(game_id)
            seat = await caller_seat(request, games, game_id, required=you)
            if version > current:
                raise ApiError(400, "invalid_request", f"version {version} is beyond the game's version {current}")
            then = await games.load(
                game_id, version=version, client=client_address(request), gone=gone_of(request.receive)
            )
            return JSONBytes(200, _encoder.encode(game_view(then, seat=seat if you else None)))
        return await read_game(games, request, game_id)

    @post(
        "/{game_id:str}/moves",
        status_code=201,
        operation_id="play_move",
        summary="Play a card",
        description="A move of the seat whose token is sent: Poison's card and cauldron, or the pot game's card "
        "and whether it closes the pot. The answer holds every event the move appended (yours, what followed, and "
        "the moves of bots whose turn came next) and the game after them. A refused move changes nothing; with an "
        "`Idempotency-Key` it is safe to retry.",
        security=TOKEN_REQUIRED,
        responses={
            201: ResponseSpec(data_container=MovePlayed, description="the move and what followed it"),
            **problems("play_move"),
        },
    )
    async def play(self, request: Request, game_id: GameId) -> ASGIApp:
        # The body (schemas.PlayCard, documented by service.openapi) is read once, strictly,
        # here: Litestar's own decoding would coerce "12" into 12 and cost a second decode.
        data = await strict_body(request, PlayCard)
        return await play_card(games_of(request), request, game_id, data, gone_of(request.receive))

    @get(
        "/{game_id:str}/scores",
        operation_id="get_scores",
        summary="The score sheet: round by round (Poison), pot by pot (the pot game)",
        description="Poison's lists finished rounds only (during a round nobody's pile is shown); the pot game's "
        "lists every pot that closed or exploded. No token is needed; one given must be of a seat of this game.",
        security=TOKEN_OPTIONAL,
        response_description="the score sheet",
        responses=problems("get_scores"),
    )
    async def scores(self, request: Request, game_id: GameId) -> AnyScores:
        games = games_of(request)
        logged = await games.load(game_id)
        await caller_seat(request, games, game_id, required=False)  # a token given must be this game's
        return scores(logged)

    @get(
        "/{game_id:str}/events",
        operation_id="get_events",
        summary="The event log, redacted for the caller",
        description="The events after `after`, at most `limit`. While the game is active, a dealt hand shows only "
        "to its own seat (given its token), and the seed, the salt of its commitment, the set-aside hand and the "
        "draw pile's order to nobody; once it is over (finished or abandoned) the whole log is public.",
        security=TOKEN_OPTIONAL,
        response_description="a page of the log",
        responses=problems("get_events"),
    )
    async def events(
        self,
        request: Request,
        game_id: GameId,
        after: Annotated[
            int, QueryParameter(ge=0, le=MAX_VERSION, description="the events with a version above this one")
        ] = 0,
        limit: Annotated[int, QueryParameter(ge=1, le=5000, description="the most events on the page")] = 500,
    ) -> EventLog:
        games = games_of(request)
        logged = await games.load(game_id)
        seat = await caller_seat(request, games, game_id, required=False)
        # Only the log up to the game as loaded before the token was checked: a seat's token
        # given up after its check (and the seat dealt to its next occupant) must not read on.
        shown = min(limit, logged.version - after)
        read = await games.read(game_id, after, limit=shown) if shown > 0 else []
        return EventLog(events=public_events(read, seat, logged.over, logged.rules), version=logged.version)

    @get(
        "/{game_id:str}/events/stream",
        operation_id="stream_events",
        summary="The event log, live, as Server-Sent Events",
        description="The log from a resume point on (`Last-Event-ID`, else `after`, else the start), then each "
        "event as it is appended, redacted as /events redacts it: each message's `id` is the event's version, its "
        "`event` the event's type, its `data` the event (an Event). The stream ends after game_finished; for a "
        "finished game it sends what is left and ends; so does an abandoned game's. A stream with a token ends after "
        "its seat's seat_left (the token is then no seat's), and any stream ends after a while without an event: "
        "resume it with `Last-Event-ID`. A resume point beyond the game's version is 400; a client address with "
        "as many streams as it may is 429 too_many_streams, a worker with as many as it keeps 503 streams_full.",
        security=TOKEN_OPTIONAL,
        responses=problems("stream_events"),
    )
    async def stream(
        self,
        request: Request,
        game_id: GameId,
        after: Annotated[
            int | None,
            QueryParameter(
                ge=0, le=MAX_VERSION, description="start after this version, as /events does (`Last-Event-ID` wins)"
            ),
        ] = None,
    ) -> ServerSentEvent:
        """The log from a resume point on: `Last-Event-ID` (sent by a reconnecting
        EventSource) or else `?after=`, as /events takes it; from the start without either.

        A resume point beyond the game's version is refused (400), not followed. No id this
        stream ever sent can be beyond the log, so such a point is a client's mistake; a
        stream that waited for it would wait for ever, even past the game's end (its
        `game_finished` would come before the point and never be sent). Ending it at once
        instead would look like a finished game to the client, and an EventSource
        reconnects after a stream that ends, with the same id, every few seconds for ever;
        a 400 makes it stop and say why. A point at or past the end of a finished game
        sends nothing and ends, as it always did."""
        games = games_of(request)
        logged = await games.load(game_id)
        seat = await caller_seat(request, games, game_id, required=False)
        resume = request.headers.get("last-event-id")
        if resume is None:
            start = after or 0
        elif resume.isascii() and resume.isdigit() and int(resume) <= MAX_VERSION:
            start = int(resume)
        else:
            raise ApiError(400, "invalid_request", "Last-Event-ID must be an event version")
        if start > logged.version:
            source = "Last-Event-ID" if resume is not None else "after"
            raise ApiError(400, "invalid_request", f"{source} {start} is beyond the game's version {logged.version}")
        streams: Streams = request.app.state.streams
        place = streams.take(client_address(request))  # the last refusal: nothing after it may raise
        return ServerSentEvent(
            self._follow(games, game_id, seat, start, logged, place, streams.idle),
            background=BackgroundTask(place.given_back),
        )

    @staticmethod
    async def _follow(
        games: Games, game_id: str, seat: int | None, after: int, logged: LoggedGame, place: StreamPlace, idle: float
    ) -> AsyncIterator[ServerSentEventMessage]:
        # Waiting costs no store connection: one waiter per worker wakes every stream
        # (events/follow.py). The stream gives its place back however it ends: its last
        # event, its idle time, the client gone (cancelled), or the store down.
        try:
            if after >= logged.version and logged.over:
                return
            async with aclosing(games.follow(game_id, after)) as batches:
                ending = _Ending(logged, seat)
                while True:
                    try:
                        # An event sent restarts the wait: only a stream with nothing to say ends.
                        async with asyncio.timeout(idle):
                            new = await anext(batches)
                    except TimeoutError:
                        return  # a whole answer, no event: the client resumes with Last-Event-ID
                    new, last = ending.cut(new)
                    for event in public_events(new, seat, ending.over, logged.rules):
                        data = _encoder.encode(event).decode()
                        yield ServerSentEventMessage(data=data, id=str(event.version), event=event.type)
                    if last:
                        return
        finally:
            place.give_back()

    @get(
        "/{game_id:str}/export",
        operation_id="export_log",
        summary="The whole log of a finished game as NDJSON",
        description="One event per line, nothing redacted (the seed and the salt of its commitment included): "
        "what POST /v1/replays and `poison replay` take back. 409 game_active before the game is over (finished "
        "or abandoned).",
        security=TOKEN_OPTIONAL,
        media_type="application/x-ndjson",
        response_description="the log, one Event per line",
        responses=problems("export_log"),
    )
    async def export(self, request: Request, game_id: GameId) -> Response[bytes]:
        games = games_of(request)
        logged = await games.load(game_id)
        await caller_seat(request, games, game_id, required=False)  # a token given must be this game's
        if not logged.over:
            raise ApiError(409, "game_active", "a game's log is exported once the game is finished or abandoned")
        read = await games.read(game_id)
        lines = b"".join(_encoder.encode(event) + b"\n" for event in public_events(read, None, True, logged.rules))
        return Response(lines, media_type="application/x-ndjson")
