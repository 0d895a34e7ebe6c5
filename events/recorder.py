"""The Redis recorder: each game's raw stored events in one Redis Stream, appended
atomically by one Lua script and read back in order (the contract: events/records.py).

Stream entry ids are `0-<version>`: version n is the n-th event, so reading "after
version n" is a plain XRANGE and the stream's length is the game's version. Appends run
as one Lua script (APPEND): check the idempotency key (events/idempotency.py), take the
seats' rate-limit tokens (events/limits.py; the client's too on one server), check the
expected version, add every event of the move, update the summary and the seat tokens'
hashes, write the finished copy when the game ends, record the idempotency result, or do
nothing at all. Keys of one game share the hash tag `{game_id}`, so that on a Redis
Cluster a game lives in one slot and its append is one script there.

A finished game's log is kept whole in one value too, its finished copy, written by the
append that ends it, so that loading it reads one value instead of an entry per event; the
stream stays the source of truth, read by everything else. Entries and copies leave as the
server gives them (events/mapper.py decodes them, above); live streams wait in
events/follow.py.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from events.buckets import take
from events.calls import Script, StoreCalls, counted
from events.follow import BLOCK_MS, Follower
from events.idempotency import IDEMPOTENCY_TTL, idempotency_record
from events.limits import CHARGE_LUA, RateLimited, limit_args
from events.metrics import VERSION_CONFLICTS
from events.pipelined import Argument, PipelinedConnection
from events.records import (
    Append,
    Appended,
    Entries,
    GameArchived,
    MapEntries,
    Moved,
    VersionConflict,
    reused,
)

APPEND = (
    CHARGE_LUA
    + """
-- KEYS: stream, summary, tokens, idempotency record, finished copy (all of the game's
--       slot), then n rate-limit buckets (its seats'; on one server, its client's too)
-- ARGV: expected version, fingerprint ('' for none), result, ttl, n buckets,
--       (rate, burst) per bucket, n events, (type, schema, data) per event, n summary
--       pairs, pairs, n token pairs, pairs, the finished copy's header ('' for no copy),
--       n stored forms, (type, schema) per form
-- Returns {'appended', version, status before, status now, listing member} ('' for none),
-- or why not ({'idempotent', ...}, {'limited', wait}, {'archived'}, {'conflict', version}):
-- the listing's indexes, outside the game's slot, are the caller's to update.
if ARGV[2] ~= '' then
  local seen = redis.call('HMGET', KEYS[4], 'f', 'r', 'v', 'n')
  if seen[1] then return {'idempotent', seen[1], seen[2], seen[3], seen[4]} end
end
local buckets = tonumber(ARGV[5])
local wait = charge(6, 6, buckets)
if wait > 0 then return {'limited', wait} end
-- A game sealed for the archive (events/archiving.py) takes no more events.
if redis.call('HEXISTS', KEYS[2], 'sealed') == 1 or redis.call('HEXISTS', KEYS[2], 'archived') == 1 then
  return {'archived'}
end
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


class RedisRecorder(StoreCalls):
    """Raw game logs in Redis, on one server or a cluster (events/records.py's Recorder).
    Safe to share between the tasks of one event loop.

    Every command goes through one pipelined connection (`wire`, one per node on a
    cluster); the live streams' blocking read through another (`waiter`, see
    events/follow.py)."""

    def __init__(
        self,
        wire: PipelinedConnection,
        *,
        namespace: str = "poison",
        waiter: PipelinedConnection | None = None,
    ) -> None:
        super().__init__(wire, namespace=namespace)
        self.follower = Follower(self, waiter) if waiter is not None else None

    @classmethod
    def from_url(cls, url: str, *, namespace: str = "poison", timeout: float = 2.0) -> RedisRecorder:
        return cls(
            PipelinedConnection(url, timeout=timeout),
            namespace=namespace,
            waiter=PipelinedConnection(url, timeout=timeout + BLOCK_MS / 1000),
        )

    async def close(self) -> None:
        if self.follower is not None:
            await self.follower.close()
        await self.wire.close()

    @counted
    async def append(self, game_id: str, append: Append) -> tuple[Appended, Moved | None]:
        """The contract's append, as one EVALSHA in the game's slot. The rate-limit
        buckets are taken after the idempotency check, before the version check (a
        conflict has taken its token). On a cluster a bucket outside the game's slot (a
        client's) is taken by a call just before the append, so a conflict or an
        idempotent retry has taken that token too."""
        records, idempotency = append.records, append.idempotency
        if not records:
            raise ValueError("an append holds at least one event")
        game = self.prefix(game_id)
        stream = game + "events"
        # A seat's bucket is one of the game's keys; a client's is not: on a cluster it is
        # taken first, in a call of its own (so a request refused after it has taken it).
        buckets = list(append.limits)
        if (
            buckets
            and not self._single  # known to be one server: every bucket goes in the script
            and any(not limit.key.startswith(game) for limit in buckets)
            and await self.clustered(stream)
        ):
            await take(self, [limit for limit in buckets if not limit.key.startswith(game)], append.limited)
            buckets = [limit for limit in buckets if limit.key.startswith(game)]
        args: list[Any] = [
            append.expected_version,
            idempotency.fingerprint if idempotency else "",
            idempotency.result if idempotency else b"",
            IDEMPOTENCY_TTL,
            len(buckets),
            *limit_args(buckets),
            len(records),
        ]
        for record in records:
            args.extend(record)
        for pairs in (append.summary or {}, append.tokens or {}):
            args.append(len(pairs))
            for field, value in pairs.items():
                args.extend((field, value))
        copy = append.copy
        if copy is None:
            args.extend(("", 0))
        else:
            args.extend((copy.header, len(copy.forms), *(part for form in copy.forms for part in form)))
        keys = [
            stream,
            game + "summary",
            game + "tokens",
            game + idempotency_record(idempotency),
            game + "finished",
            *(limit.key for limit in buckets),
        ]
        reply = await self.script(APPEND_SCRIPT, keys, args)
        outcome = reply[0]
        if outcome == b"limited":
            raise RateLimited(int(reply[1]), append.limited)
        if outcome == b"archived":
            raise GameArchived(game_id)
        if outcome == b"conflict":
            VERSION_CONFLICTS.inc()
            raise VersionConflict(append.expected_version, int(reply[1]))
        if outcome == b"idempotent":
            assert idempotency is not None
            if reply[1].decode() != idempotency.fingerprint:
                raise reused(idempotency)
            return Appended(int(reply[3]), int(reply[4]), replayed=True, result=reply[2]), None
        before, now, member = reply[2:5]
        if not (now and member and now != before):
            return Appended(int(reply[1]), len(records)), None
        return Appended(int(reply[1]), len(records)), Moved(before.decode() or None, now.decode(), member.decode())

    @counted
    async def read(self, game_id: str, after: int = 0, limit: int | None = None) -> Entries:
        """The entries after version `after`, in order, at most `limit` of them."""
        command: tuple[Argument, ...] = ("XRANGE", self.key(game_id, "events"), f"(0-{after}", "+")
        if limit is not None:
            command += ("COUNT", limit)
        entries: Entries = await self.execute(*command, repeatable=True)
        return entries

    @counted
    async def read_log(self, game_id: str) -> bytes | Entries:
        """A whole log: a finished game's copy (one value), any other's stream."""
        copy = await self.execute("GET", self.key(game_id, "finished"), repeatable=True)
        if copy is not None:
            assert isinstance(copy, bytes)
            return copy
        return await self.read(game_id)

    @counted
    async def row(self, game_id: str, which: str) -> dict[bytes, bytes]:
        flat = await self.execute("HGETALL", self.key(game_id, which), repeatable=True)
        return dict(zip(flat[::2], flat[1::2], strict=True))

    def follow(self, game_id: str, after: int, mapping: MapEntries | None = None) -> AsyncGenerator[list[Any], None]:
        """The entries after version `after`, batch by batch as they are appended, for as
        long as the caller iterates; waiting costs no connection, and a batch read once for
        every follower of a game is mapped once for all of them (events/follow.py)."""
        if self.follower is None:
            raise RuntimeError("this store was made without a connection for following games")
        return self.follower.follow(game_id, after, mapping)

    @counted
    async def version(self, game_id: str) -> int:
        version: int = await self.execute("XLEN", self.key(game_id, "events"), repeatable=True)
        return version

    @counted
    async def ping(self) -> None:
        await self.execute("PING", repeatable=True)


__all__ = ["APPEND", "APPEND_SCRIPT", "RedisRecorder"]
