"""The event store: one Redis Stream per game, appended atomically, read in order.

Keys of one game share the hash tag `{game_id}` (its stream, summary, token hashes,
idempotency records, its seats' rate limits and, once it is finished, its finished copy:
the whole log in one value, written by the append that ends the game, so that loading a
finished game reads one value instead of an entry per event; the stream stays the source
of truth, read by everything else), so that on a Redis Cluster a game lives in one slot
and its append is one script there. Outside a game are the listing's indexes (every game,
and one per status, each cut in SHARDS sorted sets of their own tags, read together and
merged) and the per-client rate limits. The append script tells what the listing needs
(the status before and after); the store then moves the game's entry between the status
indexes in calls of their own, the new one first, and the listing, which reads each
listed game's summary anyway, skips and repairs an entry its summary disagrees with, so a
crash between the two never lists a game wrongly for long.

Stream entry ids are `0-<version>`: version n is the n-th event, so reading "after
version n" is a plain XRANGE and the stream's length is the game's version. Appends run
as one Lua script: check the idempotency key, take the seats' rate-limit tokens (the
client's too on one server; on a cluster the client's bucket, of another slot, is taken in
a call just before), check the expected version, add every event of the move, update the
summary, record the idempotency result, or do nothing at all.

Every call is bounded by a timeout; a server that is down or unreachable raises
StoreUnavailable within about `timeout` seconds, never hangs.
"""

from __future__ import annotations

import asyncio
import binascii
import functools
import hashlib
import heapq
import logging
import re
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from time import perf_counter
from typing import Any, NamedTuple, ParamSpec, TypeVar

import msgspec
from redis.exceptions import (
    ClusterDownError,
    OutOfMemoryError,
    ReadOnlyError,
    RedisError,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from core.rulesets import DEFAULT_RULESET
from events.codec import Codec, Event, GameFinished, MalformedEvent, RematchCreated
from events.follow import BLOCK_MS, Follower
from events.limits import CHARGE_LUA, LIMIT, Limit, RateLimited, limit_args
from events.metrics import APPEND_SECONDS, STORE_ERRORS, VERSION_CONFLICTS
from events.pipelined import Argument, PipelinedConnection
from events.replay import InvalidLog
from events.restore import decode_entries, decode_finished, finished_copy_header
from events.rulesets import decode_stored
from events.schema import CODEC as POISON_CODEC
from events.slots import slot_of

GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
CURSOR = re.compile(r"^\d{13}:[A-Za-z0-9_-]{1,64}$")
IDEMPOTENCY_TTL = 25 * 3600  # the contract promises at least 24 h
MAX_LISTING_BATCHES = 20  # index entries a listing call reads at most: 20 batches
INDEXING_BATCH = 500  # games indexed by status at a time, when an older store is first listed
#: Replies that mean the server cannot take a request now: redis-py's exceptions for those
#: it names (OOM, READONLY, MASTERDOWN and CLUSTERDOWN, TRYAGAIN), and the first word of
#: those it leaves a plain ResponseError. (LOADING, NOAUTH and a full server are
#: ConnectionErrors.)
UNAVAILABLE_ERRORS = (OutOfMemoryError, ReadOnlyError, ClusterDownError, TryAgainError)
UNAVAILABLE_REPLIES = frozenset({"MISCONF", "NOREPLICAS"})
NEWEST = 9_999_999_999_999  # index members sort by NEWEST - creation ms
#: The listing's indexes are each cut in this many sorted sets of their own hash tag, so
#: that on a Redis Cluster they spread over the nodes (one set would be one node's load)
#: and a listing reads all of them at once and merges them (issue 13).
SHARDS = 16
SUMMARY_FIELDS = ("status", "players", "round", "rounds", "version", "ruleset", "listed")

log = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")

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

INDEX_STATUSES = """
-- KEYS: the summary of a game listed before the status indexes existed
-- ARGV: the game's listing member
-- Returns its status when it had no member yet (given it now), else nothing.
local row = redis.call('HMGET', KEYS[1], 'status', 'listed')
if row[1] and not row[2] then
  redis.call('HSET', KEYS[1], 'listed', ARGV[1])
  return row[1]
end
return false
"""


REMEMBER = """
-- KEYS: idempotency record, stream; ARGV: fingerprint, result, ttl
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'f', ARGV[1], 'r', ARGV[2], 'v', redis.call('XLEN', KEYS[2]), 'n', 0)
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
end
return 1
"""


#: Events after which a game's log is kept whole in its finished copy too: its end, and
#: the one event that may follow it.
ENDING: frozenset[type[Event]] = frozenset((GameFinished, RematchCreated))


@cache
def copy_args(codec: Codec) -> tuple[bytes | int, ...]:
    """The append script's arguments for writing the finished copy of a game of `codec`'s
    ruleset: the copy's header, then the stored forms the copy may hold (today's)."""
    forms = [part for form in codec.stored_forms for part in form]
    return (finished_copy_header(codec.ruleset), len(codec.stored_forms), *forms)


class Script(NamedTuple):
    """A Lua script, run by its SHA1 (its source sent only to a server that lacks it)."""

    source: str
    sha: str

    @classmethod
    def of(cls, source: str) -> Script:
        return cls(source, hashlib.sha1(source.encode()).hexdigest())


APPEND_SCRIPT = Script.of(APPEND)
REMEMBER_SCRIPT = Script.of(REMEMBER)
LIMIT_SCRIPT = Script.of(LIMIT)
INDEX_STATUSES_SCRIPT = Script.of(INDEX_STATUSES)


def shard_of(game_id: str) -> int:
    """Which of the listing's shards holds a game (the same in every index)."""
    return binascii.crc_hqx(game_id.encode(), 0) % SHARDS


class StoreUnavailable(Exception):
    """The event store cannot be reached (down, unreachable, still loading, too slow)."""


class VersionConflict(Exception):
    """The game is not at the expected version: another append came first."""

    def __init__(self, expected: int, current: int) -> None:
        super().__init__(f"expected version {expected}, but the game is at version {current}")
        self.expected = expected
        self.current_version = current


class IdempotencyKeyReused(Exception):
    """An idempotency key already used for a different request on this game."""


class UnknownGame(KeyError):
    """No game has this id (or the id cannot be one)."""


class Idempotency(NamedTuple):
    """A client's idempotency key, the fingerprint of its request, what the first
    successful attempt answered (opaque to the store), and whose key it is: `scope` (a
    seat, say) keeps one caller's keys apart from every other caller's of the game."""

    key: str
    fingerprint: str
    result: bytes = b""
    scope: str = ""


@dataclass(frozen=True)
class Appended:
    version: int  # the game's version after the append
    count: int  # how many events it appended
    replayed: bool = False  # True: an idempotent retry, nothing was appended now
    result: bytes = b""  # the result recorded with the idempotency key

    @property
    def first_version(self) -> int:
        return self.version - self.count + 1


class GameSummary(msgspec.Struct, frozen=True):
    game_id: str
    status: str
    players: list[str | None]  # None: an open seat of a waiting game (the lobby)
    round: int | None  # None for a ruleset without rounds (the pot game)
    rounds: int | None
    version: int
    ruleset: str = DEFAULT_RULESET  # games written before the second ruleset say none


def listing_member(game_id: str, created_ms: int) -> str:
    """A game's entry in the listing's indexes: newest first, then by id."""
    return f"{NEWEST - created_ms:013d}:{check_game_id(game_id)}"


def idempotency_record(idempotency: Idempotency | None, *, scoped: bool = True) -> str:
    """The name of an idempotency key's record among its game's keys."""
    # The client's key is hashed: any string is safe in a key name and of fixed length.
    # Records written before keys had a scope have none in their name (`scoped=False`).
    digest = hashlib.sha256(idempotency.key.encode()).hexdigest() if idempotency else "none"
    scope = f"{idempotency.scope}:" if idempotency and idempotency.scope and scoped else ""
    return f"idempotency:{scope}{digest}"


def check_game_id(game_id: str) -> str:
    if not isinstance(game_id, str) or not GAME_ID.match(game_id):
        raise UnknownGame(game_id)
    return game_id


def unavailable(error: Exception) -> StoreUnavailable | None:
    """The StoreUnavailable that `error` means, or None when it means something else."""
    if isinstance(error, RedisConnectionError | RedisTimeoutError | OSError | TimeoutError):
        return StoreUnavailable(f"the event store cannot be reached: {error or type(error).__name__}")
    # A server that is out of memory, read-only, unable to write its file or without its
    # primary cannot take the request now: unavailable, not a bug of ours.
    if isinstance(error, UNAVAILABLE_ERRORS) or (
        isinstance(error, ResponseError) and str(error).split(" ", 1)[0] in UNAVAILABLE_REPLIES
    ):
        return StoreUnavailable(f"the event store cannot serve now: {error}")
    return None


def failed(error: Exception) -> Exception:
    """What a command that raised `error` raises: StoreUnavailable when the store could
    not be reached or serve, else the error itself."""
    return unavailable(error) or error


#: Set while a store call runs: the calls and commands it makes are part of it.
_CALLING: ContextVar[bool] = ContextVar("poison_store_call", default=False)


def counted(method: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """A store call whose StoreUnavailable is counted once in STORE_ERRORS, however many
    of its commands (a listing reads 17 indexes at once) or inner calls failed."""

    @functools.wraps(method)
    async def call(*args: P.args, **kwargs: P.kwargs) -> R:
        if _CALLING.get():
            return await method(*args, **kwargs)
        outermost = _CALLING.set(True)
        try:
            return await method(*args, **kwargs)
        except StoreUnavailable:
            STORE_ERRORS.inc()
            raise
        finally:
            _CALLING.reset(outermost)

    return call


class EventStore:
    """Game logs in Redis. Safe to share between the tasks of one event loop.

    Every command goes through one pipelined connection (`wire`, one per node on a
    cluster); the live streams' blocking read through another (`waiter`, see
    events/follow.py)."""

    def __init__(
        self,
        wire: PipelinedConnection,
        *,
        namespace: str = "poison",
        timeout: float = 2.0,
        waiter: PipelinedConnection | None = None,
    ) -> None:
        self.wire = wire
        self.namespace = namespace
        self.timeout = timeout
        self._statuses_indexed = False
        self._single = False  # known to be one server, not a cluster's node
        self.follower = Follower(self, waiter) if waiter is not None else None

    @classmethod
    def from_url(cls, url: str, *, namespace: str = "poison", timeout: float = 2.0) -> EventStore:
        return cls(
            PipelinedConnection(url, timeout=timeout),
            namespace=namespace,
            timeout=timeout,
            waiter=PipelinedConnection(url, timeout=timeout + BLOCK_MS / 1000),
        )

    async def close(self) -> None:
        if self.follower is not None:
            await self.follower.close()
        await self.wire.close()

    async def _execute(self, *command: Argument, repeatable: bool = False) -> Any:
        """One command on the pipelined connection (its own deadline bounds the wait).
        `repeatable`: sending it twice does no harm (a read), so a dropped connection is
        retried once even after it was sent."""
        try:
            return await self.wire.execute(*command, repeatable=repeatable)
        except (RedisError, OSError, TimeoutError) as error:
            raise failed(error) from None

    async def _script(self, script: Script, keys: list[str], args: list[Any], *, repeatable: bool = False) -> Any:
        try:
            return await self.wire.script(script.sha, script.source, keys, args, repeatable=repeatable)
        except (RedisError, OSError, TimeoutError) as error:
            raise failed(error) from None

    # -- keys ---------------------------------------------------------------------------

    def _key(self, game_id: str, what: str) -> str:
        return f"{self._game(game_id)}{what}"

    def _game(self, game_id: str) -> str:
        """What every key of a game starts with (its id checked once: the append names six)."""
        return f"{self.namespace}:{{{check_game_id(game_id)}}}:"

    def _idempotency_key(self, game_id: str, idempotency: Idempotency | None, *, scoped: bool = True) -> str:
        return self._game(game_id) + idempotency_record(idempotency, scoped=scoped)

    def limit_key(self, kind: str, who: str) -> str:
        """The rate-limit bucket of a client (`who`: its address) for `kind` of request."""
        return f"{self.namespace}:limits:{kind}:{who}"

    def seat_limit_key(self, game_id: str, seat: int, kind: str = "moves") -> str:
        """The rate-limit bucket of a seat of a game (kept with the game's keys)."""
        return self._key(game_id, f"limits:{kind}:{seat}")

    def _index(self, shard: int | None, status: str | None = None) -> str:
        """A shard of the listing's index of every game, or of a status's games; shard
        None: the single index of stores written before the shards (still read)."""
        name = f"{self.namespace}:games" if status is None else f"{self.namespace}:games:status:{status}"
        return name if shard is None else f"{name}:{{{shard}}}"

    def _indexes(self, status: str | None) -> list[str]:
        """Every index a listing reads: the shards, then the index from before them."""
        return [self._index(shard, status) for shard in range(SHARDS)] + [self._index(None, status)]

    async def _clustered(self, key: str) -> bool:
        """Whether the store is a Redis Cluster (asking the server once, when first used)."""
        if self.wire.cluster is not None:
            return True
        if self._single:
            return False
        try:
            self._single = await self.wire.node_for(key) is self.wire
        except (RedisError, OSError, TimeoutError) as error:
            raise failed(error) from None
        return not self._single

    # -- writing ------------------------------------------------------------------------

    @counted
    async def append(
        self,
        game_id: str,
        events: Sequence[Event],
        expected_version: int,
        *,
        idempotency: Idempotency | None = None,
        summary: Mapping[str, str | int] | None = None,
        tokens: Mapping[int, str] | None = None,
        codec: Codec = POISON_CODEC,
        limits: Sequence[Limit] = (),
        limited: str = "requests",
    ) -> Appended:
        """Append `events` (of the ruleset `codec` encodes) at exactly `expected_version`,
        all or none. A summary with a `listed` member (see `listing_member`) lists the
        game, under its status.

        Raises VersionConflict (with the current version) when the game is elsewhere,
        IdempotencyKeyReused when the key was used for another request; an idempotent
        retry returns the first attempt's Appended with `replayed` set and appends nothing.
        `limits`: the rate-limit buckets this request takes from, in the same step (after
        the idempotency check, before the version check: a conflict has taken its token);
        RateLimited (naming what is `limited`) when one is empty, and nothing is done. On a
        cluster a bucket outside the game's slot (a client's) is taken by a call just
        before the append, so a conflict or an idempotent retry has taken that token too.
        """
        if not events:
            raise ValueError("an append holds at least one event")
        game = self._game(game_id)
        stream = game + "events"
        # A seat's bucket is one of the game's keys; a client's is not: on a cluster it is
        # taken first, in a call of its own (so a request refused after it has taken it).
        buckets = list(limits)
        if any(not limit.key.startswith(game) for limit in buckets) and await self._clustered(stream):
            await self.limit([limit for limit in buckets if not limit.key.startswith(game)], limited)
            buckets = [limit for limit in buckets if limit.key.startswith(game)]
        args: list[Any] = [
            expected_version,
            idempotency.fingerprint if idempotency else "",
            idempotency.result if idempotency else b"",
            IDEMPOTENCY_TTL,
            len(buckets),
            *limit_args(buckets),
            len(events),
        ]
        for event in events:
            args.extend(codec.encode_stored(event))
        for pairs in (summary or {}, tokens or {}):
            args.append(len(pairs))
            for field, value in pairs.items():
                args.extend((field, value))
        args.extend(copy_args(codec) if ENDING.intersection(map(type, events)) else ("", 0))
        keys = [
            stream,
            game + "summary",
            game + "tokens",
            game + idempotency_record(idempotency),
            game + "finished",
            *(limit.key for limit in buckets),
        ]
        # A new game is indexed in the same write as its first append (an index entry
        # whose summary is missing or names another entry is skipped when listing), so
        # that no crash can leave a written game out of the listing.
        status, listed = (summary or {}).get("status"), (summary or {}).get("listed")
        created = str(status) if expected_version == 0 and status and listed else None
        started = perf_counter()
        unindexed = False
        try:
            if created is None:
                reply = await self._script(APPEND_SCRIPT, keys, args)
            else:
                reply, indexed = await asyncio.gather(
                    self._script(APPEND_SCRIPT, keys, args),
                    self._list(game_id, str(listed), None, created),
                    return_exceptions=True,
                )
                if isinstance(reply, BaseException):
                    raise reply
                unindexed = isinstance(indexed, BaseException)
        finally:
            APPEND_SECONDS.observe(perf_counter() - started)  # failed ones too: their wait is the store's
        outcome = reply[0].decode()
        if outcome == "limited":
            raise RateLimited(int(reply[1]), limited)
        if outcome == "conflict":
            VERSION_CONFLICTS.inc()
            raise VersionConflict(expected_version, int(reply[1]))
        if outcome == "idempotent":
            assert idempotency is not None
            if reply[1].decode() != idempotency.fingerprint:
                raise IdempotencyKeyReused(f"idempotency key {idempotency.key!r} was used for a different request")
            return Appended(int(reply[3]), int(reply[4]), replayed=True, result=reply[2])
        before, now, member = reply[2:5]
        if now and member and now != before and (created is None or unindexed):  # once more, for a new game
            await self._relist(game_id, member.decode(), before.decode() or None, now.decode())
        return Appended(int(reply[1]), len(events))

    async def _list(self, game_id: str, member: str, left: str | None, status: str) -> None:
        """Put a game's entry in its `status`'s index (and the index of every game, when it
        is new: `left` None), then take it out of the index of the status it `left`. In
        that order, so that a crash between the two leaves the entry in both (the listing
        reads each summary, skips the stale one and repairs it), never in neither."""
        shard = shard_of(game_id)
        adding = [self._execute("ZADD", self._index(shard, status), 0, member, repeatable=True)]
        if left is None:
            adding.append(self._execute("ZADD", self._index(shard), "NX", 0, member, repeatable=True))
        await asyncio.gather(*adding)
        if left is not None:
            await asyncio.gather(
                self._execute("ZREM", self._index(shard, left), member, repeatable=True),
                self._execute("ZREM", self._index(None, left), member, repeatable=True),  # a game listed before shards
            )

    async def _relist(self, game_id: str, member: str, left: str | None, status: str) -> None:
        """`_list` after an append that changed the game's status. The append is done and
        must be answered as done: an index that cannot be written now is repaired by the
        next listing of the status it left (or, for a new game, was written with it)."""
        try:
            await self._list(game_id, member, left, status)
        except StoreUnavailable as error:
            log.warning("game %s is %s, but its listing still says %s: %s", game_id, status, left, error)

    @counted
    async def recall(self, game_id: str, idempotency: Idempotency) -> Appended | None:
        """What the first request with this idempotency key appended, if there was one.
        Checked before a retried move is validated: the move it repeats is no longer legal.

        A scoped key whose caller has no record yet may have one from before keys had a
        scope (kept 25 h): that record answers only the very same request (its fingerprint
        names the seat and the move), so it can never decide another caller's."""
        key = self._idempotency_key(game_id, idempotency)
        fingerprint, result, version, count = await self._execute("HMGET", key, "f", "r", "v", "n", repeatable=True)
        if fingerprint is None and idempotency.scope:
            legacy = self._idempotency_key(game_id, idempotency, scoped=False)
            found = await self._execute("HMGET", legacy, "f", "r", "v", "n", repeatable=True)
            if found[0] is not None and found[0].decode() == idempotency.fingerprint:
                fingerprint, result, version, count = found
        if fingerprint is None:
            return None
        if fingerprint.decode() != idempotency.fingerprint:
            raise IdempotencyKeyReused(f"idempotency key {idempotency.key!r} was used for a different request")
        return Appended(int(version), int(count), replayed=True, result=result)

    @counted
    async def remember(self, game_id: str, idempotency: Idempotency) -> Appended:
        """Record, under an idempotency key not used yet, the answer to a request that
        appended nothing (a refused move), so that its retry gets that same answer.
        Returns what the key holds afterwards: this answer, or an earlier one."""
        key = self._idempotency_key(game_id, idempotency)
        await self._script(
            REMEMBER_SCRIPT,
            [key, self._key(game_id, "events")],
            [idempotency.fingerprint, idempotency.result, IDEMPOTENCY_TTL],
            repeatable=True,  # it writes only where nothing was written yet
        )
        recalled = await self.recall(game_id, idempotency)
        assert recalled is not None
        return recalled

    @counted
    async def limit(self, limits: Sequence[Limit], what: str = "requests") -> None:
        """Take a token from each of these rate-limit buckets, or raise RateLimited (naming
        `what`) and take none: for a request checked before its work, or that appends
        nothing. On a cluster, buckets of different slots (a seat's and a client's) are
        taken one slot after another: one that refuses leaves those before it taken."""
        if not limits:
            return
        groups: dict[int | None, list[Limit]] = {}
        clustered = len(limits) > 1 and await self._clustered(limits[0].key)
        for limit in limits:
            groups.setdefault(slot_of(limit.key) if clustered else None, []).append(limit)
        for group in groups.values():
            keys = [limit.key for limit in group]
            wait = await self._script(LIMIT_SCRIPT, keys, limit_args(group))
            if wait:
                raise RateLimited(int(wait), what)

    @counted
    async def index_game(self, game_id: str, created_ms: int) -> None:
        """List the game (newest first) on its own, as games were before the append listed
        them (under their status) itself: a game indexed here but never appended is skipped
        when listing."""
        member = listing_member(game_id, created_ms)
        await self._execute("ZADD", self._index(shard_of(game_id)), "NX", 0, member, repeatable=True)

    @counted
    async def index_statuses(self) -> None:
        """Put every game listed before the status indexes existed into its status's index
        (once per store: a marker key says it is done; doing it twice is harmless). A
        script gives each game's summary its `listed` member (one game's keys: one slot),
        then its entry enters its status's index: an append racing it either came first or
        finds the member and moves the game itself, and an entry left under the status the
        game had a moment before is repaired by the listing (see `_repair`)."""
        if self._statuses_indexed:
            return
        marker = f"{self.namespace}:games:status-indexed"
        if not await self._execute("EXISTS", marker, repeatable=True):
            start = "-"
            more = True
            while more:
                entries, more = await self._entries(self._indexes(None), start, INDEXING_BATCH)
                if not entries:
                    break
                names = [member for member, _ in entries]
                # One script per game (its summary is its slot's), all in one write.
                found = await asyncio.gather(
                    *(
                        self._script(
                            INDEX_STATUSES_SCRIPT,
                            [self._key(name.split(":", 1)[1], "summary")],
                            [name],
                            repeatable=True,
                        )
                        for name in names
                    )
                )
                await asyncio.gather(
                    *(
                        self._execute("ZADD", self._index(shard_of(name.split(":", 1)[1]), status.decode()), 0, name)
                        for name, status in zip(names, found, strict=True)
                        if status is not None
                    )
                )
                start = f"({names[-1]}"
            await self._execute("SET", marker, 1, repeatable=True)
        self._statuses_indexed = True

    # -- reading ------------------------------------------------------------------------

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
            events = decode_finished(copy)
            if events is not None:
                return events
        return await self.read(game_id)

    @staticmethod
    def _decode(entries: list[list[Any]]) -> list[tuple[int, Event]]:
        """Stream entries as XRANGE and XREAD give them: [id, [field, value, ...]]."""
        decoded = decode_entries(entries)  # entries of today's form, in one pass
        if decoded is not None:
            return decoded
        # Anything else one by one: an older schema is upcast, and a broken entry named.
        events = []
        for entry_id, pairs in entries:
            version = int(entry_id.split(b"-")[1])
            try:
                fields = dict(zip(pairs[::2], pairs[1::2], strict=True)) if isinstance(pairs, list) else pairs
                event = decode_stored(fields[b"t"].decode(), int(fields[b"s"]), fields[b"d"])
            except (MalformedEvent, KeyError, ValueError) as error:
                raise InvalidLog(version, f"unreadable stored event: {error}") from None
            events.append((version, event))
        return events

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
    async def token_hashes(self, game_id: str) -> dict[int, str]:
        """Seat -> hash of its token (the store never sees a raw token)."""
        flat = await self._execute("HGETALL", self._key(game_id, "tokens"), repeatable=True)
        return {int(seat): digest.decode() for seat, digest in zip(flat[::2], flat[1::2], strict=True)}

    @counted
    async def list_games(
        self, *, status: str | None = None, limit: int = 50, cursor: str | None = None
    ) -> tuple[list[GameSummary], str | None]:
        """Games newest first, `limit` at a time; the cursor of the next page, or None.

        With a status, the games come from that status's index, so every page but the last
        is full. Without, from the index of every game: a game indexed but never written
        (only possible for games indexed before the append listed them) is skipped, and a
        listing that met many of them stops after a bounded scan with a cursor. A cursor is
        a game's entry in both indexes alike, so one cursor works with or without a status."""
        if cursor is not None and not CURSOR.match(cursor):
            raise ValueError(f"{cursor!r} is not a cursor of this listing")
        found: list[tuple[str, GameSummary]] = []
        start = f"({cursor}" if cursor else "-"
        if status is not None:
            await self.index_statuses()
        batch = limit + 1 if status is not None else max(limit + 1, 100)
        indexes = self._indexes(status)
        repairs: list[tuple[str, str, str | None]] = []  # (entry, index it is wrongly in, its status)
        scanned = None
        for _ in range(MAX_LISTING_BATCHES):  # a sparse listing stops here and hands back a cursor
            entries, more = await self._entries(indexes, start, batch)
            if not entries:
                scanned = None
                break
            rows = await asyncio.gather(
                *(
                    self._execute(
                        "HMGET", self._key(member.split(":", 1)[1], "summary"), *SUMMARY_FIELDS, repeatable=True
                    )
                    for member, _ in entries
                )
            )
            for (member, index), row in zip(entries, rows, strict=True):
                scanned = member
                if row[0] is None:
                    continue  # never written (or its first append is on its way)
                if row[6] is not None and row[6].decode() != member:
                    repairs.append((member, index, None))  # another game of this id: never listed
                    continue
                if status is not None and row[0].decode() != status:
                    repairs.append((member, index, row[0].decode()))  # its status's index is another
                    continue
                game_id = member.split(":", 1)[1]
                summary = GameSummary(
                    game_id,
                    row[0].decode(),
                    msgspec.json.decode(row[1]),
                    None if row[2] is None else int(row[2]),
                    None if row[3] is None else int(row[3]),
                    int(row[4]),
                    DEFAULT_RULESET if row[5] is None else row[5].decode(),
                )
                found.append((member, summary))
                if len(found) > limit:
                    break
            if len(found) > limit or not more:  # a page and one more, or the end
                break
            start = f"({entries[-1][0]}"
        else:
            await self._repair(repairs)
            summaries = [summary for _, summary in found[:limit]]
            return summaries, (found[limit - 1][0] if len(found) >= limit else scanned)
        await self._repair(repairs)
        page = found[:limit]
        following = page[-1][0] if len(found) > limit else None
        return [summary for _, summary in page], following

    async def _entries(self, indexes: list[str], start: str, batch: int) -> tuple[list[tuple[str, str]], bool]:
        """The first `batch` entries from `start` on of these indexes merged (each with the
        index it came from), and whether any index may hold more. Each index is asked for
        `batch` of them, all at once: the first `batch` of the merge are the first of all."""
        answers = await asyncio.gather(
            *(
                self._execute("ZRANGE", index, start, "+", "BYLEX", "LIMIT", 0, batch, repeatable=True)
                for index in indexes
            )
        )
        merged = heapq.merge(
            *([(member.decode(), index) for member in members] for index, members in zip(indexes, answers, strict=True))
        )
        entries: list[tuple[str, str]] = []
        for member, index in merged:
            if entries and entries[-1][0] == member:
                continue  # in a shard and in the index from before them
            if len(entries) == batch:
                return entries, True
            entries.append((member, index))
        return entries, any(len(members) == batch for members in answers)

    async def _repair(self, repairs: list[tuple[str, str, str | None]]) -> None:
        """Read repair: an entry found in an index its summary disagrees with leaves it,
        and enters its status's index first (an append whose index write was lost, say in
        a crash, between the two). A failure is left for the next listing to repair."""
        if not repairs:
            return
        adding = [
            self._list(member.split(":", 1)[1], member, None, status)
            for member, _, status in repairs
            if status is not None
        ]
        done = await asyncio.gather(*adding, return_exceptions=True)
        if not any(isinstance(failed, BaseException) for failed in done):  # only once they are where they belong
            leaving = [self._execute("ZREM", index, member, repeatable=True) for member, index, _ in repairs]
            done = await asyncio.gather(*leaving, return_exceptions=True)
        for failed in done:
            if isinstance(failed, BaseException):
                log.warning("a listing could not repair its index: %s", failed)

    @counted
    async def ping(self) -> None:
        await self._execute("PING", repeatable=True)


__all__ = [
    "Appended",
    "EventStore",
    "GameSummary",
    "Idempotency",
    "IdempotencyKeyReused",
    "Limit",
    "RateLimited",
    "RedisError",
    "StoreUnavailable",
    "UnknownGame",
    "VersionConflict",
    "listing_member",
]
