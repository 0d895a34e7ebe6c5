"""Health, for a person and for an orchestrator: `/health` (the contract's: the service
answers and so does its event store), `/health/ready` (the same: send traffic here) and
`/health/live` (the process serves, whatever the store: a restart would not help a store
that is down, which `poison serve` restarts by itself when it is the embedded one)."""

from __future__ import annotations

from litestar import Request, get

from service.dependencies import games_of
from service.documented import problems
from service.schemas import Health


async def _store_answers(request: Request) -> Health:
    await games_of(request).ping()  # StoreUnavailable becomes 503 store_unavailable
    return Health(status="ok")


@get(
    "/health",
    tags=["health"],
    operation_id="get_health",
    summary="200 when the event store answers, else 503",
    description="The contract's health check; the same as /health/ready.",
    responses=problems("get_health"),
)
async def health(request: Request) -> Health:
    return await _store_answers(request)


@get(
    "/health/ready",
    tags=["health"],
    operation_id="get_ready",
    summary="Readiness: 200 when the event store answers, else 503 store_unavailable",
    description="For an orchestrator's readiness probe: while the store is down (being restarted, or "
    "unreachable), requests that need it would get 503, so send traffic elsewhere.",
    responses=problems("get_ready"),
)
async def ready(request: Request) -> Health:
    return await _store_answers(request)


@get(
    "/health/live",
    tags=["health"],
    operation_id="get_live",
    summary="Liveness: 200 while the process serves requests, whatever the event store",
    description="For an orchestrator's liveness probe: it never touches the store, so a store outage "
    "does not get the service restarted (the embedded store is restarted by `poison serve` itself).",
)
async def live() -> Health:
    return Health(status="ok")


routes = [health, ready, live]
