"""The lobby over HTTP: take an open seat, leave it, and claim a seat in a finished game's rematch.

Every change is an appended event, written with its consequences and the seat's token
hash in one step (events.games): a join that takes the last open seat starts the game.
Like a move, each takes an `Idempotency-Key` and counts against the rate limits; its
entry in the OpenAPI document (problems, headers) is declared in service.documented.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping
from typing import Annotated, cast

import msgspec
from litestar import Controller, Request, delete, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import PathParameter
from litestar.types import ASGIApp

from core import RuleError
from events.games import LEFT, SeatChanged
from events.play import LoggedGame
from service.controllers.games import GameId, answer_response, client_address, idempotency_of, pack_answer
from service.dependencies import caller_seat, games_of, strict_body
from service.documented import TOKEN_REQUIRED, problems
from service.problems import ApiError, problem_body, refusal
from service.responses import JSONBytes, header
from service.schemas import MAX_SEAT, JoinSeat, SeatTakenOut
from service.tokens import bearer_token, new_token, rematch_game_id, rematch_token, token_hash
from service.views import game_view

SeatNumber = Annotated[int, PathParameter(ge=0, le=MAX_SEAT, description="the seat: 0 for the first, in order")]
_encoder = msgspec.json.Encoder()


class SeatsController(Controller):
    path = "/v1/games"
    tags = ("lobby",)

    @post(
        "/{game_id:str}/seats/{seat:int}",
        status_code=201,
        operation_id="join_seat",
        summary="Take an open seat",
        description="Sit at an open seat of a waiting game, under a name nobody at the table has: the answer holds "
        "the seat's token (shown only here) and the game with your `you`. Taking the last open seat starts the game: "
        "its first deal (and the moves of bots whose turn comes) are in the same step, so the answer's game is "
        "active. Of two joins of one seat exactly one succeeds (the other: 409 seat_taken, or game_started once no "
        "seat is open). With an `Idempotency-Key` it is safe to retry: keep the key secret, since a retry with it "
        "gets the same token.",
        responses={
            201: ResponseSpec(data_container=SeatTakenOut, description="your seat, its token and the game"),
            **problems("join_seat"),
        },
    )
    async def join(self, request: Request, game_id: GameId, seat: SeatNumber) -> ASGIApp:
        games = games_of(request)
        data = await strict_body(request, JoinSeat)
        idempotency = idempotency_of(request, "join", seat, data.name, scope="join")
        token = new_token()

        def answer(after: LoggedGame, first_version: int, caused: object) -> bytes:
            body = _encoder.encode(
                SeatTakenOut(seat=seat, name=data.name, token=token, game=game_view(after, seat=seat))
            )
            return body if idempotency is None else pack_answer(201, body)

        try:
            appended, _ = await games.join(
                game_id,
                seat,
                data.name,
                token_hash=token_hash(token),
                idempotency=idempotency,
                answer=answer,
                client=client_address(request),
            )
        except RuleError as refused:
            problem = refusal(refused)
            if idempotency is None or problem.status_code != 409:
                raise
            # A refused join is answered the same way on every retry with its key, too.
            appended = await games.remember(
                game_id, idempotency._replace(result=pack_answer(409, problem_body(problem)))
            )
        return JSONBytes(201, appended.result) if idempotency is None else answer_response(appended.result)

    @delete(
        "/{game_id:str}/seats/{seat:int}",
        status_code=204,
        media_type="text/plain",  # no body: the service's JSON bodies end with a newline, a 204 has none
        operation_id="leave_seat",
        summary="Leave your seat of a waiting game",
        description="Open your seat again, with its token (which is refused from then on, 401). Only while the game "
        "waits: 409 game_started after. A waiting game that every person has left is `abandoned`. With an "
        "`Idempotency-Key` it is safe to retry (with the same, now dead, token).",
        security=TOKEN_REQUIRED,
        responses=problems("leave_seat"),
    )
    async def leave(self, request: Request, game_id: GameId, seat: SeatNumber) -> None:
        # A refusal is not recorded with the key: the only one, game_started, never changes.
        games = games_of(request)
        try:
            token = bearer_token(header(request.scope, b"authorization"))
        except ValueError:
            token = None  # caller_seat says what is wrong with it
        idempotency = idempotency_of(request, "leave", seat, token_hash(token), scope=f"leave{seat}") if token else None
        if idempotency is not None and await games.recall(game_id, idempotency) is not None:
            return  # checked before the token: a retry's token is dead
        caller = await caller_seat(request, games, game_id, required=True)
        if caller != seat:
            raise ApiError(401, "unauthorized", f"this token is seat {caller}'s, not seat {seat}'s")
        assert token is not None  # caller_seat found its seat
        try:
            await games.leave(
                game_id, seat, token_hash=token_hash(token), idempotency=idempotency, client=client_address(request)
            )
        except SeatChanged as changed:
            raise ApiError(401, "unauthorized", str(changed)) from None

    @post(
        "/{game_id:str}/rematch",
        status_code=201,
        operation_id="rematch",
        summary="Play again: your seat in the finished game's rematch",
        description="With a token of a finished game: your seat's token in its next game (same ruleset, options, "
        "players and bots, a new seed), which the first call creates and every later one finds. Each seat gets its "
        "own token, the same on every call, so the call is safe to repeat (an `Idempotency-Key` is accepted and "
        "changes nothing). The finished game's view then names the next game (`next_game`). 409 game_active "
        "before the game is finished.",
        security=TOKEN_REQUIRED,
        responses={
            201: ResponseSpec(
                data_container=SeatTakenOut, description="your seat in the next game, its token and view"
            ),
            **problems("rematch"),
        },
    )
    async def rematch(self, request: Request, game_id: GameId) -> ASGIApp:
        games = games_of(request)
        seat = cast(int, await caller_seat(request, games, game_id, required=True))  # required: a seat or 401
        idempotency_of(request, "rematch", seat, scope=f"seat{seat}")  # checked, never needed: it is idempotent
        next_id = rematch_game_id(game_id)

        def next_hashes(old: Mapping[int, str]) -> dict[int, str]:
            return {s: token_hash(rematch_token(h, next_id)) for s, h in old.items() if h != LEFT}

        try:
            found, after = await games.rematch(
                game_id,
                next_id,
                seat=seat,
                seed=secrets.randbits(63),
                token_hashes=next_hashes,
                created_ms=int(time.time() * 1000),
                client=client_address(request),
            )
        except RuleError as refused:
            raise refusal(refused) from None
        old_hash = (await games.token_hashes(game_id))[seat]
        name = after.players[seat].name or ""
        body = SeatTakenOut(
            seat=seat, name=name, token=rematch_token(old_hash, found), game=game_view(after, seat=seat)
        )
        return JSONBytes(201, _encoder.encode(body))
