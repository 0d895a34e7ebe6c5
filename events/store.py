"""The event store: one Redis Stream per game, appended atomically, read in order.

Keys of one game share the hash tag `{game_id}` (its stream, summary, token hashes and
idempotency records), so every operation stays within one Cluster slot; the only key
outside a game is the listing index, written on its own before the game's first append
(an indexed game whose log never got written is skipped when listing).

Stream entry ids are `0-<version>`: version n is the n-th event, so reading "after
version n" is a plain XRANGE and the stream's length is the game's version. Appends run
as one Lua script: check the idempotency key, check the expected version, add every event
of the move, update the summary, record the idempotency result, or do nothing at all.

Every call is bounded by a timeout; a server that is down or unreachable raises
StoreUnavailable within about `timeout` seconds, never hangs.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, NamedTuple

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
from events.codec import Codec, Event, MalformedEvent
from events.pipelined import PipelinedConnection
from events.replay import InvalidLog
from events.rulesets import decode_stored
from events.schema import CODEC as POISON_CODEC

GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
CURSOR = re.compile(r"^\d{13}:[A-Za-z0-9_-]{1,64}$")
IDEMPOTENCY_TTL = 25 * 3600  # the contract promises at least 24 h
MAX_LISTING_BATCHES = 20  # index entries a listing call reads at most: 20 batches
#: Replies that mean the server cannot take a request now: redis-py's exceptions for those
#: it names (OOM, READONLY, MASTERDOWN and CLUSTERDOWN, TRYAGAIN), and the first word of
#: those it leaves a plain ResponseError. (LOADING, NOAUTH and a full server are
#: ConnectionErrors.)
UNAVAILABLE_ERRORS = (OutOfMemoryError, ReadOnlyError, ClusterDownError, TryAgainError)
UNAVAILABLE_REPLIES = frozenset({"MISCONF", "NOREPLICAS"})
NEWEST = 9_999_999_999_999  # index members sort by NEWEST - creation ms

APPEND = """
-- KEYS: stream, summary, tokens, idempotency record
-- ARGV: expected version, fingerprint ('' for none), result, ttl, n events,
--       (type, schema, data) per event, n summary pairs, pairs, n token pairs, pairs
if ARGV[2] ~= '' then
  local seen = redis.call('HMGET', KEYS[4], 'f', 'r', 'v', 'n')
  if seen[1] then return {'idempotent', seen[1], seen[2], seen[3], seen[4]} end
end
local version = redis.call('XLEN', KEYS[1])
if version ~= tonumber(ARGV[1]) then return {'conflict', version} end
local n = tonumber(ARGV[5])
local i = 6
for _ = 1, n do
  version = version + 1
  redis.call('XADD', KEYS[1], '0-' .. version, 't', ARGV[i], 's', ARGV[i + 1], 'd', ARGV[i + 2])
  i = i + 3
end
local pairs = tonumber(ARGV[i])
if pairs > 0 then redis.call('HSET', KEYS[2], unpack(ARGV, i + 1, i + 2 * pairs)) end
i = i + 1 + 2 * pairs
pairs = tonumber(ARGV[i])
if pairs > 0 then redis.call('HSET', KEYS[3], unpack(ARGV, i + 1, i + 2 * pairs)) end
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[4], 'f', ARGV[2], 'r', ARGV[3], 'v', version, 'n', n)
  redis.call('EXPIRE', KEYS[4], tonumber(ARGV[4]))
end
return {'appended', version}
"""


REMEMBER = """
-- KEYS: idempotency record, stream; ARGV: fingerprint, result, ttl
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'f', ARGV[1], 'r', ARGV[2], 'v', redis.call('XLEN', KEYS[2]), 'n', 0)
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
end
return 1
"""


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
    """A client's idempotency key, the fingerprint of its request, and what the first
    successful attempt answered (opaque to the store)."""

    key: str
    fingerprint: str
    result: bytes = b""


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
    players: list[str]
    round: int | None  # None for a ruleset without rounds (the pot game)
    rounds: int | None
    version: int
    ruleset: str = DEFAULT_RULESET  # games written before the second ruleset say none


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
async def reachable(timeout: float):
    """Turn every way of not reaching the server into StoreUnavailable, within `timeout`."""
    try:
        async with asyncio.timeout(timeout):
            yield
    except (RedisError, OSError, TimeoutError) as error:
        raise (unavailable(error) or error) from None


class EventStore:
    """Game logs in Redis. Safe to share between the tasks of one event loop.

    The commands of playing and reading games go through one pipelined connection
    (`wire`); blocking reads and listing go through redis-py's pool (`client`)."""

    def __init__(
        self, client: aioredis.Redis, wire: PipelinedConnection, *, namespace: str = "poison", timeout: float = 2.0
    ) -> None:
        self.client = client
        self.wire = wire
        self.namespace = namespace
        self.timeout = timeout
        self._append = client.register_script(APPEND)
        self._remember = client.register_script(REMEMBER)

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
        return cls(client, PipelinedConnection(url, timeout=timeout), namespace=namespace, timeout=timeout)

    async def close(self) -> None:
        await self.wire.close()
        await self.client.aclose()

    async def _execute(self, *command: str | bytes | int | float, repeatable: bool = False) -> Any:
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
        return f"{self.namespace}:{{{check_game_id(game_id)}}}:{what}"

    def _idempotency_key(self, game_id: str, idempotency: Idempotency | None) -> str:
        # The client's key is hashed: any string is safe in a key name and of fixed length.
        digest = hashlib.sha256(idempotency.key.encode()).hexdigest() if idempotency else "none"
        return self._key(game_id, f"idempotency:{digest}")

    @property
    def _index(self) -> str:
        return f"{self.namespace}:games"

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
    ) -> Appended:
        """Append `events` (of the ruleset `codec` encodes) at exactly `expected_version`,
        all or none.

        Raises VersionConflict (with the current version) when the game is elsewhere,
        IdempotencyKeyReused when the key was used for another request; an idempotent
        retry returns the first attempt's Appended with `replayed` set and appends nothing.
        """
        if not events:
            raise ValueError("an append holds at least one event")
        args: list[Any] = [
            expected_version,
            idempotency.fingerprint if idempotency else "",
            idempotency.result if idempotency else b"",
            IDEMPOTENCY_TTL,
            len(events),
        ]
        for event in events:
            args.extend(codec.encode_stored(event))
        for pairs in (summary or {}, tokens or {}):
            args.append(len(pairs))
            for field, value in pairs.items():
                args.extend((field, value))
        keys = [
            self._key(game_id, "events"),
            self._key(game_id, "summary"),
            self._key(game_id, "tokens"),
            self._idempotency_key(game_id, idempotency),
        ]
        reply = await self._script(self._append, keys, args)
        outcome = reply[0].decode()
        if outcome == "conflict":
            raise VersionConflict(expected_version, int(reply[1]))
        if outcome == "idempotent":
            assert idempotency is not None
            if reply[1].decode() != idempotency.fingerprint:
                raise IdempotencyKeyReused(f"idempotency key {idempotency.key!r} was used for a different request")
            return Appended(int(reply[3]), int(reply[4]), replayed=True, result=reply[2])
        return Appended(int(reply[1]), len(events))

    async def recall(self, game_id: str, idempotency: Idempotency) -> Appended | None:
        """What the first request with this idempotency key appended, if there was one.
        Checked before a retried move is validated: the move it repeats is no longer legal."""
        key = self._idempotency_key(game_id, idempotency)
        fingerprint, result, version, count = await self._execute("HMGET", key, "f", "r", "v", "n", repeatable=True)
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

    async def index_game(self, game_id: str, created_ms: int) -> None:
        """List the game (newest first); call before its first append."""
        member = f"{NEWEST - created_ms:013d}:{check_game_id(game_id)}"
        await self._execute("ZADD", self._index, "NX", 0, member, repeatable=True)

    # -- reading ------------------------------------------------------------------------

    async def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[tuple[int, Event]]:
        """The events after version `after`, in order, at most `limit` of them."""
        key = self._key(game_id, "events")
        command = ("XRANGE", key, f"(0-{after}", "+") + (("COUNT", limit) if limit is not None else ())
        return self._decode(await self._execute(*command, repeatable=True))

    @staticmethod
    def _decode(entries: list[list[Any]]) -> list[tuple[int, Event]]:
        """Stream entries as XRANGE and XREAD give them: [id, [field, value, ...]]."""
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

    async def wait(self, game_id: str, after: int, *, block_ms: int = 1000) -> list[tuple[int, Event]]:
        """The events after `after`, waiting up to `block_ms` for one to be appended."""
        key = self._key(game_id, "events")
        async with reachable(self.timeout + block_ms / 1000):
            found = await self.client.xread({key: f"0-{after}"}, block=block_ms)
        if not found:
            return []
        return self._decode(found[0][1])

    async def version(self, game_id: str) -> int:
        return await self._execute("XLEN", self._key(game_id, "events"), repeatable=True)

    async def token_hashes(self, game_id: str) -> dict[int, str]:
        """Seat -> hash of its token (the store never sees a raw token)."""
        flat = await self._execute("HGETALL", self._key(game_id, "tokens"), repeatable=True)
        return {int(seat): digest.decode() for seat, digest in zip(flat[::2], flat[1::2], strict=True)}

    async def list_games(
        self, *, status: str | None = None, limit: int = 50, cursor: str | None = None
    ) -> tuple[list[GameSummary], str | None]:
        """Games newest first, `limit` at a time; the cursor of the next page, or None."""
        if cursor is not None and not CURSOR.match(cursor):
            raise ValueError(f"{cursor!r} is not a cursor of this listing")
        found: list[tuple[str, GameSummary]] = []
        start = f"({cursor}" if cursor else "-"
        batch = max(limit + 1, 100)
        scanned = None
        for _ in range(MAX_LISTING_BATCHES):  # a sparse filter stops here and hands back a cursor
            async with reachable(self.timeout):
                members = await self.client.zrange(self._index, start, "+", bylex=True, offset=0, num=batch)
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
            if len(found) > limit:
                break
            start = f"({members[-1].decode()}"
        else:
            page = [summary for _, summary in found[:limit]]
            return page, (found[limit - 1][0] if len(found) >= limit else scanned)
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
    "RedisError",
    "StoreUnavailable",
    "UnknownGame",
    "VersionConflict",
]
