"""The event store: one Redis Stream per game, appended atomically, read in order.

Keys of one game share the hash tag `{game_id}` (its stream, summary, token hashes,
idempotency records, its seats' rate limits and, once it is finished, its finished copy:
the whole log in one value, written by the append that ends the game, so that loading a
finished game reads one value instead of an entry per event; the stream stays the source
of truth, read by everything else). Outside a game are the listing's indexes
(every game, and one per status) and the per-client rate limits; the append script
updates the indexes and takes from the rate limits in the same atomic step as the events,
so a listed game's status is always the one its index says (this ties the store to one
server, or one Cluster slot for all keys: see the README).

Stream entry ids are `0-<version>`: version n is the n-th event, so reading "after
version n" is a plain XRANGE and the stream's length is the game's version. Appends run
as one Lua script: check the idempotency key, check the expected version, add every event
of the move, update the summary and the listing, record the idempotency result, or do
nothing at all.

Every call is bounded by a timeout; a server that is down or unreachable raises
StoreUnavailable within about `timeout` seconds, never hangs.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import cache
from time import perf_counter
from typing import Any, NamedTuple, cast

import msgspec
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.commands.core import AsyncScript
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

APPEND = (
    CHARGE_LUA
    + """
-- KEYS: stream, summary, tokens, idempotency record, listing index, finished copy, then n
--       rate-limit buckets
-- ARGV: expected version, fingerprint ('' for none), result, ttl, prefix of the status
--       indexes, n buckets, (rate, burst) per bucket, n events, (type, schema, data) per
--       event, n summary pairs, pairs, n token pairs, pairs, the finished copy's header
--       ('' for no copy), n stored forms, (type, schema) per form
if ARGV[2] ~= '' then
  local seen = redis.call('HMGET', KEYS[4], 'f', 'r', 'v', 'n')
  if seen[1] then return {'idempotent', seen[1], seen[2], seen[3], seen[4]} end
end
local buckets = tonumber(ARGV[6])
local wait = charge(7, 7, buckets)
if wait > 0 then return {'limited', wait} end
local version = redis.call('XLEN', KEYS[1])
if version ~= tonumber(ARGV[1]) then return {'conflict', version} end
local i = 7 + 2 * buckets
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
    redis.call('SET', KEYS[6], ARGV[i] .. header .. table.concat(data))
  else
    redis.call('DEL', KEYS[6])
  end
elseif redis.call('EXISTS', KEYS[6]) == 1 then
  redis.call('DEL', KEYS[6])  -- an append after the copy was made, of another event
end
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[4], 'f', ARGV[2], 'r', ARGV[3], 'v', version, 'n', n)
  redis.call('EXPIRE', KEYS[4], tonumber(ARGV[4]))
end
-- The listing: a game enters the index with its first summary, and its status's index
-- whenever its status changes (leaving the one before).
if status and listed and status ~= before[1] then
  if before[1] then
    redis.call('ZREM', ARGV[5] .. before[1], listed)
  else
    redis.call('ZADD', KEYS[5], 'NX', 0, listed)
  end
  redis.call('ZADD', ARGV[5] .. status, 0, listed)
end
return {'appended', version}
"""
)

INDEX_STATUSES = """
-- KEYS: summaries of games listed before the status indexes existed
-- ARGV: prefix of the status indexes, then the listing member of each game
for j = 1, #KEYS do
  local row = redis.call('HMGET', KEYS[j], 'status', 'listed')
  if row[1] and not row[2] then
    redis.call('HSET', KEYS[j], 'listed', ARGV[j + 1])
    redis.call('ZADD', ARGV[1] .. row[1], 0, ARGV[j + 1])
  end
end
return #KEYS
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


@asynccontextmanager
async def reachable(timeout: float) -> AsyncIterator[None]:
    """Turn every way of not reaching the server into StoreUnavailable, within `timeout`."""
    try:
        async with asyncio.timeout(timeout):
            yield
    except (RedisError, OSError, TimeoutError) as error:
        failed = unavailable(error)
        if failed is not None:
            STORE_ERRORS.inc()
        raise (failed or error) from None


class EventStore:
    """Game logs in Redis. Safe to share between the tasks of one event loop.

    The commands of playing and reading games go through one pipelined connection
    (`wire`); the live streams' one blocking read through another (`waiter`, see
    events/follow.py); the listing through redis-py's pool (`client`)."""

    def __init__(
        self,
        client: aioredis.Redis,
        wire: PipelinedConnection,
        *,
        namespace: str = "poison",
        timeout: float = 2.0,
        waiter: PipelinedConnection | None = None,
    ) -> None:
        self.client = client
        self.wire = wire
        self.namespace = namespace
        self.timeout = timeout
        self._append = client.register_script(APPEND)
        self._remember = client.register_script(REMEMBER)
        self._limit = client.register_script(LIMIT)
        self._index_statuses = client.register_script(INDEX_STATUSES)
        self._statuses_indexed = False
        self.follower = Follower(self, waiter) if waiter is not None else None

    @classmethod
    def from_url(cls, url: str, *, namespace: str = "poison", timeout: float = 2.0) -> EventStore:
        client = aioredis.Redis.from_url(
            url,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            # One quick retry reconnects a connection the server dropped (a restart);
            # more would only delay telling the caller that the store is down.
            retry=Retry(NoBackoff(), 1),
            health_check_interval=0,
        )
        return cls(
            client,
            PipelinedConnection(url, timeout=timeout),
            namespace=namespace,
            timeout=timeout,
            waiter=PipelinedConnection(url, timeout=timeout + BLOCK_MS / 1000),
        )

    async def close(self) -> None:
        if self.follower is not None:
            await self.follower.close()
        await self.wire.close()
        await self.client.aclose()

    async def _execute(self, *command: Argument, repeatable: bool = False) -> Any:
        """One command on the pipelined connection (its own deadline bounds the wait).
        `repeatable`: sending it twice does no harm (a read), so a dropped connection is
        retried once even after it was sent."""
        try:
            return await self.wire.execute(*command, repeatable=repeatable)
        except (RedisError, OSError, TimeoutError) as error:
            raise (unavailable(error) or error) from None

    async def _script(self, script: AsyncScript, keys: list[str], args: list[Any], *, repeatable: bool = False) -> Any:
        try:
            return await self.wire.script(script.sha, script.script, keys, args, repeatable=repeatable)
        except (RedisError, OSError, TimeoutError) as error:
            raise (unavailable(error) or error) from None

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

    @property
    def _index(self) -> str:
        return f"{self.namespace}:games"

    @property
    def _status_prefix(self) -> str:
        return f"{self.namespace}:games:status:"

    # -- writing ------------------------------------------------------------------------

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
        RateLimited (naming what is `limited`) when one is empty, and nothing is done.
        """
        if not events:
            raise ValueError("an append holds at least one event")
        args: list[Any] = [
            expected_version,
            idempotency.fingerprint if idempotency else "",
            idempotency.result if idempotency else b"",
            IDEMPOTENCY_TTL,
            self._status_prefix,
            len(limits),
            *limit_args(list(limits)),
            len(events),
        ]
        for event in events:
            args.extend(codec.encode_stored(event))
        for pairs in (summary or {}, tokens or {}):
            args.append(len(pairs))
            for field, value in pairs.items():
                args.extend((field, value))
        args.extend(copy_args(codec) if ENDING.intersection(map(type, events)) else ("", 0))
        game = self._game(game_id)
        keys = [
            game + "events",
            game + "summary",
            game + "tokens",
            game + idempotency_record(idempotency),
            self._index,
            game + "finished",
            *(limit.key for limit in limits),
        ]
        started = perf_counter()
        try:
            reply = await self._script(self._append, keys, args)
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
        return Appended(int(reply[1]), len(events))

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

    async def remember(self, game_id: str, idempotency: Idempotency) -> Appended:
        """Record, under an idempotency key not used yet, the answer to a request that
        appended nothing (a refused move), so that its retry gets that same answer.
        Returns what the key holds afterwards: this answer, or an earlier one."""
        key = self._idempotency_key(game_id, idempotency)
        await self._script(
            self._remember,
            [key, self._key(game_id, "events")],
            [idempotency.fingerprint, idempotency.result, IDEMPOTENCY_TTL],
            repeatable=True,  # it writes only where nothing was written yet
        )
        recalled = await self.recall(game_id, idempotency)
        assert recalled is not None
        return recalled

    async def limit(self, limits: Sequence[Limit], what: str = "requests") -> None:
        """Take a token from each of these rate-limit buckets, or raise RateLimited (naming
        `what`) and take none: for a request checked before its work, or that appends
        nothing."""
        if not limits:
            return
        keys = [limit.key for limit in limits]
        wait = await self._script(self._limit, keys, limit_args(list(limits)))
        if wait:
            raise RateLimited(int(wait), what)

    async def index_game(self, game_id: str, created_ms: int) -> None:
        """List the game (newest first) on its own, as games were before the append listed
        them (under their status) itself: a game indexed here but never appended is skipped
        when listing."""
        await self._execute("ZADD", self._index, "NX", 0, listing_member(game_id, created_ms), repeatable=True)

    async def index_statuses(self) -> None:
        """Put every game listed before the status indexes existed into its status's index
        (once per store: a marker key says it is done; doing it twice is harmless). Each
        game is indexed by a script that also gives its summary its `listed` member, so an
        append racing it either came first (and the game is indexed under its new status)
        or finds the member and moves the game itself."""
        if self._statuses_indexed:
            return
        marker = f"{self.namespace}:games:status-indexed"
        if not await self._execute("EXISTS", marker, repeatable=True):
            start = "-"
            while members := await self._execute(
                "ZRANGE", self._index, start, "+", "BYLEX", "LIMIT", 0, INDEXING_BATCH, repeatable=True
            ):
                names = [member.decode() for member in members]
                keys = [self._key(name.split(":", 1)[1], "summary") for name in names]
                await self._script(self._index_statuses, keys, [self._status_prefix, *names], repeatable=True)
                start = f"({names[-1]}"
            await self._execute("SET", marker, 1, repeatable=True)
        self._statuses_indexed = True

    # -- reading ------------------------------------------------------------------------

    async def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[tuple[int, Event]]:
        """The events after version `after`, in order, at most `limit` of them."""
        key = self._key(game_id, "events")
        command: tuple[Argument, ...] = ("XRANGE", key, f"(0-{after}", "+")
        if limit is not None:
            command += ("COUNT", limit)
        return self._decode(await self._execute(*command, repeatable=True))

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

    async def version(self, game_id: str) -> int:
        return await self._execute("XLEN", self._key(game_id, "events"), repeatable=True)

    async def token_hashes(self, game_id: str) -> dict[int, str]:
        """Seat -> hash of its token (the store never sees a raw token)."""
        flat = await self._execute("HGETALL", self._key(game_id, "tokens"), repeatable=True)
        return {int(seat): digest.decode() for seat, digest in zip(flat[::2], flat[1::2], strict=True)}

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
            index, batch = self._status_prefix + status, limit + 1
        else:
            index, batch = self._index, max(limit + 1, 100)
        scanned = None
        for _ in range(MAX_LISTING_BATCHES):  # a sparse listing stops here and hands back a cursor
            async with reachable(self.timeout):
                # The client decodes no reply (no decode_responses) and scores are not asked
                # for: the members come as bytes, whatever else zrange may return.
                members = cast(
                    "list[bytes]", await self.client.zrange(index, start, "+", bylex=True, offset=0, num=batch)
                )
            if not members:
                scanned = None
                break
            async with reachable(self.timeout), self.client.pipeline(transaction=False) as pipe:
                for member in members:
                    game_id = member.decode().split(":", 1)[1]
                    pipe.hmget(
                        self._key(game_id, "summary"), "status", "players", "round", "rounds", "version", "ruleset"
                    )
                rows = await pipe.execute()
            for member, row in zip(members, rows, strict=True):
                scanned = member.decode()
                if row[0] is None or (status is not None and row[0].decode() != status):
                    continue  # never written, or filtered out
                game_id = scanned.split(":", 1)[1]
                summary = GameSummary(
                    game_id,
                    row[0].decode(),
                    msgspec.json.decode(row[1]),
                    None if row[2] is None else int(row[2]),
                    None if row[3] is None else int(row[3]),
                    int(row[4]),
                    DEFAULT_RULESET if row[5] is None else row[5].decode(),
                )
                found.append((scanned, summary))
                if len(found) > limit:
                    break
            if len(found) > limit or len(members) < batch:  # a page and one more, or the end
                break
            start = f"({members[-1].decode()}"
        else:
            summaries = [summary for _, summary in found[:limit]]
            return summaries, (found[limit - 1][0] if len(found) >= limit else scanned)
        page = found[:limit]
        following = page[-1][0] if len(found) > limit else None
        return [summary for _, summary in page], following

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
