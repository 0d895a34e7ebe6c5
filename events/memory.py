"""The in-memory recorder: game logs kept in one process's memory, with the Redis
recorder's contract (events/records.py): versions from 1, an append at an expected version
or a conflict naming the version found, idempotent retries, the `summary` and `tokens`
rows, reads after a version and following a log as it grows. It is a real recorder for the
domain's fast tests and for anything that needs logs without a server; its logs last as
long as the object does.

What it leaves out is what only a shared server gives: it keeps no rate-limit buckets (an
append naming any is refused), no finished copies (`read_log` gives the entries, which the
mapper reads the same way) and no expiry of idempotency records.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

from events.records import (
    Append,
    Appended,
    Entries,
    MapEntries,
    Moved,
    VersionConflict,
    check_game_id,
    entry,
    reused,
)


class _Log:
    """One game: its entries, its rows, its idempotency records and what its followers
    wait on."""

    __slots__ = ("changed", "entries", "records", "rows")

    def __init__(self) -> None:
        self.entries: Entries = []
        self.rows: dict[str, dict[bytes, bytes]] = {"summary": {}, "tokens": {}}
        # (scope, key) -> (fingerprint, result, version, count)
        self.records: dict[tuple[str, str], tuple[str, bytes, int, int]] = {}
        self.changed: asyncio.Event | None = None  # made by the first follower, on its loop


class MemoryRecorder:
    """Raw game logs in memory (events/records.py's Recorder). Safe to share between the
    tasks of one event loop: every call's changes are made without awaiting in between."""

    def __init__(self) -> None:
        self._logs: dict[str, _Log] = {}

    def _log(self, game_id: str) -> _Log:
        log = self._logs.get(check_game_id(game_id))
        if log is None:
            log = self._logs[game_id] = _Log()
        return log

    async def append(self, game_id: str, append: Append) -> tuple[Appended, Moved | None]:
        records, idempotency = append.records, append.idempotency
        if not records:
            raise ValueError("an append holds at least one event")
        if append.limits:
            raise ValueError("the in-memory recorder keeps no rate-limit buckets")
        log = self._log(game_id)
        record = (idempotency.scope, idempotency.key) if idempotency else None
        if idempotency is not None and record in log.records:
            fingerprint, result, version, count = log.records[record]
            if fingerprint != idempotency.fingerprint:
                raise reused(idempotency)
            return Appended(version, count, replayed=True, result=result), None
        version = len(log.entries)
        if version != append.expected_version:
            raise VersionConflict(append.expected_version, version)
        log.entries.extend(entry(version + number, stored) for number, stored in enumerate(records, 1))
        row = log.rows["summary"]
        before = row.get(b"status")
        summary, tokens = append.summary or {}, append.tokens or {}
        row.update((field.encode(), str(value).encode()) for field, value in summary.items())
        log.rows["tokens"].update((str(seat).encode(), digest.encode()) for seat, digest in tokens.items())
        appended = Appended(len(log.entries), len(records))
        if idempotency is not None and record is not None:
            log.records[record] = (idempotency.fingerprint, idempotency.result, appended.version, appended.count)
        if log.changed is not None:
            changed, log.changed = log.changed, None
            changed.set()
        now, listed = row.get(b"status"), row.get(b"listed")
        if now is None or listed is None or now == before:
            return appended, None
        return appended, Moved(before.decode() if before else None, now.decode(), listed.decode())

    def _find(self, game_id: str) -> _Log | None:
        return self._logs.get(check_game_id(game_id))  # a read of no game leaves none behind

    async def read(self, game_id: str, after: int = 0, limit: int | None = None) -> Entries:
        log = self._find(game_id)
        if log is None or after < 0:
            return []
        return log.entries[after : None if limit is None else after + limit]

    async def read_log(self, game_id: str) -> bytes | Entries:
        return await self.read(game_id)

    async def version(self, game_id: str) -> int:
        log = self._find(game_id)
        return 0 if log is None else len(log.entries)

    async def row(self, game_id: str, which: str) -> dict[bytes, bytes]:
        log = self._find(game_id)
        return {} if log is None else dict(log.rows.get(which, {}))

    async def follow(
        self, game_id: str, after: int, mapping: MapEntries | None = None
    ) -> AsyncGenerator[list[Any], None]:
        log = self._log(game_id)
        while True:
            batch: list[Any] = log.entries[after:]
            if batch:
                after += len(batch)
                yield batch if mapping is None else mapping(batch)
                continue
            if log.changed is None:
                log.changed = asyncio.Event()
            await log.changed.wait()

    async def ping(self) -> None:
        return None

    async def close(self) -> None:
        return None


__all__ = ["MemoryRecorder"]
