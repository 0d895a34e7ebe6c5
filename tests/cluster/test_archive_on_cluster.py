"""The archive on the real 3+3 cluster: two movers at once, each with its own connection,
archive every game exactly once between them (each shard's lease and each game's seal are
in slots of their own, spread over the masters), and every game reads back as it was."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from events.archive import Archive
from events.cluster import LocalCluster
from events.store import EventStore
from tests.archive.games import finished_games, logs_of, rows

pytestmark = [pytest.mark.anyio, pytest.mark.cluster]


async def drain(store: EventStore) -> list[int]:
    """Run a mover of `store` until nothing is due; the games it moved in each pass."""
    archiver = store.archiver(after_ms=0, batch_games=16, lease_ms=2000)
    passes = []
    while True:
        done = await archiver.pass_once()
        passes.append(done.games)
        if done.games == 0 and not await archiver.count():
            return passes
        await asyncio.sleep(0.005)


async def test_two_movers_on_the_cluster_archive_every_game_once(cluster: LocalCluster, tmp_path: Path) -> None:
    namespace, url = f"a{uuid.uuid4().hex[:8]}", str(tmp_path / "archive")
    stores = [EventStore.from_url(cluster.url, namespace=namespace, archive=Archive(url)) for _ in range(3)]
    try:
        ids = await finished_games(stores[0], 240)
        before = await logs_of(stores[0], ids)
        moved = await asyncio.gather(drain(stores[1]), drain(stores[2]))
        assert sum(map(sum, moved)) == len(ids)
        assert all(sum(passes) > 0 for passes in moved)  # the work was shared
        assert await logs_of(stores[0], ids) == before
        assert None not in [await stores[0].placed(game_id) for game_id in ids]
        total = sum(len(entries) for entries in before.values())
        assert rows(url) == (total, len(ids), total)  # no game twice in the files
    finally:
        for store in stores:
            await store.close()
