"""The rate-limit buckets' calls on the store (the buckets themselves, their Lua and their
arithmetic are events/limits.py's): their key names, a client's outside every game and a
seat's among its game's keys, and taking tokens for a request that appends nothing or is
checked before its work, and spending a budget of work (events.limits.SPEND). A move's
buckets are taken by the append script itself."""

from __future__ import annotations

from collections.abc import Sequence

from events.calls import Script, StoreCalls, counted
from events.limits import LIMIT, SPEND, Limit, RateLimited, limit_args
from events.slots import slot_of

LIMIT_SCRIPT = Script.of(LIMIT)
SPEND_SCRIPT = Script.of(SPEND)


async def take(calls: StoreCalls, limits: Sequence[Limit], what: str) -> None:
    """`Buckets.limit` on any part's calls (the recorder's too, for a client's bucket
    outside a game's slot)."""
    if not limits:
        return
    groups: dict[int | None, list[Limit]] = {}
    clustered = len(limits) > 1 and await calls.clustered(limits[0].key)
    for limit in limits:
        groups.setdefault(slot_of(limit.key) if clustered else None, []).append(limit)
    for group in groups.values():
        keys = [limit.key for limit in group]
        wait = await calls.script(LIMIT_SCRIPT, keys, limit_args(group))
        if wait:
            raise RateLimited(int(wait), what)


class Buckets(StoreCalls):
    """The rate-limit buckets' keys, and taking from them outside an append."""

    def limit_key(self, kind: str, who: str) -> str:
        """The rate-limit bucket of a client (`who`: its address) for `kind` of request."""
        return f"{self.namespace}:limits:{kind}:{who}"

    def seat_limit_key(self, game_id: str, seat: int, kind: str = "moves") -> str:
        """The rate-limit bucket of a seat of a game (kept with the game's keys)."""
        return self.key(game_id, f"limits:{kind}:{seat}")

    @counted
    async def limit(self, limits: Sequence[Limit], what: str = "requests") -> None:
        """Take a token from each of these rate-limit buckets, or raise RateLimited (naming
        `what`) and take none: for a request checked before its work, or that appends
        nothing. On a cluster, buckets of different slots (a seat's and a client's) are
        taken one slot after another: one that refuses leaves those before it taken."""
        await take(self, limits, what)

    @counted
    async def spend(self, budget: Limit, cost: int, *, settle: bool = False) -> int:
        """Take `cost` units of work from the budget's bucket: 0 when taken, else the ms
        until it would be (nothing taken). `settle`: take it (or, below 0, give it back)
        whatever is left, for work already done."""
        rate = budget.rate
        args = [rate.rate, rate.burst, cost, 1 if settle else 0]
        return int(await self.script(SPEND_SCRIPT, [budget.key], args))
