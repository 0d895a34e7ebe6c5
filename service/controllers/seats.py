"""The table over HTTP: take an open seat, leave it, resign a seat or come back to it, and
claim a seat in a finished game's rematch.

Every change is an appended event, written with its consequences and the seat's token
verifier in one step (events.games): a join that takes the last open seat starts the game.
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
from service.answers import SeatTakenOut
from service.controllers.games import (
    GameId,
    answer_response,
    client_address,
    idempotency_of,
    pack_answer,
    refusal_kept,
)
from service.dependencies import caller_seat, games_of, gone_of, keys_of, strict_body
from service.documented import TOKEN_REQUIRED, problems
from service.problems import ApiError, refusal
from service.responses import JSONBytes, header
from service.rulesets import AnyGameView
from service.schemas import MAX_SEAT, JoinSeat
from service.tokens import ServerKey, bearer_token, rematch_game_id
from service.views import game_view

SeatNumber = Annotated[int, PathParameter(ge=0, le=MAX_SEAT, description="the seat: 0 for the first, in order")]
_encoder = msgspec.json.Encoder()


def unsealed(packed: bytes, keys: ServerKey) -> JSONBytes:
    """A join's answer as kept with its idempotency key, with the token its nonce gives put
    back (the first answer is made this way too, so a retry's is the same byte for byte);
    a refusal as it was kept."""
    kept = msgspec.json.decode(packed, type=list[msgspec.Raw])
    if len(kept) == 2:
        return answer_response(packed)
    body = msgspec.json.decode(kept[1])
    body["token"] = keys.seat_token(msgspec.json.decode(kept[2], type=str))
    return JSONBytes(201, _encoder.encode(body))


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
        "seat is open). With an `Idempotency-Key` it is safe to retry: a retry from the same client address gets "
        "the same answer, token included; the same key from another address is a join of its own.",
        responses={
            201: ResponseSpec(data_container=SeatTakenOut, description="your seat, its token and the game"),
            **problems("join_seat"),
        },
    )
    async def join(self, request: Request, game_id: GameId, seat: SeatNumber) -> ASGIApp:
        games, keys = games_of(request), keys_of(request)
        data = await strict_body(request, JoinSeat)
        client = client_address(request)
        # A joiner has no token yet: its keys are its address's (hashed with the server key),
        # so that a stranger's request under the same key is a request of its own. Records
        # from before keys had a scope name no caller, and answer nobody.
        scope = f"join:{keys.scope('address', client or '')}"
        idempotency = idempotency_of(request, "join", seat, data.name, scope=scope)
        idempotency = idempotency._replace(unscoped=False) if idempotency is not None else None
        nonce = keys.nonce()
        token = keys.seat_token(nonce)

        def answer(after: LoggedGame, first_version: int, caused: object) -> bytes:
            if idempotency is None:
                return _encoder.encode(
                    SeatTakenOut(seat=seat, name=data.name, token=token, game=game_view(after, seat=seat))
                )
            # Kept with the key: the answer without its token, and the nonce the token is
            # derived from, which grants nothing without the server key.
            sealed = SeatTakenOut(seat=seat, name=data.name, token="", game=game_view(after, seat=seat))
            return _encoder.encode([201, msgspec.Raw(_encoder.encode(sealed)), nonce])

        try:
            appended, _ = await games.join(
                game_id,
                seat,
                data.name,
                token_hash=keys.verifier(token),
                idempotency=idempotency,
                answer=answer,
                client=client,
                gone=gone_of(request.receive),  # a search the join starts is dropped if its client leaves first
            )
        except RuleError as refused:
            appended = await refusal_kept(games, game_id, refused, idempotency)
        return JSONBytes(201, appended.result) if idempotency is None else unsealed(appended.result, keys)

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
        games, keys = games_of(request), keys_of(request)
        try:
            token = bearer_token(header(request.scope, b"authorization"))
        except ValueError:
            token = None  # caller_seat says what is wrong with it
        # Each token's keys are its own: another caller's request under the same key (with
        # another token) is its own request, told nothing of this one.
        scope = f"leave:{keys.scope('token', token)}" if token else ""
        idempotency = idempotency_of(request, "leave", seat, scope=scope) if token else None
        if idempotency is not None and await games.recall(game_id, idempotency) is not None:
            return  # checked before the token: a retry's token is dead
        caller = await caller_seat(request, games, game_id, required=True)
        if caller != seat:
            raise ApiError(401, "unauthorized", f"this token is seat {caller}'s, not seat {seat}'s")
        holder = (await games.token_hashes(game_id))[seat]  # what the store keeps of this token
        try:
            await games.leave(game_id, seat, token_hash=holder, idempotency=idempotency, client=client_address(request))
        except SeatChanged as changed:
            raise ApiError(401, "unauthorized", str(changed)) from None

    @post(
        "/{game_id:str}/seats/{seat:int}/resign",
        status_code=200,
        operation_id="resign_seat",
        summary="Resign: a bot plays your seat for the rest of the game",
        description="With the seat's token: the seat is away for good (`seat_resigned`), the server's away bot "
        "plays it, at once if it is to move (the bot that took a seat whose clock ran out keeps it). When no person "
        "is left who is not away, the game is `abandoned` at once. The token stays valid: its holder still sees "
        "the seat's hand. 409 game_waiting before the game starts (leave the seat instead), seat_resigned the "
        "second time. With an `Idempotency-Key` a retry gets the same answer.",
        security=TOKEN_REQUIRED,
        responses={
            200: ResponseSpec(data_container=AnyGameView, description="the game after it, with your `you`"),
            **problems("resign_seat"),
        },
    )
    async def resign(self, request: Request, game_id: GameId, seat: SeatNumber) -> ASGIApp:
        return await _away_step(request, game_id, seat, "resign")

    @post(
        "/{game_id:str}/seats/{seat:int}/return",
        status_code=200,
        operation_id="return_to_seat",
        summary="Come back: play your seat again after your clock ran out",
        description="With the seat's token: a seat whose clock ran out (`away`) is its person's again "
        "(`seat_returned`) from its next turn on, until the game ends. 409 seat_resigned for a seat that resigned, "
        "seat_not_away for one its person plays. With an `Idempotency-Key` a retry gets the same answer.",
        security=TOKEN_REQUIRED,
        responses={
            200: ResponseSpec(data_container=AnyGameView, description="the game after it, with your `you`"),
            **problems("return_to_seat"),
        },
    )
    async def come_back(self, request: Request, game_id: GameId, seat: SeatNumber) -> ASGIApp:
        return await _away_step(request, game_id, seat, "return")

    @post(
        "/{game_id:str}/rematch",
        status_code=201,
        operation_id="rematch",
        summary="Play again: your seat in the finished game's rematch",
        description="With a token of a finished game: your seat's token in its next game (same ruleset, options, "
        "players and bots, a new seed), which the first call creates and every later one finds. Each seat gets its "
        "own token, the same on every call, so the call is safe to repeat (an `Idempotency-Key` is accepted and "
        "changes nothing). The finished game's view then names the next game (`next_game`). 409 game_active "
        "before the game is finished, game_abandoned for a game that was abandoned (it has no rematch).",
        security=TOKEN_REQUIRED,
        responses={
            201: ResponseSpec(
                data_container=SeatTakenOut, description="your seat in the next game, its token and view"
            ),
            **problems("rematch"),
        },
    )
    async def rematch(self, request: Request, game_id: GameId) -> ASGIApp:
        games, keys = games_of(request), keys_of(request)
        seat = cast(int, await caller_seat(request, games, game_id, required=True))  # required: a seat or 401
        idempotency_of(request, "rematch", seat, scope=f"seat{seat}")  # checked, never needed: it is idempotent
        next_id = rematch_game_id(game_id)

        def next_hashes(old: Mapping[int, str]) -> dict[int, str]:
            return {s: keys.verifier(keys.rematch_token(next_id, s, h)) for s, h in old.items() if h != LEFT}

        try:
            found, after = await games.rematch(
                game_id,
                next_id,
                seat=seat,
                seed=secrets.randbits(63),
                token_hashes=next_hashes,
                created_ms=int(time.time() * 1000),
                client=client_address(request),
                gone=gone_of(request.receive),
            )
        except RuleError as refused:
            raise refusal(refused) from None
        old_hash = (await games.token_hashes(game_id))[seat]
        name = after.players[seat].name or ""
        body = SeatTakenOut(
            seat=seat, name=name, token=keys.rematch_token(found, seat, old_hash), game=game_view(after, seat=seat)
        )
        return JSONBytes(201, _encoder.encode(body))


async def _away_step(request: Request, game_id: str, seat: int, step: str) -> ASGIApp:
    """A seat's resignation or return (`step`), with the seat's token: 200 and the game as
    the seat sees it after it; a refusal's 409 (or an answer) the same on every retry with
    its Idempotency-Key."""
    games = games_of(request)
    caller = await caller_seat(request, games, game_id, required=True)
    if caller != seat:
        raise ApiError(401, "unauthorized", f"this token is seat {caller}'s, not seat {seat}'s")
    idempotency = idempotency_of(request, step, seat, scope=f"seat{seat}")

    def answer(after: LoggedGame, first_version: int, caused: object) -> bytes:
        body = _encoder.encode(game_view(after, seat=seat))
        return body if idempotency is None else pack_answer(200, body)

    client = client_address(request)
    try:
        if step == "resign":
            appended, _ = await games.resign(
                game_id, seat, idempotency=idempotency, answer=answer, client=client, gone=gone_of(request.receive)
            )
        else:
            appended, _ = await games.come_back(game_id, seat, idempotency=idempotency, answer=answer, client=client)
    except RuleError as refused:
        appended = await refusal_kept(games, game_id, refused, idempotency)
    return JSONBytes(200, appended.result) if idempotency is None else answer_response(appended.result)
