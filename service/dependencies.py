"""What handlers take from the application and the request: the games repository, the
strictly decoded body and the caller's seat."""

from __future__ import annotations

from typing import TypeVar

import msgspec
from litestar import Request

from core import RuleError
from core.rulesets import DEFAULT_RULESET
from events.games import Games
from events.store import UnknownGame
from service.problems import ApiError
from service.responses import header
from service.rulesets import service_rules
from service.schemas import CreateGame
from service.tokens import bearer_token, seat_of

T = TypeVar("T")

_strict_decoders: dict[type, msgspec.json.Decoder] = {}


async def strict_body(request: Request, kind: type[T]) -> T:
    """The body decoded strictly: Litestar coerces "12" into 12; the contract calls a
    wrong type a 400."""
    decoder = _strict_decoders.get(kind)
    if decoder is None:
        decoder = _strict_decoders[kind] = msgspec.json.Decoder(kind)
    try:
        return decoder.decode(await request.body())
    except (msgspec.ValidationError, msgspec.DecodeError) as error:
        raise ApiError(400, "invalid_request", f"the body is invalid: {error}") from None


class _Named(msgspec.Struct):
    """Only a body's `ruleset` (its other fields are read by that ruleset's body)."""

    ruleset: object = DEFAULT_RULESET


async def create_body(request: Request) -> CreateGame:
    """A new game's body, decoded strictly by the body of the ruleset it names (a body that
    names none is Poison's: no union decoder allows a default tag, hence two steps)."""
    body = await request.body()
    try:
        named = msgspec.json.decode(body, type=_Named)
    except (msgspec.ValidationError, msgspec.DecodeError) as error:
        raise ApiError(400, "invalid_request", f"the body is invalid: {error}") from None
    try:
        rules = service_rules(named.ruleset)
    except RuleError as unknown:
        raise ApiError(400, "invalid_request", str(unknown), reason=unknown.code) from None
    return await strict_body(request, rules.create_body)


def games_of(request: Request) -> Games:
    """The games repository the application opened (in its lifespan). Read from the
    application's state rather than injected: Litestar's dependency injection costs about
    6 µs a request, a tenth of a bare route."""
    return request.app.state.games


async def caller_seat(request: Request, games: Games, game_id: str, *, required: bool) -> int | None:
    """The seat the request's token belongs to in this game; None without a token (when
    allowed). A malformed token, or one of no seat of this game, is 401."""
    try:
        token = bearer_token(header(request.scope, b"authorization"))
    except ValueError as error:
        raise ApiError(401, "unauthorized", str(error)) from None
    if token is None:
        if required:
            if await games.store.version(game_id) == 0:
                raise UnknownGame(game_id)
            raise ApiError(401, "unauthorized", "this needs 'Authorization: Bearer <token>' of a seat of this game")
        return None
    hashes = await games.token_hashes(game_id)
    if not hashes and await games.store.version(game_id) == 0:
        raise UnknownGame(game_id)
    seat = seat_of(token, hashes)
    if seat is None:
        raise ApiError(401, "unauthorized", "this token belongs to no seat of this game")
    return seat
