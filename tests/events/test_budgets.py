"""A budget's bucket on the real store (events.limits.SPEND, events.budgets), and the worker
pool that drops the work of a client who hung up (events.pool)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from events.budgets import Budgets
from events.limits import Limit, Rate, RateLimits, SearchBudgetSpent
from events.pool import ClientGone, Pool
from events.store import EventStore

pytestmark = pytest.mark.anyio

#: 1,000 units, refilled at one an hour: nothing comes back within a test.
SLOW = Rate(1 / 3600, 1000)


async def test_a_budget_takes_work_that_fits_and_refuses_the_rest_taking_nothing(store: EventStore):
    budget = Limit(store.buckets.limit_key("search", "a"), SLOW)
    assert await store.buckets.spend(budget, 600) == 0
    wait = await store.buckets.spend(budget, 600)  # 1,200 of 1,000: refused
    assert wait > 0
    assert await store.buckets.spend(budget, 400) == 0  # the refusal took nothing: 1,000 of 1,000
    assert await store.buckets.spend(budget, 1) > 0


async def test_work_bigger_than_the_whole_budget_passes_only_when_the_budget_is_full(store: EventStore):
    budget = Limit(store.buckets.limit_key("search", "b"), SLOW)
    assert await store.buckets.spend(budget, 5000) == 0  # full: let through, the bucket far in debt
    assert await store.buckets.spend(budget, 1) > 0
    other = Limit(store.buckets.limit_key("search", "c"), SLOW)
    assert await store.buckets.spend(other, 1) == 0
    wait = await store.buckets.spend(other, 5000)  # not full: it waits until the one unit comes back
    assert 0 < wait <= 3_600_000


async def test_settling_gives_back_what_was_not_spent_but_never_beyond_a_full_budget(store: EventStore):
    budget = Limit(store.buckets.limit_key("search", "d"), SLOW)
    assert await store.buckets.spend(budget, 1000) == 0
    assert await store.buckets.spend(budget, -400, settle=True) == 0
    assert await store.buckets.spend(budget, 400) == 0  # what was given back
    assert await store.buckets.spend(budget, -5000, settle=True) == 0
    assert await store.buckets.spend(budget, 1000) == 0  # full again, not more than full
    assert await store.buckets.spend(budget, 1) > 0
    assert await store.buckets.spend(budget, 300, settle=True) == 0  # settling is never refused


async def test_a_bill_is_refused_before_its_work_and_settled_at_what_it_spent(store: EventStore):
    budgets = Budgets(store.buckets, RateLimits(search=SLOW))
    async with budgets.search("e") as bill:
        await bill.open(300)
        bill.spent = 900
    async with budgets.search("e") as bill:
        with pytest.raises(SearchBudgetSpent) as refused:
            await bill.open(200)  # 900 + 200 of 1,000
    assert refused.value.retry_after > 1
    async with budgets.search("e") as bill:
        await bill.open(100)
    async with budgets.search(None) as unbilled:  # no address (a Unix socket): no budget
        await unbilled.open(10**9)


async def test_work_dropped_for_a_gone_client_leaves_its_thread_to_the_next() -> None:
    pool = Pool(1, "test")
    release, started = threading.Event(), threading.Event()

    def hold() -> str:
        started.set()
        release.wait(30)
        return "held"

    left = asyncio.Event()

    async def gone() -> None:
        await left.wait()

    try:
        holding = asyncio.ensure_future(pool.run(hold))
        while not started.is_set():
            await asyncio.sleep(0.01)
        dropped = asyncio.ensure_future(pool.run(threading.current_thread, gone=gone))
        kept = asyncio.ensure_future(pool.run(lambda: "kept", gone=asyncio.Event().wait))
        while pool.waiting < 2:
            await asyncio.sleep(0.01)
        left.set()
        with pytest.raises(ClientGone):
            await dropped
        assert not holding.done()  # dropped while the only thread was still held
        release.set()
        assert await holding == "held"
        assert await kept == "kept"
        assert pool.waiting == 0
        assert await pool.run(lambda: "again") == "again"  # no slot was lost
    finally:
        release.set()
        pool.close()
