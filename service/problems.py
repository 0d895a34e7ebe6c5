"""Every error the API can answer, as problem+json (RFC 9457) with a stable `code`.

Domain errors stay plain exceptions in core/ and events/; this one mapping turns each into
its response. Nothing is answered 5xx unless the store is down (503): an unexpected
exception is a bug, logged, and answered 500 `internal_error` without details.
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, NotFoundException, ValidationException
from litestar.plugins.problem_details import ProblemDetailsConfig, ProblemDetailsException, ProblemDetailsPlugin

from core import RuleError
from core.errors import MoveConflict, MoveRefused
from events.limits import RateLimited
from events.replay import InvalidLog
from events.store import IdempotencyKeyReused, StoreUnavailable, UnknownGame, VersionConflict

log = logging.getLogger("poison.service")

TYPE_BASE = "https://poison.example/problems/"


TITLES = {
    "invalid_request": "The request is malformed",
    "unauthorized": "No valid token for this game",
    "game_not_found": "No such game",
    "not_found": "No such resource",
    "method_not_allowed": "Method not allowed",
    "not_your_turn": "It is not your turn",
    "game_finished": "The game is finished",
    "version_conflict": "The game has moved on",
    "game_active": "The game is not finished",
    "payload_too_large": "The request body is too large",
    "unsupported_media_type": "The body's media type is not one this route takes",
    "card_not_in_hand": "You do not hold that card",
    "illegal_cauldron": "That card may not go into that cauldron",
    "cannot_close": "The pot may not be closed",
    "idempotency_key_reused": "Idempotency key used for another request",
    "rate_limited": "Too many requests",
    "invalid_log": "The log is invalid",
    "store_unavailable": "The event store cannot be reached",
    "internal_error": "Internal error",
}


class ApiError(ProblemDetailsException):
    """A problem with its code; raise it from handlers for API-level refusals."""

    def __init__(
        self, status: int, code: str, detail: str, *, headers: dict[str, str] | None = None, **extra: Any
    ) -> None:
        super().__init__(
            detail=detail,
            status_code=status,
            type_=TYPE_BASE + code,
            title=TITLES.get(code, code.replace("_", " ")),
            headers=headers,
            extra={"code": code, **extra},
        )


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


def from_unknown_game(error: UnknownGame) -> ApiError:
    return ApiError(404, "game_not_found", f"there is no game {error.args[0]!r}")


def from_store_unavailable(error: StoreUnavailable) -> ApiError:
    return ApiError(503, "store_unavailable", str(error))


def from_invalid_log(error: InvalidLog) -> ApiError:
    return ApiError(422, "invalid_log", str(error), at_version=error.at_version)


def from_idempotency(error: IdempotencyKeyReused) -> ApiError:
    return ApiError(422, "idempotency_key_reused", str(error))


def from_rate_limited(error: RateLimited) -> ApiError:
    problem = ApiError(429, "rate_limited", str(error), retry_after=error.retry_after)
    problem.headers = {"Retry-After": str(error.retry_after)}
    return problem


def from_validation(error: ValidationException) -> ApiError:
    detail = error.detail or "invalid request"
    extra = error.extra if isinstance(error.extra, list) else []
    reasons = "; ".join(
        f"{item.get('key') or item.get('source') or 'body'}: {item.get('message')}"
        for item in extra
        if isinstance(item, dict)
    )
    return ApiError(400, "invalid_request", f"{detail}: {reasons}" if reasons else detail)


_CODE_OF_STATUS = {
    401: "unauthorized",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
}


def from_http(error: HTTPException) -> ApiError:
    if isinstance(error, NotFoundException):
        return ApiError(404, "not_found", error.detail or "no such resource")
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
    return ApiError(status, code, error.detail or TITLES.get(code, ""), headers=headers or None)


def internal_error(request: Request[Any, Any, Any], error: Exception) -> Response[Any]:
    log.exception("unexpected error on %s %s", request.method, request.url.path, exc_info=error)
    return ApiError(500, "internal_error", "the server failed; the request changed nothing").to_response(request)


def refusal(error: RuleError | VersionConflict) -> ApiError:
    return from_rule_error(error) if isinstance(error, RuleError) else from_version_conflict(error)


def problem_body(problem: ApiError) -> bytes:
    """The problem+json body exactly as the plugin renders it."""
    body: dict[str, Any] = {
        "status": problem.status_code,
        "type": problem.type_,
        "title": problem.title,
        "detail": problem.detail,
    }
    if isinstance(problem.extra, dict):
        body.update(problem.extra)
    return msgspec.json.encode(body)


plugin = ProblemDetailsPlugin(
    ProblemDetailsConfig(
        exception_to_problem_detail_map={
            RuleError: from_rule_error,
            VersionConflict: from_version_conflict,
            UnknownGame: from_unknown_game,
            StoreUnavailable: from_store_unavailable,
            InvalidLog: from_invalid_log,
            IdempotencyKeyReused: from_idempotency,
            RateLimited: from_rate_limited,
            ValidationException: from_validation,
            HTTPException: from_http,
        }
    )
)
