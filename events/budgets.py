"""Each client's budgets of work, kept in the store so that they hold across workers: the
search bot's playouts, and the events of logs rebuilt (a replay, a time-travel read).

A request is billed to the client whose request does the work (a person's move pays for
the searches of the bots that answer it). Its bill is opened before the work, taking what
the work is expected to cost (events.limits.SPEND: refused, with nothing done, when the
budget cannot pay), and settled once the work is done: what it really cost is taken, or
the difference given back (work dropped before it started, because its client hung up,
costs nothing). Work whose cost is known before it starts (a replay's) is billed exactly.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from types import TracebackType

from events.buckets import Buckets
from events.limits import Limit, Rate, RateLimited, RateLimits, RebuildBudgetSpent, SearchBudgetSpent
from events.records import StoreUnavailable


class Bill:
    """What one request costs one budget of its client: `charged` (taken from the bucket so
    far) and `spent` (the work done, which `settle` makes the charge). As a context, it is
    settled when the request's work is over, however it ended."""

    def __init__(
        self, store: Buckets, kind: str, rate: Rate | None, client: str | None, refusal: Callable[[int], RateLimited]
    ) -> None:
        self._store = store
        # The bucket's key is made once work is billed: a move without a search bot makes none.
        self._kind, self._rate, self._client = kind, rate, client
        self._budget: Limit | None = None
        self._refusal = refusal
        self.charged = 0
        self.spent = 0

    async def open(self, expected: int) -> None:
        """Take the `expected` cost (once per bill), or raise the budget's refusal
        (RateLimited, with when to retry) and take nothing."""
        budget = self._bucket()
        if budget is None or self.charged or expected <= 0:
            return
        wait = await self._store.spend(budget, expected)
        if wait:
            raise self._refusal(wait)
        self.charged = expected

    async def settle(self) -> None:
        """Make the charge what was spent: take the rest, or give back what was not. A store
        that cannot be reached leaves the bucket as it is (the request answers for itself)."""
        owed = self.spent - self.charged
        budget = self._bucket() if owed else None
        if budget is None:
            return
        with contextlib.suppress(StoreUnavailable):
            await self._store.spend(budget, owed, settle=True)
            self.charged = self.spent

    def _bucket(self) -> Limit | None:
        if self._budget is None and self._rate is not None and self._client is not None:
            self._budget = Limit(self._store.limit_key(self._kind, self._client), self._rate)
        return self._budget

    async def __aenter__(self) -> Bill:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.settle()


class Budgets:
    """The search and rebuild budgets of the clients of one store (`limits`: their rates;
    None: no budget of that kind)."""

    def __init__(self, store: Buckets, limits: RateLimits) -> None:
        self._store = store
        self._limits = limits

    def search(self, client: str | None) -> Bill:
        """A request's bill for the playouts its searches take."""
        return Bill(self._store, "search", self._limits.search, client, SearchBudgetSpent)

    def rebuild(self, client: str | None) -> Bill:
        """A request's bill for the events of the logs it rebuilds."""
        return Bill(self._store, "rebuild", self._limits.rebuild, client, RebuildBudgetSpent)


__all__ = ["Bill", "Budgets"]
