"""Following games live through one waiter per store (events/follow.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import aclosing

import pytest

from events.mapper import events_of
from events.poison.schema import CODEC, CardPlayed
from events.records import version_of
from events.store import EventStore
from tests.events.logs import game_log
from tests.waiting import blocked, calls, until_async

pytestmark = pytest.mark.anyio

LOG, _ = game_log(4, seed=21)
CARD = CardPlayed(round=1, seat=1, card="R1", cauldron=0, total=1)


@pytest.fixture
async def patient(redis_url: str, namespace: str) -> AsyncIterator[EventStore]:
    """A store whose waiter blocks for 30 s at a time (and whose connections wait 60 s for a
    reply): a follower that is not woken at once waits that long, far past any deadline of
    the tests, so that they prove a prompt wake-up without timing it."""
    store = EventStore.from_url(redis_url, namespace=namespace, timeout=60)
    assert store.recorder.follower is not None
    store.recorder.follower.block_ms = 30_000
    yield store
    await store.close()


async def collect(store, game_id: str, after: int, until: int, *, idle: float | None = None) -> list[int]:
    """The versions a follower of the game sees after `after`, up to `until`; `idle`: seconds
    it waits for the waiter before reading the log itself (the store's own by default)."""
    seen: list[int] = []
    follow = store.follow(game_id, after) if idle is None else store.recorder.follower.follow(game_id, after, idle=idle)
    async with aclosing(follow) as batches:
        async for batch in batches:
            # The follower itself hands on raw entries; the store, events.
            seen += [version for version, _ in batch] if idle is None else [version_of(raw) for raw in batch]
            if seen[-1] >= until:
                return seen
    return seen


async def test_every_follower_sees_every_event_in_order_from_its_own_start(store):
    await store.append("busy", LOG[:2], 0, codec=CODEC)

    async def writer():
        version = 2
        for _ in range(60):
            await store.append("busy", [CARD, CARD], version, codec=CODEC)
            version += 2
            await asyncio.sleep(0.002)

    followers = [collect(store, "busy", after, 122) for after in (0, 1, 2, 2, 2, 7)]
    late = [asyncio.sleep(0.05), asyncio.sleep(0.1)]
    results = await asyncio.wait_for(asyncio.gather(writer(), *followers, *late), 20)
    for after, seen in zip((0, 1, 2, 2, 2, 7), results[1:7], strict=True):
        assert seen == list(range(after + 1, 123))
    assert store.recorder.follower.followed == 0  # every follower gone, every game unwatched


def waiter_blocked(store, server: str) -> bool:
    """Whether the store's waiter (of its only server) is blocked in its XREAD: the waiter
    knows its connection's id (it can be unblocked), and the server shows that client
    blocked."""
    waiter = store.recorder.follower._waiters.get(None)
    return bool(
        waiter is not None and waiter.client_id is not None and blocked(server, "xread", client_id=waiter.client_id)
    )


async def test_a_game_followed_while_the_waiter_blocks_is_read_at_once(patient, redis_url):
    store = patient
    await store.append("first", LOG[:2], 0, codec=CODEC)
    await store.append("second", LOG[:2], 0, codec=CODEC)
    # No follower reads the log itself after an idle wait here: only the waiter brings events.
    quiet = asyncio.ensure_future(collect(store, "first", 2, 3, idle=60))
    await until_async(lambda: waiter_blocked(store, redis_url), what='the waiter blocked on "first" alone')
    unblocked = calls(redis_url, "client|unblock")
    following = asyncio.ensure_future(collect(store, "second", 2, 3, idle=60))
    # Following "second" sends CLIENT UNBLOCK on the store's connection after its first read
    # of the log (XRANGE): once the server has run it, that read is done, and the event
    # appended now can only come through the waiter.
    await until_async(lambda: calls(redis_url, "client|unblock") > unblocked, what="the waiter unblocked")
    await store.append("second", [CARD], 2, codec=CODEC)
    # Not unblocked, the waiter would read "second" after its block time: 30 s.
    assert await asyncio.wait_for(following, 10) == [3]
    quiet.cancel()


async def test_a_thousand_followers_of_one_game_share_one_read(store, redis_url):
    await store.append("crowd", LOG[:2], 0, codec=CODEC)
    followers = [asyncio.ensure_future(collect(store, "crowd", 2, 3)) for _ in range(1000)]
    key = store.recorder.key("crowd", "events")

    # Every follower in (each has sent its first read of the log, which an append sent later
    # on the same connection comes after), and the waiter blocked.
    def all_waiting() -> bool:
        watch = store.recorder.follower._watches.get(key)
        return watch is not None and watch.users == 1000 and waiter_blocked(store, redis_url)

    await until_async(all_waiting, what="a thousand followers waiting on one blocked read")
    assert store.recorder.follower.followed == 1
    await store.append("crowd", [CARD], 2, codec=CODEC)
    assert await asyncio.wait_for(asyncio.gather(*followers), 10) == [[3]] * 1000


async def test_a_batch_the_waiter_read_is_decoded_once_for_every_stream_of_its_game(store, redis_url):
    await store.append("watched", LOG[:2], 0, codec=CODEC)
    decoded: list[list[int]] = []

    def decode(entries: list) -> list[tuple[int, object]]:
        decoded.append([version_of(raw) for raw in entries])
        return events_of(entries)

    async def stream(after: int) -> list[int]:
        # No stream's own read after an idle wait: what comes, comes through the waiter.
        async with aclosing(store.recorder.follower.follow("watched", after, decode, idle=60)) as batches:
            return [version for version, _ in await anext(batches)]

    read = calls(redis_url, "xrange")
    streams = [asyncio.ensure_future(stream(2)) for _ in range(5)]
    # Every stream has read the log itself (nothing after version 2), and the waiter waits.
    await until_async(lambda: calls(redis_url, "xrange") >= read + 5, what="each stream's own first read")
    await until_async(lambda: blocked(redis_url, "xread"), what="the waiter blocked")
    await store.append("watched", LOG[2:4], 2, codec=CODEC)
    assert [await asyncio.wait_for(one, 10) for one in streams] == [[3, 4]] * 5
    assert decoded == [[3, 4]]  # once, for all five
