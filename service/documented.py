"""What the OpenAPI document says of the problems each route can answer.

The codes and their statuses are the contract's table (http-api.md); a route's `responses`
list the problem statuses it can give, each described by the codes behind it.
"""

from __future__ import annotations

from litestar.openapi.datastructures import ResponseSpec


def documented(*statuses: int) -> dict[int, ResponseSpec]:
    """OpenAPI entries for the problem responses a route can give."""
    from service.schemas import Problem

    return {
        status: ResponseSpec(
            data_container=Problem,
            description=", ".join(code for code, s in STATUS_OF.items() if s == status) or "problem",
            media_type="application/problem+json",
        )
        for status in statuses
    }


#: The status of every code of http-api.md's table.
STATUS_OF = {
    "invalid_request": 400,
    "unauthorized": 401,
    "game_not_found": 404,
    "not_your_turn": 409,
    "game_finished": 409,
    "version_conflict": 409,
    "game_active": 409,
    "payload_too_large": 413,
    "unsupported_media_type": 415,
    "card_not_in_hand": 422,
    "illegal_cauldron": 422,
    "cannot_close": 422,
    "idempotency_key_reused": 422,
    "invalid_log": 422,
    "rate_limited": 429,
    "store_unavailable": 503,
}


