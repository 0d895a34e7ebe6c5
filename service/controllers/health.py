"""Health, for a person and for an orchestrator: `/health` (the contract's: the service
answers and so does its event store), `/health/ready` (the same: send traffic here) and
`/health/live` (the process serves, whatever the store: a restart would not help a store
that is down, which `poison serve` restarts by itself when it is the embedded one)."""

from __future__ import annotations

from litestar import Request, get
from litestar.handlers import HTTPRouteHandler

from service.dependencies import games_of
from service.documented import problems
from service.schemas import Health

TAGS = ["health"]


async def _store_answers(request: Request) -> Health:
    await games_of(request).ping()  # StoreUnavailable becomes 503 store_unavailable
    return Health(status="ok")


def store_check(path: str, operation_id: str, summary: str, description: str) -> HTTPRouteHandler:
    """A route that answers 200 when the event store answers, else its problem (503
    store_unavailable): documented with the problems its operation lists."""
    return get(
        path,
        tags=TAGS,
        operation_id=operation_id,
        summary=summary,
        description=description,
        responses=problems(operation_id),
    )(_store_answers)


health = store_check(
    "/health",
    "get_health",
    "200 when the event store answers, else 503",
    "The contract's health check; the same as /health/ready.",
)
ready = store_check(
    "/health/ready",
    "get_ready",
    "Readiness: 200 when the event store answers, else 503 store_unavailable",
    "For an orchestrator's readiness probe: while the store is down (being restarted, or unreachable), requests "
    "that need it would get 503, so send traffic elsewhere.",
)


@get(
    "/health/live",
    tags=TAGS,
    operation_id="get_live",
    summary="Liveness: 200 while the process serves requests, whatever the event store",
    description="For an orchestrator's liveness probe: it never touches the store, so a store outage "
    "does not get the service restarted (the embedded store is restarted by `poison serve` itself).",
)
async def live() -> Health:
    return Health(status="ok")


routes = [health, ready, live]
