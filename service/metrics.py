"""The HTTP layer's measures and `GET /metrics`, where Prometheus scrapes them with the
event store's (events/metrics.py).

- `poison_http_request_duration_seconds{method,route,status}`: every request, by its
  route's template (`/v1/games/{game_id}/moves`, never a game id; `unmatched` when no route
  took it) and its status; its `_count` is the requests.
- `poison_live_streams`: the live streams open now.
- `poison_problems_total{code}`: the problems answered, by code (`version_conflict`,
  `store_unavailable`...).

A request costs one histogram observation (its labelled child is looked up once per
method, route and status, then kept). With several workers, `poison serve` sets
PROMETHEUS_MULTIPROC_DIR (see `multiprocess_dir`): each worker writes its values in files
of its own there, and a scrape, answered by any worker, sums every worker's files
(prometheus_client's multiprocess mode); the live streams of a worker that stopped are
dropped from the sum.
"""

from __future__ import annotations

import os

from litestar import Response, get
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

from events.metrics import LATENCY_BUCKETS

#: prometheus_client's variable: the directory of the workers' value files.
MULTIPROCESS_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
#: The route label of a request no route took (a 404): never its path, which has no bound.
UNMATCHED = "unmatched"
#: The methods named in a label; any other (a client may send any token) is `other`.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

REQUEST_SECONDS = Histogram(
    "poison_http_request_duration_seconds",
    "HTTP requests by method, route template and status, and how long each took to answer "
    "(a live stream: how long it was open)",
    ["method", "route", "status"],
    buckets=LATENCY_BUCKETS,
)
LIVE_STREAMS = Gauge("poison_live_streams", "Live streams (text/event-stream) open now", multiprocess_mode="livesum")
PROBLEMS = Counter("poison_problems", "Problems (problem+json answers) by code", ["code"])

#: prometheus_client's media type without its charset, which Litestar adds to any text/ type.
MEDIA_TYPE = CONTENT_TYPE_LATEST.split("; charset=")[0]

_children: dict[tuple[str, str, int], Histogram] = {}


def observe(method: str, route: str, status: int, seconds: float) -> None:
    """One request's observation (its labelled child found once, then kept). The method is
    bounded before it is a key: a client may send any token as a method, and each would
    otherwise keep a child for ever."""
    if method not in METHODS:
        method = "other"
    key = (method, route, status)
    child = _children.get(key)
    if child is None:
        child = _children[key] = REQUEST_SECONDS.labels(method, route, str(status))
    child.observe(seconds)


def exposition() -> bytes:
    """Every measure of this process, or of every worker when they share a directory."""
    if os.environ.get(MULTIPROCESS_VARIABLE):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry)
    return generate_latest(REGISTRY)


def worker_stopped() -> None:
    """A worker that stops takes its live gauges out of the sum (its counters stay)."""
    if os.environ.get(MULTIPROCESS_VARIABLE):
        multiprocess.mark_process_dead(os.getpid())


@get("/metrics", include_in_schema=False, sync_to_thread=False)
def metrics() -> Response[bytes]:
    """Prometheus' text format (not part of the public API: docs/serve.md describes it)."""
    return Response(exposition(), media_type=MEDIA_TYPE)
