"""Every error the API can answer, as problem+json (RFC 9457) with a stable `code`, rendered
in one place.

Domain errors stay plain exceptions in core/ and events/; `HANDLERS` turns each into its
problem, and `problem_response` answers it: every problem the service sends (a handler's
refusal, a framework error, the recorded answer of an idempotent move, service/guards.py's
own 408, 429 and 503) is the body `problem_body` writes, titled from the one table `TITLES`,
ending with a newline and answered with `X-Poison-Worker` (and, as every answer,
`X-Request-Id`: service.observed). Those answered here and by the guard are counted by
code (service.metrics). Nothing is answered 5xx unless the store is down (503): an
unexpected exception is a bug, logged with its request's id, and answered 500
`internal_error` without details.

A request Litestar refuses while reading its parameters or body (ValidationException) is
worded as every other bad input is (events.wording): the field, what was sent, what is
right; never "Validation failed for POST ..." nor msgspec's own words.
"""

from __future__ import annotations

import logging
import typing
from collections.abc import Callable
from typing import Any

import msgspec
from litestar import Request
from litestar.exceptions import HTTPException, InternalServerException, NotFoundException, ValidationException
from litestar.types import ExceptionHandlersMap

from core import RuleError
from core.errors import MoveConflict, MoveRefused, quoted
from events.games import (
    ClientGone,
    GameArchived,
    IdempotencyKeyReused,
    StoreUnavailable,
    UnknownGame,
    VersionConflict,
)
from events.limits import RateLimited, RebuildBudgetSpent, SearchBudgetSpent
from events.replay import InvalidLog
from events.wording import NOTHING, as_typed, plain
from service import metrics, responses
from service.observed import CLIENT_LEFT, LEFT_KEY
from service.request_ids import SCOPE_KEY
from service.responses import BODY_KEY, WORKER_HEADER, Response

log = logging.getLogger("poison.service")

TYPE_BASE = "https://poison.example/problems/"
MEDIA_TYPE = "application/problem+json"

#: The title of every code the service answers, the HTTP protocol's own included: the one table.
TITLES = {
    "invalid_request": "The request is malformed",
    "unauthorized": "No valid token for this game",
    "game_not_found": "No such game",
    "not_found": "No such resource",
    "method_not_allowed": "Method not allowed",
    "request_timeout": "The request did not arrive in time",
    "not_your_turn": "It is not your turn",
    "game_finished": "The game is finished",
    "version_conflict": "The game has moved on",
    "game_active": "The game is not finished",
    "game_archived": "The game is archived",
    "seat_taken": "That seat is not open",
    "game_started": "The game no longer waits for players",
    "game_waiting": "The game has not started",
    "game_abandoned": "The game was abandoned",
    "seat_away": "That seat is away: a bot plays it",
    "seat_not_away": "That seat is not away",
    "seat_resigned": "That seat has resigned",
    "payload_too_large": "The request body is too large",
    "unsupported_media_type": "The body's media type is not one this route takes",
    "card_not_in_hand": "You do not hold that card",
    "illegal_cauldron": "That card may not go into that cauldron",
    "cannot_close": "The pot may not be closed",
    "idempotency_key_reused": "Idempotency key used for another request",
    "invalid_log": "The log is invalid",
    "playouts_without_search": "Playouts are the mcts bot's alone",
    "search_without_person": "The mcts bot needs a person at its table",
    "seed_with_open_seats": "A game with an open seat takes no seed",
    "search_limit": "The log asks too much search to check",
    "rate_limited": "Too many requests",
    "search_budget": "This client's search budget is spent",
    "rebuild_budget": "This client's rebuild budget is spent",
    "client_gone": "The client hung up before its work started",
    "internal_error": "Internal error",
    "store_unavailable": "The event store cannot be reached",
    "too_many_connections": "Too many connections",
    "too_many_client_connections": "Too many connections from this client",
    "too_many_streams": "Too many live streams from this client",
    "streams_full": "No room for another live stream",
}


class ApiError(HTTPException):
    """A problem with its code; raise it from handlers for API-level refusals. `extra` holds
    the fields a problem carries besides the standard ones (`current_version`, `reason`…)."""

    def __init__(
        self, status: int, code: str, detail: str, *, headers: dict[str, str] | None = None, **extra: Any
    ) -> None:
        super().__init__(detail=detail, status_code=status, headers=headers)
        self.code = code
        self.extra: dict[str, Any] = extra

    @property
    def title(self) -> str:
        return TITLES[self.code]

    @property
    def type_(self) -> str:
        return TYPE_BASE + self.code


_encoder = msgspec.json.Encoder()


def problem_body(problem: ApiError) -> bytes:
    """The problem+json body of `problem`, ending with a newline: the only place one is written."""
    body = {
        "type": problem.type_,
        "title": problem.title,
        "status": problem.status_code,
        "detail": problem.detail,
        "code": problem.code,
        **problem.extra,
    }
    return _encoder.encode(body) + b"\n"


def problem_response(problem: ApiError) -> Response[bytes]:
    metrics.PROBLEMS.labels(problem.code).inc()
    headers = {**(problem.headers or {}), WORKER_HEADER: responses.worker.decode()}
    return Response(problem_body(problem), status_code=problem.status_code, media_type=MEDIA_TYPE, headers=headers)


# ---- each exception to its problem --------------------------------------------------------


def from_rule_error(error: RuleError) -> ApiError:
    """By the refusal's kind: a state in the way is a conflict (409), a move the rules
    forbid is unprocessable (422) and anything else is malformed input (400)."""
    if isinstance(error, MoveConflict):
        return ApiError(409, error.code, str(error))
    if isinstance(error, MoveRefused):
        return ApiError(422, error.code, str(error))
    return ApiError(400, "invalid_request", str(error), reason=error.code)


def from_version_conflict(error: VersionConflict) -> ApiError:
    return ApiError(409, "version_conflict", str(error), current_version=error.current_version)


def from_game_archived(error: GameArchived) -> ApiError:
    detail = f"game {quoted(error.game_id)} is archived: it is read as ever, but takes no rematch"
    return ApiError(409, "game_archived", detail)


def from_unknown_game(error: UnknownGame) -> ApiError:
    return ApiError(404, "game_not_found", f"there is no game {quoted(error.args[0])}")


def from_store_unavailable(error: StoreUnavailable) -> ApiError:
    return ApiError(503, "store_unavailable", str(error))


def from_invalid_log(error: InvalidLog) -> ApiError:
    return ApiError(422, "invalid_log", str(error), at_version=error.at_version)


def from_idempotency(error: IdempotencyKeyReused) -> ApiError:
    return ApiError(422, "idempotency_key_reused", str(error))


def from_rate_limited(error: RateLimited, code: str = "rate_limited") -> ApiError:
    return ApiError(
        429, code, str(error), headers={"Retry-After": str(error.retry_after)}, retry_after=error.retry_after
    )


def from_search_budget(error: SearchBudgetSpent) -> ApiError:
    return from_rate_limited(error, "search_budget")


def from_rebuild_budget(error: RebuildBudgetSpent) -> ApiError:
    return from_rate_limited(error, "rebuild_budget")


#: nginx's status for a request whose client closed the connection first: this answer is
#: never read, but the request's measure and log line say what became of it.
CLIENT_GONE = 499


def from_client_gone(error: ClientGone) -> ApiError:
    return ApiError(CLIENT_GONE, "client_gone", str(error))


def refusal(error: RuleError | VersionConflict) -> ApiError:
    return from_rule_error(error) if isinstance(error, RuleError) else from_version_conflict(error)


def from_validation(error: ValidationException, request: Request[Any, Any, Any] | None = None) -> ApiError:
    """Litestar's refusal of a parameter or a body, worded as every other bad input: each
    field with what was sent (read back from the request) and what is right."""
    items = [item for item in (error.extra if isinstance(error.extra, list) else []) if isinstance(item, dict)]
    reasons = [_reason(item, request) for item in items]
    return ApiError(400, "invalid_request", "; ".join(reasons) or "the request is malformed")


def _reason(item: dict[str, Any], request: Request[Any, Any, Any] | None) -> str:
    key, source, message = str(item.get("key") or ""), item.get("source"), str(item.get("message") or "")
    if source == "body" or (source is None and key == "data"):
        path = "" if key == "data" else key
        document = _body_document(request)
        return plain(message, document, kind=_parameter_type(request, "data"), path=path)
    text = None
    if request is not None and key:
        if source == "query":
            text = request.query_params.get(key)
        elif source == "path":
            text = request.path_params.get(key)
        elif source == "header":
            text = request.headers.get(key)
    words = {"query": "the query parameter", "path": "the path parameter", "header": "the header"}
    label: Callable[[str], str] = (lambda name: f"{words[source]} {name}") if source in words else str
    document = {key: as_typed(text)} if key and text is not None else NOTHING
    return plain(message, document, path=key, label=label, field_type=_parameter_type(request, key))


def _body_document(request: Request[Any, Any, Any] | None) -> Any:
    """The request's body as plain data (as read by Litestar, kept by GuardedRequest), to show a value."""
    body = request.scope["state"].get(BODY_KEY) if request is not None else None
    if not isinstance(body, bytes):
        return NOTHING
    try:
        return msgspec.json.decode(body)
    except msgspec.DecodeError:
        return NOTHING


def _parameter_type(request: Request[Any, Any, Any] | None, name: str) -> Any:
    """The type a handler's parameter is decoded as (`data: JSONBody[PlayCard]` -> PlayCard)."""
    try:
        annotation = request.route_handler.parsed_fn_signature.parameters[name].annotation  # type: ignore[union-attr]
    except (AttributeError, KeyError):
        return None
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


_CODE_OF_STATUS = {
    401: "unauthorized",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
}


def from_http(error: HTTPException) -> ApiError:
    if isinstance(error, NotFoundException):
        return ApiError(404, "not_found", error.detail if error.detail != "Not Found" else "no such resource")
    status = error.status_code
    code = _CODE_OF_STATUS.get(status)
    if code is None:
        code = "invalid_request" if status < 500 else "internal_error"
    headers = dict(error.headers or {})
    if status == 405:
        # RFC 9110: a 405 names the methods the resource takes; every GET route answers HEAD too.
        allowed = [method.strip() for method in headers.pop("allow", "").split(",") if method.strip()]
        if "GET" in allowed and "HEAD" not in allowed:
            allowed.append("HEAD")
        headers["Allow"] = ", ".join(allowed)
        return ApiError(405, code, f"this path takes {', '.join(allowed)}", headers=headers)
    return ApiError(status, code, error.detail or TITLES[code], headers=headers or None)


#: The answer to an unexpected error (a bug): it says nothing of what went wrong.
INTERNAL = ApiError(500, "internal_error", "the server failed; the request changed nothing")


def unexpected(scope: Any, error: Exception) -> ApiError:
    """An unexpected error of a request (`scope`), logged with the request's id: INTERNAL."""
    request_id = scope.get(SCOPE_KEY, b"").decode()
    log.exception("unexpected error on %s %s (request %s)", scope["method"], scope["path"], request_id, exc_info=error)
    return INTERNAL


def internal_error(request: Request[Any, Any, Any], error: Exception) -> Response[bytes]:
    return problem_response(unexpected(request.scope, error))


async def send_problem(send: Any, problem: ApiError, *extra: tuple[bytes, bytes]) -> None:
    """Answer `problem` through an ASGI `send`, as `problem_response` answers it (its headers,
    the worker's, then `extra`), where there is no Litestar response to make: the hot routes'
    refusals (service/hot.py) and the guard's own (service/guards.py)."""
    metrics.PROBLEMS.labels(problem.code).inc()
    body = problem_body(problem)
    headers = [
        *((name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in (problem.headers or {}).items()),
        (WORKER_HEADER.encode(), responses.worker),
        (b"content-type", MEDIA_TYPE.encode()),
        (b"content-length", str(len(body)).encode()),
        *extra,
    ]
    await send({"type": "http.response.start", "status": problem.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def _answer(convert: Callable[[Any], ApiError]) -> Callable[[Request[Any, Any, Any], Exception], Response[bytes]]:
    def handler(request: Request[Any, Any, Any], error: Exception) -> Response[bytes]:
        return problem_response(convert(error))

    return handler


def _answer_validation(request: Request[Any, Any, Any], error: ValidationException) -> Response[bytes]:
    return problem_response(from_validation(error, request))


def _answer_server_error(request: Request[Any, Any, Any], error: InternalServerException) -> Response[bytes]:
    """Litestar's own 500s, among them its refusal of a body whose client left before the
    body's end: nobody is there to read that answer, and the service did not fail, so it is
    neither a problem counted nor a 500 (service.observed counts the request as CLIENT_LEFT)."""
    if request.scope.get(LEFT_KEY):
        return Response(b"", status_code=CLIENT_LEFT)
    return problem_response(from_http(error))


#: Each domain error (and ApiError, and Litestar's own HTTP errors) to its problem.
CONVERTERS: dict[type[Exception], Callable[[Any], ApiError]] = {
    ApiError: lambda problem: problem,
    RuleError: from_rule_error,
    VersionConflict: from_version_conflict,
    UnknownGame: from_unknown_game,
    GameArchived: from_game_archived,
    StoreUnavailable: from_store_unavailable,
    InvalidLog: from_invalid_log,
    IdempotencyKeyReused: from_idempotency,
    RateLimited: from_rate_limited,
    SearchBudgetSpent: from_search_budget,
    RebuildBudgetSpent: from_rebuild_budget,
    ClientGone: from_client_gone,
    HTTPException: from_http,
}

#: The application's exception handlers (Litestar picks the closest class of the exception).
HANDLERS: ExceptionHandlersMap = {
    **{kind: _answer(convert) for kind, convert in CONVERTERS.items()},
    ValidationException: _answer_validation,
    InternalServerException: _answer_server_error,
    Exception: internal_error,
}


def problem_of(error: Exception) -> ApiError | None:
    """The problem `error` is answered with, by the closest class of it in CONVERTERS as
    Litestar's handlers pick; None for an unexpected error (a bug: 500)."""
    for kind in type(error).__mro__:
        convert = CONVERTERS.get(kind)
        if convert is not None:
            return convert(error)
    return None
