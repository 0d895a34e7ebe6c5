"""The games' clocks in the store: every pending deadline, and firing each exactly once,
whichever worker or node sees it first, after any crash.

A game's deadline (the seat to move's, when that seat is a person's and the game has a
clock; a waiting game's last moment before it is abandoned) is written in its summary row by
the very append that makes it, so it is always the store's word on the game's state. Beside
that, the deadline index: a sorted set per listing shard (each of its own hash tag, so on a
Redis Cluster they spread over the nodes), a member per game, scored no later than its
deadline. Every worker looks at every shard a few times a second:

1. it claims the entries that are due, atomically (CLAIM): each one's score moves
   `CLAIM_MS` ahead, so no other worker takes it meanwhile, and a worker that dies holding
   it leaves it due again once the claim runs out;
2. it asks the game (events.games.Games.expire), which reads its state and deadline afresh
   and, when the deadline has passed, appends what it causes (seat_timed_out and the bot's
   move, or game_abandoned) at the version the deadline was set for: an ordinary atomic
   append, so a move that lands first wins, and a second firing is a version conflict that
   changes nothing;
3. it settles the entry (SETTLE) at the game's next deadline, or takes it out when none is
   pending, only if the entry is still its own claim: an append in between has written the
   index itself.

The appends keep the index no later than the truth: an append that makes a deadline where
the state before had none (a game created), or an earlier one than the state before had (a
game that waited for its open seats, started), enters the game first (`ZADD LT`: added, or
moved earlier, never later), and every append that makes one writes it after it lands. Any
other deadline moves only later (a new turn), so an entry left behind by a crash is early,
never late: the worker that finds it early settles it at the real deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from events.calls import Script, StoreCalls, StoreUnavailable, counted
from events.listing import SHARDS, shard_of

#: How long a claim keeps other workers off a due game (ms): firing takes a load, a bot's
#: move and an append; a worker that dies holding it delays the game by at most this much.
CLAIM_MS = 5_000
#: The most due games a worker claims from one shard at a time.
CLAIM_AT_ONCE = 64
#: How often a worker looks for due deadlines (seconds): a deadline fires at most about
#: this late, besides the store's and the bots' time.
TICK_S = 0.2

#: Claim a shard's due games: move each one's score to the claim's end, hand back each
#: with the score it had.
CLAIM = Script.of(
    """
-- KEYS: the shard's index. ARGV: now, the claim's end (ms), the most to claim.
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, game in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[2], game) end
return due
"""
)
#: Settle a claimed entry: at the game's next deadline ('' takes it out), only if it still
#: holds the claim.
SETTLE = Script.of(
    """
-- KEYS: the shard's index. ARGV: the game, the claim's end, its next deadline ('' for none).
if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '-1') ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1]) else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1
"""
)

log = logging.getLogger("poison.clocks")

#: What a worker does with a due game: expire it (given the time it is judged at, ms), and
#: say its next deadline (ms), or None when none is pending.
Expire = Callable[[str, int], Awaitable[int | None]]


def now_ms() -> int:
    return int(time.time() * 1000)


class Deadlines(StoreCalls):
    """The deadline index: each game with a pending deadline, scored no later than it."""

    def index_key(self, shard: int) -> str:
        return f"{self.namespace}:clock:due:{{{shard}}}"

    @counted
    async def enter(self, game_id: str, deadline_ms: int) -> None:
        """Before an append that makes a game's first pending deadline, or one earlier than
        its last: enter the game, or move its entry as early as that, never later."""
        await self.execute(
            "ZADD", self.index_key(shard_of(game_id)), "LT", deadline_ms, game_id, repeatable=True, replicated=True
        )

    @counted
    async def set(self, game_id: str, deadline_ms: int) -> None:
        """After an append that made a game's deadline: the index holds it."""
        await self.execute(
            "ZADD", self.index_key(shard_of(game_id)), deadline_ms, game_id, repeatable=True, replicated=True
        )

    @counted
    async def score(self, game_id: str) -> int | None:
        """Where the index has a game (ms), or None."""
        score = await self.execute("ZSCORE", self.index_key(shard_of(game_id)), game_id, repeatable=True)
        return None if score is None else int(float(score))

    @counted
    async def count(self) -> int:
        counts = await asyncio.gather(
            *(self.execute("ZCARD", self.index_key(shard), repeatable=True) for shard in range(SHARDS))
        )
        return sum(int(n) for n in counts)

    @counted
    async def claim(self, shard: int, now: int, until: int, most: int = CLAIM_AT_ONCE) -> list[str]:
        """The shard's games due at `now`, each claimed until `until`."""
        claimed = await self.script(CLAIM, [self.index_key(shard)], [now, until, most])
        return [game.decode() for game in claimed]

    @counted
    async def settle(self, game_id: str, until: int, next_ms: int | None) -> bool:
        """A claimed game's entry at its next deadline (None: out), only if still claimed
        until `until`; whether it was."""
        args = [game_id, until, "" if next_ms is None else next_ms]
        return bool(await self.script(SETTLE, [self.index_key(shard_of(game_id))], args))


class Timekeeper:
    """A worker's share of firing deadlines: every tick, every shard's due games claimed and
    each one expired (by `expire`, events.games.Games.expire) and settled. As many may run
    as there are workers: the claims share the games out."""

    def __init__(self, deadlines: Deadlines, expire: Expire, *, claim_ms: int = CLAIM_MS) -> None:
        self.deadlines = deadlines
        self.expire = expire
        self.claim_ms = claim_ms
        self.fired = 0  # games expired by this worker (a deadline passed, or found early)

    async def run(self, every: float = TICK_S) -> None:
        """Fire what is due, again and again, until cancelled; whatever goes wrong is logged
        and tried again next tick (a claimed game comes due again when its claim runs out)."""
        while True:
            try:
                await self.tick()
            except StoreUnavailable as error:
                log.warning("the clocks wait for the store: %s", error)
                await asyncio.sleep(1.0)
            except Exception:
                log.exception("a tick of the clocks failed")
            await asyncio.sleep(every)

    async def tick(self, now: int | None = None) -> int:
        """Claim and expire every shard's due games; how many were claimed."""
        now = now_ms() if now is None else now
        until = now + self.claim_ms
        claims = await asyncio.gather(*(self.deadlines.claim(shard, now, until) for shard in range(SHARDS)))
        due = [game for claimed in claims for game in claimed]
        if due:
            await asyncio.gather(*(self._expire(game, until) for game in due))
        return len(due)

    async def _expire(self, game_id: str, until: int) -> None:
        try:
            next_ms = await self.expire(game_id, until - self.claim_ms)
        except StoreUnavailable:
            return  # its claim runs out and it is due again
        except Exception:
            log.exception("expiring game %s failed; it is due again once its claim runs out", game_id)
            return
        self.fired += 1
        with contextlib.suppress(StoreUnavailable):
            await self.deadlines.settle(game_id, until, next_ms)


__all__ = ["CLAIM_MS", "TICK_S", "Deadlines", "Expire", "Timekeeper", "now_ms"]
