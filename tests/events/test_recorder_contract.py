"""The recorder's contract (events/records.py), held alike by every recorder: the in-memory
one (events/memory.py), the Redis one on one server and on a real Redis Cluster (three
masters, a replica each; marked `cluster`). Raw stored events in and out, no decoding:
versions from 1, appends at an expected version or a conflict naming the version found,
idempotent retries, the rows kept beside a log, reads after a version, following a log.
What the store above the recorder promises (listing, buckets, tokens) is
tests/cluster/test_store_contract.py's."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest

from events.mapper import copy_for, events_of, events_of_log, records_of
from events.memory import MemoryRecorder
from events.poison.schema import CODEC
from events.recorder import RedisRecorder
from events.records import (
    Append,
    Appended,
    Idempotency,
    IdempotencyKeyReused,
    Moved,
    Recorder,
    StoredEvent,
    UnknownGame,
    VersionConflict,
    entry,
    version_of,
)
from tests.events.logs import followed, game_log, numbered
from tests.waiting import until_async

pytestmark = pytest.mark.anyio

LOG, _ = game_log(4, seed=21)
RECORDS = records_of(LOG, CODEC)
ONE = [StoredEvent("anything", 1, b"\x00opaque bytes")]  # a recorder never reads what it keeps


def server_url(request: pytest.FixtureRequest, where: str) -> str:
    """The URL of the test session's store: its `one server`, or its `cluster`."""
    found = request.getfixturevalue("redis_url" if where == "one server" else "cluster")
    return found if isinstance(found, str) else found.url


@pytest.fixture(params=["in memory", "one server", pytest.param("cluster", marks=pytest.mark.cluster)])
async def recorder(request: pytest.FixtureRequest) -> AsyncIterator[Recorder]:
    if request.param == "in memory":
        made: Recorder = MemoryRecorder()
    else:
        made = RedisRecorder.from_url(server_url(request, request.param), namespace=f"r{uuid.uuid4().hex[:8]}")
    yield made
    await made.close()


async def test_appended_records_read_back_as_raw_entries_in_order_with_their_versions(recorder):
    first, _ = await recorder.append("g1", Append(RECORDS[:2], 0))
    rest, _ = await recorder.append("g1", Append(RECORDS[2:], 2))
    assert (first, rest) == (Appended(2, 2), Appended(len(RECORDS), len(RECORDS) - 2))
    entries = await recorder.read("g1")
    assert entries == [entry(version, stored) for version, stored in enumerate(RECORDS, 1)]
    assert events_of(entries) == numbered(LOG)  # the mapper, above, makes them events again
    assert [version_of(raw) for raw in await recorder.read("g1", after=5, limit=3)] == [6, 7, 8]
    assert await recorder.read("g1", after=len(RECORDS)) == []
    assert await recorder.version("g1") == len(RECORDS)


async def test_a_recorder_keeps_any_bytes_it_is_given_without_reading_them(recorder):
    await recorder.append("opaque", Append(ONE, 0))
    assert await recorder.read("opaque") == [[b"0-1", [b"t", b"anything", b"s", b"1", b"d", b"\x00opaque bytes"]]]


async def test_a_stale_version_is_a_conflict_naming_the_version_found_and_changes_nothing(recorder):
    await recorder.append("g2", Append(RECORDS[:3], 0, summary={"status": "active"}, tokens={0: "h0"}))
    for stale in (2, 4, 0):
        with pytest.raises(VersionConflict) as conflict:
            await recorder.append(
                "g2", Append(RECORDS[3:5], stale, summary={"status": "finished"}, tokens={0: "other"})
            )
        assert (conflict.value.expected, conflict.value.current_version) == (stale, 3)
    assert len(await recorder.read("g2")) == 3
    assert await recorder.row("g2", "summary") == {b"status": b"active"}
    assert await recorder.row("g2", "tokens") == {b"0": b"h0"}


async def test_an_append_of_nothing_is_refused(recorder):
    with pytest.raises(ValueError, match="at least one event"):
        await recorder.append("empty", Append([], 0))
    assert await recorder.version("empty") == 0


async def test_a_game_that_does_not_exist_has_no_entries_and_a_bad_id_none_at_all(recorder):
    assert await recorder.read("nobody") == []
    assert await recorder.version("nobody") == 0
    assert await recorder.row("nobody", "tokens") == {}
    for bad in ["", "a" * 65, "a b", "x}{y", "é"]:
        with pytest.raises(UnknownGame):
            await recorder.read(bad)
        with pytest.raises(UnknownGame):
            await recorder.append(bad, Append(ONE, 0))


async def test_an_idempotent_retry_returns_the_first_answer_and_appends_nothing(recorder):
    await recorder.append("g3", Append(RECORDS[:2], 0))
    key = Idempotency("retry-1", "fingerprint-a", b"first answer", scope="seat1")
    first, _ = await recorder.append("g3", Append(RECORDS[2:4], 2, idempotency=key))
    again, moved = await recorder.append("g3", Append(RECORDS[2:4], 2, idempotency=key))
    assert again == Appended(first.version, 2, replayed=True, result=b"first answer")
    assert moved is None
    assert await recorder.version("g3") == 4
    with pytest.raises(IdempotencyKeyReused):
        await recorder.append("g3", Append(RECORDS[4:5], 4, idempotency=key._replace(fingerprint="fingerprint-b")))
    # Another caller's key of the same name is its own.
    other, _ = await recorder.append("g3", Append(RECORDS[4:5], 4, idempotency=key._replace(scope="seat2")))
    assert (other.version, other.replayed) == (5, False)


async def test_the_rows_beside_a_log_change_with_its_appends_and_say_how_its_status_moved(recorder):
    _, moved = await recorder.append(
        "g4",
        Append(RECORDS[:2], 0, summary={"status": "active", "listed": "m4", "version": 2}, tokens={0: "h0", 1: "h1"}),
    )
    assert moved == Moved(None, "active", "m4")
    _, moved = await recorder.append("g4", Append(RECORDS[2:3], 2, summary={"status": "active", "version": 3}))
    assert moved is None  # the same status: nothing for the listing to do
    _, moved = await recorder.append("g4", Append(RECORDS[3:4], 3, summary={"status": "finished"}, tokens={1: "left"}))
    assert moved == Moved("active", "finished", "m4")
    assert await recorder.row("g4", "summary") == {b"status": b"finished", b"listed": b"m4", b"version": b"3"}
    assert await recorder.row("g4", "tokens") == {b"0": b"h0", b"1": b"left"}


async def test_a_whole_log_reads_back_as_the_same_events_with_or_without_its_finished_copy(recorder):
    await recorder.append("g5", Append(RECORDS, 0, copy=copy_for(LOG, CODEC)))
    assert events_of_log(await recorder.read_log("g5")) == numbered(LOG)
    await recorder.append("g6", Append(RECORDS[:3], 0, copy=copy_for(LOG[:3], CODEC)))
    assert events_of_log(await recorder.read_log("g6")) == numbered(LOG[:3])


async def test_a_follower_gets_every_entry_after_its_version_as_they_are_appended(recorder):
    if isinstance(recorder, RedisRecorder):  # its waiter blocks on the server; the memory one on the loop
        assert recorder.follower is not None
    await recorder.append("g7", Append(RECORDS[:2], 0))
    seen, following = followed(recorder.follow("g7", 1), version_of, last=6)
    await until_async(lambda: seen == [2], what="the entry after version 1, read at once")
    for version in range(2, 6):
        await recorder.append("g7", Append(RECORDS[version : version + 1], version))
    await asyncio.wait_for(following, 10)
    assert seen == [2, 3, 4, 5, 6]
