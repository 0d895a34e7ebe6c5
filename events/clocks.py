"""The games' clocks in the store: every pending deadline, and firing each exactly once,
whichever worker or node sees it first, after any crash.

A game's deadline (the seat to move's, when that seat is a person's and the game has a
clock; a waiting game's last moment before it is abandoned) is written in its summary row by
the very append that makes it, so it is always the store's word on the game's state. Beside
that, the deadline index: a sorted set per listing shard (each of its own hash tag, so on a
Redis Cluster they spread over the nodes), a member per game, scored no later than its
deadline. Every worker looks at each shard that may hold a due entry, every tick (a few
times a second; Timekeeper says which ones may):

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

The appends keep the index no later than the truth, whatever crash stops them between
two steps. An append whose deadline comes sooner than the one before (or is the first: a
game created, or started) enters it before it lands and again after (ENTER: it lowers the
entry or adds it, never raises it, and ends any worker's claim, so that a worker which read
the game before the append cannot settle it late or take it out); one whose deadline comes
later (a new turn) writes it after it lands; one that keeps it writes nothing. So an entry
left behind by a crash is early, or a dead worker's claim, never late: the worker that finds
it early settles it at the real deadline.

A claim's score is its end and a half millisecond; every other score is a whole
millisecond. That is how SETTLE knows its claim is still its own: any append's index write
since (ENTER's, or a later deadline's) has made it whole.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import NamedTuple

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

#: How much sooner than the soonest a new deadline can come (see Timekeeper) a worker looks
#: at a shard again (ms): a tick's wait for the next tick, and another for the time between
#: the deadline's reckoning and its entry in the index.
LOOK_SLACK_MS = round(2 * TICK_S * 1000)
#: Claim a shard's due games: move each one's score to the claim's end (and a half ms, the
#: mark of a claim), hand back the games, and the shard's soonest score after the claims.
CLAIM = Script.of(
    """
-- KEYS: the shard's index. ARGV: now, the claim's end (ms), the most to claim.
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local claimed = tonumber(ARGV[2]) + 0.5
for _, game in ipairs(due) do redis.call('ZADD', KEYS[1], claimed, game) end
local soonest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {due, soonest[2] or ''}
"""
)
#: Settle a claimed entry: at the game's next deadline ('' takes it out), only if it still
#: holds the claim.
SETTLE = Script.of(
    """
-- KEYS: the shard's index. ARGV: the game, the claim's end, its next deadline ('' for none).
if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '-1') ~= tonumber(ARGV[2]) + 0.5 then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1]) else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1
"""
)
#: Enter a deadline that comes sooner than the game's last (or is its first): the entry is
#: lowered to it or added, never raised; a claim on it ends (its score made whole, no later).
ENTER = Script.of(
    """
-- KEYS: the shard's index. ARGV: the game, its deadline (ms).
local at = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
local deadline = tonumber(ARGV[2])
if at == nil or at > deadline then
  redis.call('ZADD', KEYS[1], deadline, ARGV[1])
elseif at % 1 ~= 0 then
  redis.call('ZADD', KEYS[1], math.floor(at), ARGV[1])
end
return 1
"""
)

log = logging.getLogger("poison.clocks")

#: What a worker does with a due game: expire it (given the time it is judged at, ms), and
#: say its next deadline (ms), or None when none is pending.
Expire = Callable[[str, int], Awaitable[int | None]]


def now_ms() -> int:
    return int(time.time() * 1000)


class Claimed(NamedTuple):
    """A shard's claim: the games it claimed, and the shard's soonest score (ms) after it
    (None: the shard is empty)."""

    games: list[str]
    soonest_ms: float | None


class Deadlines(StoreCalls):
    """The deadline index: each game with a pending deadline, scored no later than it."""

    def index_key(self, shard: int) -> str:
        return f"{self.namespace}:clock:due:{{{shard}}}"

    @counted
    async def enter(self, game_id: str, deadline_ms: int) -> None:
        """Before and after an append whose deadline comes sooner than the game's last (or is
        its first): the entry no later than it, and no worker's claim (ENTER)."""
        await self.script(ENTER, [self.index_key(shard_of(game_id))], [game_id, deadline_ms], repeatable=True)

    @counted
    async def set(self, game_id: str, deadline_ms: int) -> None:
        """After an append whose deadline comes later than the game's last: the index holds it
        (and no worker's claim)."""
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
    async def claim(self, shard: int, now: int, until: int, most: int = CLAIM_AT_ONCE) -> Claimed:
        """The shard's games due at `now`, each claimed until `until` (scored half a ms more),
        and the soonest score the shard holds after the claims."""
        due, soonest = await self.script(CLAIM, [self.index_key(shard)], [now, until, most])
        return Claimed([game.decode() for game in due], float(soonest) if soonest else None)

    @counted
    async def settle(self, game_id: str, until: int, next_ms: int | None) -> bool:
        """A claimed game's entry at its next deadline (None: out), only if still claimed
        until `until`; whether it was."""
        args = [game_id, until, "" if next_ms is None else next_ms]
        return bool(await self.script(SETTLE, [self.index_key(shard_of(game_id))], args))


class Timekeeper:
    """A worker's share of firing deadlines: every tick, the due games of every shard it
    looks at claimed, and each one expired (by `expire`, events.games.Games.expire) and
    settled. As many may run as there are workers: the claims share the games out.

    A tick of `run` looks only at the shards that may hold a due game: one whose soonest
    entry (as its last look saw it, or a game this worker fired next comes due) is due, or
    that has not been looked at for `soonest_ms` less LOOK_SLACK_MS. `soonest_ms` is how
    soon after it is reckoned a deadline can come (the shortest clock, the waiting limit):
    an entry any append writes after a look is due no sooner than that, so no entry waits
    longer for a look than with every shard looked at every tick. (Only a settle by another
    worker that then dies can leave a sooner entry unseen, for at most that long.) A clock
    that steps back makes every shard due for a look. `tick`, given any time, looks at
    every shard."""

    def __init__(self, deadlines: Deadlines, expire: Expire, *, claim_ms: int = CLAIM_MS, soonest_ms: int = 0) -> None:
        self.deadlines = deadlines
        self.expire = expire
        self.claim_ms = claim_ms
        self.lookahead_ms = max(0, soonest_ms - LOOK_SLACK_MS)
        self.fired = 0  # games expired by this worker (a deadline passed, or found early)
        #: Each shard's last look (ms) and when it is due for the next.
        self._looks: list[tuple[float, float]] = [(0.0, 0.0)] * SHARDS

    async def run(self, every: float = TICK_S) -> None:
        """Fire what is due, again and again, until cancelled; whatever goes wrong is logged
        and tried again next tick (a claimed game comes due again when its claim runs out).
        Each game fires in a task of its own, so that a slow one (a search bot moving after
        the time-out) holds up none of the games that come due meanwhile."""
        firing: dict[str, asyncio.Task[None]] = {}
        try:
            while True:
                try:
                    if len(firing) < CLAIM_AT_ONCE * SHARDS:
                        for game_id, until in await self.claim(looking_ahead=True):
                            if game_id not in firing:  # (its claim ran out while it fires)
                                firing[game_id] = task = asyncio.create_task(self._expire(game_id, until))
                                task.add_done_callback(functools.partial(_done, firing, game_id))
                except StoreUnavailable as error:
                    log.warning("the clocks wait for the store: %s", error)
                    await asyncio.sleep(1.0)
                except Exception:
                    log.exception("a tick of the clocks failed")
                await asyncio.sleep(every)
        finally:
            for task in firing.values():
                task.cancel()
            await asyncio.gather(*firing.values(), return_exceptions=True)

    async def tick(self, now: int | None = None) -> int:
        """Claim and expire every shard's due games (at `now`, ms), all fired before it
        returns; how many were claimed. Every shard is looked at: `now` may be any time."""
        due = await self.claim(now)
        if due:
            await asyncio.gather(*(self._expire(game_id, until) for game_id, until in due))
        return len(due)

    async def claim(self, now: int | None = None, *, looking_ahead: bool = False) -> list[tuple[str, int]]:
        """Every shard's due games, claimed: each with its claim's end; `looking_ahead`, only
        the shards that may hold one (the class's words; `now` must then be the clock's).
        A shard the store cannot serve now (its node failing over) is left to the next
        tick, the others' games are not; StoreUnavailable when no shard could be served."""
        now = now_ms() if now is None else now
        until = now + self.claim_ms
        shards = [
            shard
            for shard, (looked, next_look) in enumerate(self._looks)
            if not looking_ahead or now >= next_look or now < looked
        ]
        if not shards:
            return []
        claims = await asyncio.gather(
            *(self.deadlines.claim(shard, now, until) for shard in shards), return_exceptions=True
        )
        failed = [claimed for claimed in claims if isinstance(claimed, BaseException)]
        if len(failed) == len(claims):
            raise failed[0]
        if failed:
            log.warning("the clocks could claim %d of %d shards: %s", len(shards) - len(failed), len(shards), failed[0])
        due: list[tuple[str, int]] = []
        for shard, claimed in zip(shards, claims, strict=True):
            if isinstance(claimed, BaseException):
                continue  # looked at again next tick
            soonest = float(now + self.lookahead_ms)
            if claimed.soonest_ms is not None:
                soonest = min(soonest, claimed.soonest_ms)
            self._looks[shard] = (now, soonest)
            due += [(game_id, until) for game_id in claimed.games]
        return due

    def _learned(self, game_id: str, next_ms: int) -> None:
        """This worker fired a game whose next deadline is `next_ms` (settled by it, or
        written by the firing's append): its shard is looked at by then."""
        shard = shard_of(game_id)
        looked, next_look = self._looks[shard]
        self._looks[shard] = (looked, min(next_look, next_ms))

    async def _expire(self, game_id: str, until: int) -> None:
        try:
            next_ms = await self.expire(game_id, until - self.claim_ms)
        except StoreUnavailable:
            return  # its claim runs out and it is due again
        except Exception:
            log.exception("expiring game %s failed; it is due again once its claim runs out", game_id)
            return
        self.fired += 1
        if next_ms is not None:
            self._learned(game_id, next_ms)
        with contextlib.suppress(StoreUnavailable):
            await self.deadlines.settle(game_id, until, next_ms)


def _done(firing: dict[str, asyncio.Task[None]], game_id: str, _: asyncio.Task[None]) -> None:
    firing.pop(game_id, None)


__all__ = [
    "CLAIM",
    "CLAIM_MS",
    "ENTER",
    "LOOK_SLACK_MS",
    "SETTLE",
    "TICK_S",
    "Claimed",
    "Deadlines",
    "Expire",
    "Timekeeper",
    "now_ms",
]
