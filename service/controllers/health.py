"""Health: the service answers, and so does its event store."""

from __future__ import annotations

from litestar import Request, get

from service.dependencies import games_of
from service.problems import documented
from service.schemas import Health


@get("/health", tags=["health"], summary="200 when the event store answers, else 503", responses=documented(503))
async def health(request: Request) -> Health:
    await games_of(request).store.ping()  # StoreUnavailable becomes 503 store_unavailable
    return Health(status="ok")
