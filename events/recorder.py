"""The recorder: a game's raw records, one Redis Stream per game, appended atomically by
one Lua script and read back in order.

Stream entry ids are `0-<version>`: version n is the n-th event, so reading "after
version n" is a plain XRANGE and the stream's length is the game's version. Appends run
as one Lua script (APPEND, run by events/store.py's `EventStore.append`, which gives it
the parts of the other modules): check the idempotency key (events/idempotency.py), take
the seats' rate-limit tokens (events/limits.py; the client's too on one server), check the
expected version, add every event of the move, update the summary and the seat tokens'
hashes, write the finished copy when the game ends, record the idempotency result, or do
nothing at all. Keys of one game share the hash tag `{game_id}`, so that on a Redis
Cluster a game lives in one slot and its append is one script there.

A finished game's log is kept whole in one value too, its finished copy, written by the
append that ends it, so that loading it reads one value instead of an entry per event; the
stream stays the source of truth, read by everything else. The recorder hands raw entries
to the rulesets' decoders through events/mapper.py; live streams wait in events/follow.py.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from functools import cache
from typing import TYPE_CHECKING, Any

from events.calls import Script, StoreCalls, counted
from events.codec import Codec, Event, GameFinished, RematchCreated
from events.limits import CHARGE_LUA
from events.mapper import events_of, events_of_copy
from events.pipelined import Argument
from events.restore import finished_copy_header

if TYPE_CHECKING:
    from events.follow import Follower

APPEND = (
    CHARGE_LUA
    + """
-- KEYS: stream, summary, tokens, idempotency record, finished copy (all of the game's
--       slot), then n rate-limit buckets (its seats'; on one server, its client's too)
-- ARGV: expected version, fingerprint ('' for none), result, ttl, n buckets,
--       (rate, burst) per bucket, n events, (type, schema, data) per event, n summary
--       pairs, pairs, n token pairs, pairs, the finished copy's header ('' for no copy),
--       n stored forms, (type, schema) per form
-- Returns {'appended', version, status before, status now, listing member} ('' for none):
-- the listing's indexes, outside the game's slot, are the caller's to update.
if ARGV[2] ~= '' then
  local seen = redis.call('HMGET', KEYS[4], 'f', 'r', 'v', 'n')
  if seen[1] then return {'idempotent', seen[1], seen[2], seen[3], seen[4]} end
end
local buckets = tonumber(ARGV[5])
local wait = charge(6, 6, buckets)
if wait > 0 then return {'limited', wait} end
local version = redis.call('XLEN', KEYS[1])
if version ~= tonumber(ARGV[1]) then return {'conflict', version} end
local i = 6 + 2 * buckets
local n = tonumber(ARGV[i])
i = i + 1
for _ = 1, n do
  version = version + 1
  redis.call('XADD', KEYS[1], '0-' .. version, 't', ARGV[i], 's', ARGV[i + 1], 'd', ARGV[i + 2])
  i = i + 3
end
-- The summary's status and listing member, before this append and after it (from the
-- pairs written now, so that the summary is read once).
local before = redis.call('HMGET', KEYS[2], 'status', 'listed')
local status, listed = before[1], before[2]
local pairs = tonumber(ARGV[i])
if pairs > 0 then
  for p = i + 1, i + 2 * pairs, 2 do
    if ARGV[p] == 'status' then status = ARGV[p + 1] elseif ARGV[p] == 'listed' then listed = ARGV[p + 1] end
  end
  redis.call('HSET', KEYS[2], unpack(ARGV, i + 1, i + 2 * pairs))
end
i = i + 1 + 2 * pairs
pairs = tonumber(ARGV[i])
if pairs > 0 then redis.call('HSET', KEYS[3], unpack(ARGV, i + 1, i + 2 * pairs)) end
i = i + 1 + 2 * pairs
-- The finished copy: the whole log's data in one value (events/restore.py reads it), made
-- when the game ends (and again for what follows its end), only from entries of today's
-- stored forms; any other append after it, or an entry of another form, leaves none, and
-- a load then reads the stream.
if ARGV[i] ~= '' then
  local known = {}
  for f = 1, tonumber(ARGV[i + 1]) do known[ARGV[i + 2 * f] .. ' ' .. ARGV[i + 2 * f + 1]] = true end
  local data = {}
  for e, entry in ipairs(redis.call('XRANGE', KEYS[1], '-', '+')) do
    local f = entry[2]
    if #f ~= 6 or f[1] ~= 't' or f[3] ~= 's' or f[5] ~= 'd' or not known[f[2] .. ' ' .. f[4]] then
      data = nil
      break
    end
    data[e] = f[6]
  end
  if data then
    local n = #data  -- a msgpack array32 header (its length in 4 bytes, big-endian), then the events
    local header = string.char(0xdd, math.floor(n / 16777216) % 256, math.floor(n / 65536) % 256,
      math.floor(n / 256) % 256, n % 256)
    redis.call('SET', KEYS[5], ARGV[i] .. header .. table.concat(data))
  else
    redis.call('DEL', KEYS[5])
  end
elseif redis.call('EXISTS', KEYS[5]) == 1 then
  redis.call('DEL', KEYS[5])  -- an append after the copy was made, of another event
end
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[4], 'f', ARGV[2], 'r', ARGV[3], 'v', version, 'n', n)
  redis.call('EXPIRE', KEYS[4], tonumber(ARGV[4]))
end
return {'appended', version, before[1] or '', status or '', listed or ''}
"""
)
APPEND_SCRIPT = Script.of(APPEND)


#: Events after which a game's log is kept whole in its finished copy too: its end, and
#: the one event that may follow it.
ENDING: frozenset[type[Event]] = frozenset((GameFinished, RematchCreated))


@cache
def copy_args(codec: Codec) -> tuple[bytes | int, ...]:
    """The append script's arguments for writing the finished copy of a game of `codec`'s
    ruleset: the copy's header, then the stored forms the copy may hold (today's)."""
    forms = [part for form in codec.stored_forms for part in form]
    return (finished_copy_header(codec.ruleset), len(codec.stored_forms), *forms)


class VersionConflict(Exception):
    """The game is not at the expected version: another append came first."""

    def __init__(self, expected: int, current: int) -> None:
        super().__init__(f"expected version {expected}, but the game is at version {current}")
        self.expected = expected
        self.current_version = current


class Recorder(StoreCalls):
    """Reading a game's raw records (and its version), following them live, and the
    server's health."""

    follower: Follower | None = None

    @counted
    async def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[tuple[int, Event]]:
        """The events after version `after`, in order, at most `limit` of them."""
        key = self._key(game_id, "events")
        command: tuple[Argument, ...] = ("XRANGE", key, f"(0-{after}", "+")
        if limit is not None:
            command += ("COUNT", limit)
        return self._decode(await self._execute(*command, repeatable=True))

    @counted
    async def read_log(self, game_id: str) -> list[tuple[int, Event]]:
        """A game's whole log, for rebuilding it: a finished game's from its finished copy
        (one value, decoded in one call), any other's (or one whose copy does not decode)
        from its stream, as `read` gives it."""
        copy = await self._execute("GET", self._key(game_id, "finished"), repeatable=True)
        if copy is not None:
            events = events_of_copy(copy)
            if events is not None:
                return events
        return await self.read(game_id)

    @staticmethod
    def _decode(entries: list[list[Any]]) -> list[tuple[int, Event]]:
        """Raw entries to events, by their rulesets' decoders (events/mapper.py)."""
        return events_of(entries)

    def follow(self, game_id: str, after: int) -> AsyncGenerator[list[tuple[int, Event]], None]:
        """The game's events after version `after`, batch by batch as they are appended,
        for as long as the caller iterates; waiting costs no connection (events/follow.py)."""
        if self.follower is None:
            raise RuntimeError("this store was made without a connection for following games")
        return self.follower.follow(game_id, after)

    @counted
    async def version(self, game_id: str) -> int:
        return await self._execute("XLEN", self._key(game_id, "events"), repeatable=True)

    @counted
    async def ping(self) -> None:
        await self._execute("PING", repeatable=True)
