"""What handlers take from the application and the request: the games repository, the
strictly decoded body and the caller's seat; and the request class that guards every body
before anything reads it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

import msgspec
from litestar import Request
from litestar.exceptions import ClientException
from litestar.types import Empty, Receive, Scope

from core import RuleError
from core.errors import clipped, quoted
from core.rulesets import DEFAULT_RULESET
from events.codec import whole_numbers
from events.games import Games, UnknownGame
from events.pool import Gone
from events.wording import NOTHING, plain
from service.problems import ApiError
from service.responses import BODY_KEY, header
from service.rulesets import CreateGame, service_rules
from service.tokens import ServerKey, bearer_token

T = TypeVar("T")

_strict_decoders: dict[type, msgspec.json.Decoder] = {}

#: How deep a body may nest. The deepest body the API takes (a replayed log as JSON) nests 6
#: levels; msgspec decodes recursively, and about 1,000 levels exhaust Python's stack.
MAX_DEPTH = 32
#: What a route that reads a body takes unless it says otherwise (`opt={"body_media_types": ...}`).
JSON_ONLY = ("application/json",)
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_OPEN = frozenset(b"[{")
_NOT_BRACKETS = bytes(byte for byte in range(256) if byte not in b"[]{}")


def too_deep(body: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether a JSON (or NDJSON) body nests deeper than `limit`. A body with fewer brackets
    than that (every move, every new game) is answered by two counts; otherwise the brackets
    outside strings are walked once, stopping at the first level too deep."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    depth = 0
    for byte in _STRING.sub(b"", body).translate(None, _NOT_BRACKETS):
        if byte in _OPEN:
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def media_type(content_type: str | None) -> str:
    """`application/json; charset=utf-8` -> `application/json`."""
    return (content_type or "").split(";", 1)[0].strip().lower()


class GuardedRequest(Request[Any, Any, Any]):
    """The application's request class: its body, whoever reads it first (a handler through
    `strict_body`, or Litestar itself for a handler's `data`), is checked once before any
    decoder sees it.

    - Its media type must be one the route takes (`application/json`, or what the route's
      `opt["body_media_types"]` names): otherwise 415 `unsupported_media_type`. A body is
      never guessed from its bytes: a `text/plain` move is refused, not played. (A request
      with no body and no Content-Type goes on to be refused 400: its body is missing.)
    - It may not nest deeper than MAX_DEPTH: 400 `invalid_request`. msgspec decodes nested
      arrays and objects recursively, and about 1,000 levels of `[` made a 2 KB request raise
      RecursionError in the decoder (a 500) on every route with a body, typed or not.
    """

    @property
    def content_length(self) -> int | None:
        """The request's Content-Length, as Litestar's Request reads it before a body, but
        from the scope's headers as they are: Litestar builds its header multidict for it,
        a measurable share of a worker's CPU under load (py-spy; figures:
        docs/performance.md) for one header."""
        cached = self._content_length
        if cached is not Empty:
            return cached
        value = header(self.scope, b"content-length")
        try:
            length = self._content_length = int(value) if value is not None else None
        except ValueError:
            raise ClientException(f"Invalid content-length: {quoted(value)}") from None
        return length

    async def body(self) -> bytes:
        body = await super().body()
        state = self.scope["state"]
        if BODY_KEY not in state:
            check_body(self.scope, body, self.route_handler.opt.get("body_media_types", JSON_ONLY))
            state[BODY_KEY] = body  # checked; and kept for the wording of a refusal (service.problems)
        return body


class Scoped(Protocol):
    """What the helpers below read of a request: its ASGI scope. Litestar's Request is one;
    so is the hot routes' own (service/hot.py), which skips building a Request."""

    @property
    def scope(self) -> Scope: ...


def check_body(scope: Scope, body: bytes, accepted: Sequence[str] = JSON_ONLY) -> bytes:
    """`body` if its media type is one of `accepted` and it nests no deeper than MAX_DEPTH;
    else the 415 or the 400 (GuardedRequest says why)."""
    given = media_type(header(scope, b"content-type"))
    if given not in accepted and (body or given):  # no body at all is a 400 (it is missing)
        sent = clipped(given) if given else "one without a Content-Type"
        raise ApiError(415, "unsupported_media_type", f"this route takes a body as {' or '.join(accepted)}, not {sent}")
    if too_deep(body):
        raise ApiError(400, "invalid_request", f"the body nests deeper than {MAX_DEPTH} levels")
    return body


async def strict_body(request: Request, kind: type[T]) -> T:
    """The body decoded strictly: Litestar coerces "12" into 12; the contract calls a
    wrong type a 400."""
    return decoded(await request.body(), kind)


def decoded(body: bytes, kind: type[T]) -> T:
    """A checked body decoded strictly as `kind`, or the 400 saying what is wrong with it.

    A whole number written with a fraction (`3.0`, `3e2`) is taken where an integer is due,
    as in a replayed log's events (events.codec.whole_numbers says why): a body refused is
    decoded again with such numbers made integers."""
    decoder = _strict_decoders.get(kind)
    if decoder is None:
        decoder = _strict_decoders[kind] = msgspec.json.Decoder(kind)
    try:
        return decoder.decode(body)
    except msgspec.ValidationError:
        document = msgspec.json.decode(body)  # it is JSON: only its values were refused
        try:
            return msgspec.convert(whole_numbers(document), kind, strict=True)
        except msgspec.ValidationError as refused:  # wrong with the numbers made whole, too
            raise invalid_body(refused, body, kind) from None
    except msgspec.DecodeError as error:
        raise invalid_body(error, body, kind) from None


def invalid_body(error: msgspec.DecodeError, body: bytes, kind: Any) -> ApiError:
    """400 saying what is wrong with a body, in words (events.wording): "card: 'Z9' is not a
    card code: the cards are …", "players is missing", "the body is empty"."""
    if not body.strip():
        return ApiError(400, "invalid_request", "the body is empty: send a JSON object")
    try:
        document = msgspec.json.decode(body)
    except msgspec.DecodeError:
        document = NOTHING
    return ApiError(400, "invalid_request", plain(error, document, kind=kind))


class _Named(msgspec.Struct):
    """Only a body's `ruleset` (its other fields are read by that ruleset's body)."""

    ruleset: object = DEFAULT_RULESET


async def create_body(request: Request) -> CreateGame:
    """A new game's body, decoded strictly by the body of the ruleset it names (a body that
    names none is Poison's: no union decoder allows a default tag, hence two steps)."""
    body = await request.body()
    try:
        named = msgspec.json.decode(body, type=_Named)
    except msgspec.DecodeError as error:  # ValidationError included
        raise invalid_body(error, body, CreateGame) from None
    try:
        rules = service_rules(named.ruleset)
    except RuleError as unknown:
        raise ApiError(400, "invalid_request", str(unknown), reason=unknown.code) from None
    return await strict_body(request, rules.create_body)


def gone_of(receive: Receive) -> Gone:
    """What tells that the client of a request has hung up, for work that waits its turn
    (events.pool): it returns on the ASGI server's `http.disconnect`. Only for a request
    whose body has been read: it reads what the server says next, and a body's messages
    would be lost to it."""

    async def gone() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    return gone


def games_of(request: Request) -> Games:
    """The games repository the application opened (in its lifespan). Read from the
    application's state rather than injected: Litestar's dependency injection costs a
    noticeable share of a bare route on every request (figures: docs/performance.md)."""
    return request.app.state.games


def keys_of(request: Scoped) -> ServerKey:
    """The server key the application was built with (service/app.py), from its state as
    the games are."""
    keys: ServerKey = request.scope["app"].state.server_key
    return keys


async def caller_seat(request: Scoped, games: Games, game_id: str, *, required: bool) -> int | None:
    """The seat the request's token belongs to in this game; None without a token (when
    allowed). A malformed token, or one of no seat of this game, is 401."""
    try:
        token = bearer_token(header(request.scope, b"authorization"))
    except ValueError as error:
        raise ApiError(401, "unauthorized", str(error)) from None
    if token is None:
        if required:
            if await games.version(game_id) == 0:
                raise UnknownGame(game_id)
            raise ApiError(401, "unauthorized", "this needs 'Authorization: Bearer <token>' of a seat of this game")
        return None
    hashes = await games.token_hashes(game_id)
    if not hashes and await games.version(game_id) == 0:
        raise UnknownGame(game_id)
    seat = keys_of(request).seat_of(token, hashes)
    if seat is None:
        raise ApiError(401, "unauthorized", "this token belongs to no seat of this game")
    return seat
