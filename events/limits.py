"""Rate limits kept in the store, so that they hold across every worker and process.

Each limit is a token bucket under its caller's key (a client address, a game's seat): it
holds up to `burst` tokens, refills at `rate` tokens a second, and a request takes one. A
request finding any of its buckets empty is refused, takes nothing, and is told how long
until it would pass. A bucket is kept as one number, GCRA's "theoretical arrival time"
(the server's clock in µs at which the bucket would be full again), so taking a token is
one GET and one SET (with its expiry: a bucket left alone until full is gone) per bucket,
done only by Lua on the server's own clock, so that concurrent workers never lose a count.

The check is a Lua fragment (`CHARGE_LUA`): the store's append script runs it before
appending a move (no extra round trip on the hot path) and `LIMIT`, the script made of it
alone, checks a request that appends nothing or must be checked before its work (a new
game is computed, bots and all, before its first append).

A budget is a bucket of work rather than of requests (`SPEND`): a client's playouts searched
or events rebuilt. A request takes what its work costs, when that fits in the bucket or the
bucket is full (so that work bigger than the whole bucket can still be done, once it has
filled up); work known only once it is done (a search bot's moves) is settled afterwards,
taken whatever is left or given back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

#: `charge(k, a, n)`: the n buckets KEYS[k..k+n-1], with (rate, burst) at ARGV[a], ARGV[a+1]
#: for the first, then the next pair for the next; returns 0 when each had a token (taken
#: from each), else the ms to wait (nothing taken).
#: Refused requests kept under their idempotency keys per caller of a game, unless told
#: otherwise (events/idempotency.py; the service's setting kept_refusals): a refusal costs
#: a client only a fresh key, so what is kept of them is bounded like a rate.
KEPT_REFUSALS = 100

CHARGE_LUA = """
local function charge(k, a, n)
  if n == 0 then return 0 end
  local clock = redis.call('TIME')
  local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
  local full = {}
  local wait = 0
  for j = 0, n - 1 do
    local interval = 1000000 / tonumber(ARGV[a + 2 * j])
    local at = math.max(now, tonumber(redis.call('GET', KEYS[k + j]) or 0)) + interval
    local over = at - now - tonumber(ARGV[a + 2 * j + 1]) * interval
    if over > 0 then wait = math.max(wait, math.ceil(over / 1000)) end
    full[j] = at
  end
  if wait > 0 then return wait end
  for j = 0, n - 1 do
    redis.call('SET', KEYS[k + j], string.format('%.0f', full[j]), 'PX', math.ceil((full[j] - now) / 1000) + 1)
  end
  return 0
end
"""

#: The check alone. KEYS: the buckets; ARGV: (rate, burst) per bucket.
LIMIT = CHARGE_LUA + "return charge(1, 1, #KEYS)\n"


#: One budget's bucket. KEYS[1]: the bucket; ARGV: rate, burst, cost (may be below 0: given
#: back), settle (1: take it whatever is left, never refused). Returns 0 when taken, else the
#: ms until it would be (nothing taken).
SPEND = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local interval = 1000000 / tonumber(ARGV[1])
local full = math.max(now, tonumber(redis.call('GET', KEYS[1]) or 0))
local at = math.max(now, full + tonumber(ARGV[3]) * interval)
if ARGV[4] ~= '1' and full > now then
  local over = at - now - tonumber(ARGV[2]) * interval
  if over > 0 then return math.ceil(math.min(over, full - now) / 1000) end
end
if at > now then
  redis.call('SET', KEYS[1], string.format('%.0f', at), 'PX', math.ceil((at - now) / 1000) + 1)
else
  redis.call('DEL', KEYS[1])
end
return 0
"""


@dataclass(frozen=True)
class Rate:
    """A token bucket's shape: `rate` requests a second on average, `burst` at once."""

    rate: float
    burst: int

    def __post_init__(self) -> None:
        if not (self.rate > 0 and self.burst >= 1):
            raise ValueError(f"a rate limit needs a rate above 0 and a burst of at least 1, not {self}")


class Limit(NamedTuple):
    """One bucket: its store key, and its shape."""

    key: str
    rate: Rate


@dataclass(frozen=True)
class RateLimits:
    """The limits of the service; None: no limit of that kind.

    `create`: new games per client address; `move`: moves per client address; `seat_move`:
    moves per seat of a game (that is, per token). The budgets of work per client address:
    `search`, playouts of the search bot (a second); `rebuild`, events of a log rebuilt (a
    replay, a time-travel read)."""

    create: Rate | None = None
    move: Rate | None = None
    seat_move: Rate | None = None
    search: Rate | None = None
    rebuild: Rate | None = None


class RateLimited(Exception):
    """A caller is over one of its rate limits; nothing was done."""

    def __init__(self, retry_after_ms: int, what: str) -> None:
        self.retry_after_ms = retry_after_ms
        self.what = what
        super().__init__(f"too many {what}: try again in {retry_after_ms / 1000:g} s")

    @property
    def retry_after(self) -> int:
        """Whole seconds to wait, as the Retry-After header says it (at least 1)."""
        return max(1, math.ceil(self.retry_after_ms / 1000))


class SearchBudgetSpent(RateLimited):
    """A client's search budget (playouts) cannot pay for this request now; nothing was done."""

    def __init__(self, retry_after_ms: int) -> None:
        super().__init__(retry_after_ms, "playouts searched")
        self.args = (f"this client's search budget is spent: try again in {self.retry_after} s",)


class RebuildBudgetSpent(RateLimited):
    """A client's rebuild budget (events rebuilt) cannot pay for this request now; nothing
    was done."""

    def __init__(self, retry_after_ms: int) -> None:
        super().__init__(retry_after_ms, "events rebuilt")
        self.args = (f"this client's rebuild budget is spent: try again in {self.retry_after} s",)


def limit_args(limits: list[Limit]) -> list[float | int]:
    """ARGV of `charge` for these buckets."""
    args: list[float | int] = []
    for limit in limits:
        args.extend((limit.rate.rate, limit.rate.burst))
    return args


__all__ = [
    "CHARGE_LUA",
    "LIMIT",
    "SPEND",
    "Limit",
    "Rate",
    "RateLimited",
    "RateLimits",
    "RebuildBudgetSpent",
    "SearchBudgetSpent",
    "limit_args",
]
