"""The event store: the game logs in Redis, as one object composed of parts with one job
each, all sharing one connection and one namespace (events/calls.py):

- events/recorder.py: the raw records, one Redis Stream per game, and the one Lua script
  that appends a move (read, read_log, version, follow, ping); events/mapper.py hands the
  raw entries to the rulesets' decoders;
- events/idempotency.py: the answers kept under clients' idempotency keys (recall, remember);
- events/listing.py: the listing's sharded indexes (list_games, read repair, indexing);
- events/tokens.py: the seat tokens' hashes;
- events/buckets.py: the rate-limit buckets' keys and calls.

`EventStore.append` is where they meet: each part gives the one append script its keys and
arguments (one EVALSHA per move, atomic in the game's slot), then the listing moves the game
between its status indexes. Outside events/, the store is reached only through the games
layer (events/games.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from time import perf_counter
from typing import Any

from events.buckets import Buckets
from events.calls import StoreUnavailable, UnknownGame, counted, unavailable
from events.codec import Codec, Event
from events.follow import BLOCK_MS, Follower
from events.idempotency import (
    IDEMPOTENCY_TTL,
    Appended,
    Idempotency,
    IdempotencyKeyReused,
    IdempotencyRecords,
    idempotency_record,
    reused,
)
from events.limits import Limit, RateLimited, limit_args
from events.listing import CURSOR, GameSummary, Listing, listing_member, shard_of
from events.metrics import APPEND_SECONDS, VERSION_CONFLICTS
from events.pipelined import PipelinedConnection
from events.recorder import APPEND_SCRIPT, ENDING, Recorder, VersionConflict, copy_args
from events.schema import CODEC as POISON_CODEC
from events.tokens import SeatTokens


class EventStore(Recorder, IdempotencyRecords, Listing, SeatTokens, Buckets):
    """Game logs in Redis. Safe to share between the tasks of one event loop.

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
    def from_url(cls, url: str, *, namespace: str = "poison", timeout: float = 2.0) -> EventStore:
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
        if (
            buckets
            and not self._single  # known to be one server: every bucket goes in the script
            and any(not limit.key.startswith(game) for limit in buckets)
            and await self._clustered(stream)
        ):
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
                raise reused(idempotency)
            return Appended(int(reply[3]), int(reply[4]), replayed=True, result=reply[2])
        before, now, member = reply[2:5]
        if now and member and now != before and (created is None or unindexed):  # once more, for a new game
            await self._relist(game_id, member.decode(), before.decode() or None, now.decode())
        return Appended(int(reply[1]), len(events))


__all__ = [
    "CURSOR",
    "Appended",
    "EventStore",
    "GameSummary",
    "Idempotency",
    "IdempotencyKeyReused",
    "StoreUnavailable",
    "UnknownGame",
    "VersionConflict",
    "listing_member",
    "shard_of",
    "unavailable",
]
