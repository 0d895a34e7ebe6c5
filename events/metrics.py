"""The event store's measures, for Prometheus: appends and their latency, version
conflicts, store errors and moves recorded. Declared here, beside the store, so that
events/ can count them without the service (importing this module needs only
prometheus_client); service/metrics.py exposes them at `GET /metrics` with the HTTP
layer's own.

With several worker processes, `poison serve` points PROMETHEUS_MULTIPROC_DIR at a
directory of its own before any worker imports prometheus_client: every value then lives
in a file per process there, and one scrape sums them all (service/metrics.py).
No label ever holds a game id, a seat, a hand or a token: only bounded names.
"""

from __future__ import annotations

from functools import cache

from prometheus_client import Counter, Histogram

#: Latency buckets (seconds) of every histogram of the service: from below an append's time
#: to beyond a request's (figures: docs/performance.md) and the store's timeout, 2 s by
#: default.
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

APPEND_SECONDS = Histogram(
    "poison_store_append_seconds",
    "Appends to a game's log (one script call each, conflicts and refusals included) and how long each took",
    buckets=LATENCY_BUCKETS,
)
VERSION_CONFLICTS = Counter(
    "poison_store_version_conflicts",
    "Appends refused because the game had moved on (another move was recorded first)",
)
STORE_ERRORS = Counter(
    "poison_store_errors",
    "Store calls that failed because the store could not be reached or could not serve (StoreUnavailable)",
)
MOVES = Counter(
    "poison_moves",
    "Moves recorded in a game's log, by ruleset (an idempotent retry answered from its record is not counted)",
    ["ruleset"],
)


@cache
def moves_of(ruleset: str) -> Counter:
    """MOVES's child of a ruleset, found once (`labels` costs a lock and a lookup, on every
    move otherwise; figures: docs/performance.md). The rulesets are few and known, so the
    cache stays small."""
    return MOVES.labels(ruleset)
