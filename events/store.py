"""The event store: the game logs, as one object composed of parts with one job each, each
a member, none a base class:

- `recorder`: the raw stored events (events/records.py's contract; events/recorder.py's
  Redis Streams, or events/memory.py's in-memory recorder), below every game;
- `listing`: the listing's sharded indexes (list_games, read repair), events/listing.py;
- `idempotency`: the answers kept under clients' idempotency keys, events/idempotency.py;
- `tokens`: the seat tokens' hashes, events/tokens.py;
- `buckets`: the rate-limit buckets' keys and calls, events/buckets.py;
- `due` and `archive`: the games over, waiting to be archived (events/archiving.py), and the
  archive finished games move to (events/archive.py), which every read falls back on;
- `deadlines`: the index of the games' pending deadlines, events/clocks.py.

Its own methods are the log as the domain sees it: events of each game's ruleset in and
out, through the mapper (events/mapper.py). `append` is where the parts meet: the mapper
gives the recorder the stored forms, the recorder appends them with the idempotency
record, the summary, the seat tokens and the buckets in one step (one EVALSHA per move on
Redis), then the listing moves the game between its status indexes. A store that cannot be
reached is counted where it is called, in the recorder (events.calls.counted), once per call.
Outside events/, the store is reached only through the games layer (events/games.py).

An archived game's log has left Redis; its summary row stays, naming where it lies. A read
that Redis answers with nothing asks that row and reads the archive: so that a read of a
game being played (the hot path) never pays for it, a read after version v asks Redis from
v itself, and only an answer without entry v (the log is gone) looks further.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Mapping, Sequence
from time import perf_counter, time
from typing import Generic, TypeVar

from events.archive import Archive, Placed
from events.archiving import BATCH_GAMES, LEASE_MS, OVER, Archiver, DueGames, unpack_seats
from events.buckets import Buckets
from events.calls import unavailable
from events.clocks import Deadlines
from events.codec import Codec, Event
from events.idempotency import IdempotencyRecords
from events.limits import Limit
from events.listing import CURSOR, GameSummary, Listing, listing_member, shard_of
from events.mapper import copy_for, events_of, events_of_log, records_of
from events.metrics import APPEND_SECONDS
from events.recorder import RedisRecorder
from events.records import (
    Append,
    Appended,
    Entries,
    GameArchived,
    Idempotency,
    IdempotencyKeyReused,
    Recorder,
    StoreUnavailable,
    UnknownGame,
    VersionConflict,
    version_of,
)
from events.tokens import SeatTokens

AnyRecorder = TypeVar("AnyRecorder", bound=Recorder)

log = logging.getLogger("poison.events")


class EventStore(Generic[AnyRecorder]):
    """Game logs and what is kept beside them. Safe to share between the tasks of one
    event loop. `listing`, `idempotency` and `buckets` are None over a recorder that is
    not Redis (the in-memory one keeps the logs alone)."""

    def __init__(
        self,
        recorder: AnyRecorder,
        *,
        listing: Listing | None = None,
        idempotency: IdempotencyRecords | None = None,
        buckets: Buckets | None = None,
        due: DueGames | None = None,
        archive: Archive | None = None,
        deadlines: Deadlines | None = None,
    ) -> None:
        self.recorder = recorder
        self.listing = listing
        self.idempotency = idempotency
        self.tokens = SeatTokens(recorder)
        self.buckets = buckets
        self.due = due
        self.archive = archive
        self.deadlines = deadlines

    @classmethod
    def from_url(
        cls, url: str, *, namespace: str = "poison", timeout: float = 2.0, archive: Archive | None = None
    ) -> EventStore[RedisRecorder]:
        """A store in Redis (one server or a cluster): every part over one connection;
        finished games move to `archive` when one is given."""
        return cls.on_redis(RedisRecorder.from_url(url, namespace=namespace, timeout=timeout), archive=archive)

    @classmethod
    def on_redis(cls, recorder: RedisRecorder, *, archive: Archive | None = None) -> EventStore[RedisRecorder]:
        """A store whose parts share the Redis recorder's connection and namespace."""
        wire, namespace = recorder.wire, recorder.namespace
        return EventStore(
            recorder,
            listing=Listing(wire, namespace=namespace),
            idempotency=IdempotencyRecords(wire, namespace=namespace),
            buckets=Buckets(wire, namespace=namespace),
            due=DueGames(wire, namespace=namespace) if archive is not None else None,
            archive=archive,
            deadlines=Deadlines(wire, namespace=namespace),
        )

    async def close(self) -> None:
        await self.recorder.close()

    async def append(
        self,
        game_id: str,
        events: Sequence[Event],
        expected_version: int,
        *,
        codec: Codec,
        idempotency: Idempotency | None = None,
        summary: Mapping[str, str | int] | None = None,
        tokens: Mapping[int, str] | None = None,
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
        RateLimited (naming what is `limited`) when one is empty, and nothing is done."""
        if not events:
            raise ValueError("an append holds at least one event")  # before the listing is touched
        records = records_of(events, codec)
        if self.due is not None and (summary or {}).get("status") in OVER:
            # Due before it is over, never after: a crash in between leaves a due entry for a
            # game not over yet (the mover lets it go), never a game over that is not due.
            await self.due.add(game_id, int(time() * 1000))
        appending = self.recorder.append(
            game_id,
            Append(
                records,
                expected_version,
                idempotency=idempotency,
                summary=summary,
                tokens=tokens,
                limits=limits,
                limited=limited,
                copy=copy_for(events, codec),
            ),
        )
        # A new game is indexed in the same write as its first append (an index entry
        # whose summary is missing or names another entry is skipped when listing), so
        # that no crash can leave a written game out of the listing.
        status, listed = (summary or {}).get("status"), (summary or {}).get("listed")
        created = str(status) if expected_version == 0 and status and listed and self.listing else None
        started = perf_counter()
        unindexed = False
        try:
            if created is None or self.listing is None:
                appended, moved = await appending
            else:
                reply, indexed = await asyncio.gather(
                    appending, self.listing.enter(game_id, str(listed), None, created), return_exceptions=True
                )
                if isinstance(reply, BaseException):
                    raise reply
                appended, moved = reply
                unindexed = isinstance(indexed, BaseException)
        finally:
            APPEND_SECONDS.observe(perf_counter() - started)  # failed ones too: their wait is the store's
        if moved is not None and self.listing is not None and (created is None or unindexed):
            # (for a new game, once more: its index write with the append failed)
            await self.listing.relist(game_id, moved.member, moved.left, moved.status)
        return appended

    async def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[tuple[int, Event]]:
        """The events after version `after`, in order, at most `limit` of them."""
        return events_of(await self.entries(game_id, after, limit))

    async def entries(self, game_id: str, after: int = 0, limit: int | None = None) -> Entries:
        """`read`'s raw entries: from Redis, or the archive once the game is there."""
        if self.archive is None:
            return await self.recorder.read(game_id, after, limit)
        if after == 0:
            entries = await self.recorder.read(game_id, 0, limit)
        else:  # from `after` itself: its entry says the log is still here
            entries = await self.recorder.read(game_id, after - 1, None if limit is None else limit + 1)
            if entries and version_of(entries[0]) == after:
                return entries[1:]
        if entries:
            return entries if limit is None else entries[:limit]
        placed = await self.placed(game_id)
        if placed is None:
            return entries
        archived = await self._archived(placed)
        return archived[after:] if limit is None else archived[after : after + limit]

    async def read_log(self, game_id: str) -> list[tuple[int, Event]]:
        """A game's whole log, for rebuilding it: a finished game's from its finished copy
        (one value, decoded in one call) when the recorder keeps one, any other's (or one
        whose copy does not decode) from its stream, as `read` gives it; an archived one's
        from the archive."""
        events = events_of_log(await self.recorder.read_log(game_id))
        if events is None:
            return await self.read(game_id)
        return events if events or self.archive is None else await self.read(game_id)

    async def follow(self, game_id: str, after: int) -> AsyncGenerator[list[tuple[int, Event]], None]:
        """The game's events after version `after`, batch by batch as they are appended,
        for as long as the caller iterates (decoded once for every follower of the game
        that shares a batch). An archived game's are one batch, and it ends."""
        # (a live game's log is in Redis: only a game whose log is not asks its index entry)
        placed = None
        if self.archive is not None and await self.recorder.version(game_id) == 0:
            placed = await self.placed(game_id)
        if placed is not None:
            archived = (await self._archived(placed))[after:]
            if archived:
                yield events_of(archived)
            return
        batches = self.recorder.follow(game_id, after, events_of)
        try:
            async for batch in batches:
                yield batch
        finally:
            await batches.aclose()

    async def version(self, game_id: str) -> int:
        version = await self.recorder.version(game_id)
        if version == 0 and self.archive is not None:
            placed = await self.placed(game_id)
            return 0 if placed is None else placed.rows
        return version

    async def placed(self, game_id: str) -> Placed | None:
        """Where an archived game lies (None: it is not archived)."""
        text = (await self.recorder.row(game_id, "summary")).get(b"archived")
        return None if text is None else Placed.decode(text.decode())

    def archiver(self, *, after_ms: int, batch_games: int = BATCH_GAMES, lease_ms: int = LEASE_MS) -> Archiver:
        """What moves this store's games to its archive `after_ms` after they end, at most
        `batch_games` a batch, holding a shard `lease_ms` at a time (one per worker: they
        share the work out, events/archiving.py)."""
        if self.archive is None or not isinstance(self.recorder, RedisRecorder):
            raise ValueError("only a store in Redis with an archive archives its games")
        return Archiver(
            self.recorder.wire,
            self.archive,
            namespace=self.recorder.namespace,
            after_ms=after_ms,
            batch_games=batch_games,
            lease_ms=lease_ms,
        )

    async def archiving(self, game_id: str) -> bool:
        """Whether a game is archived, or sealed to be (its log takes no more events)."""
        if self.archive is None:
            return False
        row = await self.recorder.row(game_id, "summary")
        return b"sealed" in row or b"archived" in row

    async def deadline(self, game_id: str) -> tuple[int, int | None] | None:
        """The version of a game's summary row and the deadline it names (ms; None when none
        is pending), or None when the row names none (a game without a clock)."""
        row = await self.recorder.row(game_id, "summary")
        deadline = row.get(b"deadline")
        if deadline is None:
            return None
        return int(row.get(b"version", b"0")), int(deadline) if deadline else None

    async def token_hashes(self, game_id: str) -> dict[int, str]:
        """Seat -> hash of its token; an archived game's from its index entry."""
        hashes = await self.tokens.token_hashes(game_id)
        if hashes or self.archive is None:
            return hashes
        return unpack_seats(await self.recorder.row(game_id, "summary"))

    async def _archived(self, placed: Placed) -> Entries:
        """An archived game's entries; StoreUnavailable when its file cannot be read (the
        archive is part of the store: a request is answered 503, as when Redis is down)."""
        archive = self.archive
        assert archive is not None
        cached = archive.cached(placed)
        if cached is not None:
            return cached
        try:
            return await asyncio.to_thread(archive.read, placed)
        except Exception as error:  # whatever the file's storage or pyarrow raise
            # Which file, and why, is for the operator's log; the client hears that it failed.
            log.warning("the archive's file %s cannot be read: %s", placed.path, error)
            raise StoreUnavailable("the archive cannot be read") from None

    async def ping(self) -> None:
        await self.recorder.ping()


__all__ = [
    "CURSOR",
    "AnyRecorder",
    "Appended",
    "EventStore",
    "GameArchived",
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
