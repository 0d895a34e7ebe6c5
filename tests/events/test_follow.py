"""Following games live through one waiter per store (events/follow.py)."""

from __future__ import annotations

import asyncio
import time
from contextlib import aclosing

import pytest

from events.schema import CardPlayed
from tests.events.logs import game_log

pytestmark = pytest.mark.anyio

LOG, _ = game_log(4, seed=21)
CARD = CardPlayed(round=1, seat=1, card="R1", cauldron=0, total=1)


async def collect(store, game_id: str, after: int, until: int) -> list[int]:
    seen: list[int] = []
    async with aclosing(store.follow(game_id, after)) as batches:
        async for batch in batches:
            seen += [version for version, _ in batch]
            if seen[-1] >= until:
                return seen
    return seen


async def test_every_follower_sees_every_event_in_order_from_its_own_start(store):
    await store.append("busy", LOG[:2], 0)

    async def writer():
        version = 2
        for _ in range(60):
            await store.append("busy", [CARD, CARD], version)
            version += 2
            await asyncio.sleep(0.002)

    followers = [collect(store, "busy", after, 122) for after in (0, 1, 2, 2, 2, 7)]
    late = [asyncio.sleep(0.05), asyncio.sleep(0.1)]
    results = await asyncio.wait_for(asyncio.gather(writer(), *followers, *late), 20)
    for after, seen in zip((0, 1, 2, 2, 2, 7), results[1:7], strict=True):
        assert seen == list(range(after + 1, 123))
    assert store.follower.followed == 0  # every follower gone, every game unwatched


async def test_a_game_followed_while_the_waiter_blocks_is_read_at_once(store):
    await store.append("first", LOG[:2], 0)
    await store.append("second", LOG[:2], 0)
    quiet = asyncio.ensure_future(collect(store, "first", 2, 3))
    await asyncio.sleep(0.3)  # the waiter is now blocked on "first" alone (for up to 1 s)
    started = time.monotonic()
    following = asyncio.ensure_future(collect(store, "second", 2, 3))
    await asyncio.sleep(0.05)
    await store.append("second", [CARD], 2)
    assert await asyncio.wait_for(following, 5) == [3]
    assert time.monotonic() - started < 0.5  # not after the waiter's block time
    quiet.cancel()


async def test_a_thousand_followers_of_one_game_share_one_read(store):
    await store.append("crowd", LOG[:2], 0)
    followers = [asyncio.ensure_future(collect(store, "crowd", 2, 3)) for _ in range(1000)]
    await asyncio.sleep(0.3)
    assert store.follower.followed == 1
    await store.append("crowd", [CARD], 2)
    assert await asyncio.wait_for(asyncio.gather(*followers), 10) == [[3]] * 1000
