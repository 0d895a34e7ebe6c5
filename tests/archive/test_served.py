"""A real `poison serve` with two workers and POISON_ARCHIVE_AFTER=0 moves a finished game
to the archive by itself, in its data directory's `archive` folder, and answers every read
of it as before; an archive at a URL of fsspec's (its in-memory filesystem, as an object
store would be) takes and gives games as a folder does."""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path

import httpx
import pytest

from events.archive import Archive
from events.store import EventStore
from tests.archive.games import finished_games, logs_of
from tests.service.served import serving

pytestmark = pytest.mark.anyio


@pytest.mark.subprocess
async def test_a_served_finished_game_moves_to_the_data_directorys_archive_by_itself(
    tmp_path: Path, redis_url: str, namespace: str, raw
) -> None:
    settings = {"POISON_ARCHIVE_AFTER": "0", "POISON_REDIS_URL": redis_url, "POISON_NAMESPACE": namespace}
    with serving(tmp_path, workers=2, **settings) as base, httpx.Client(base_url=base) as client:
        body = {"players": [{"name": "ann", "bot": "greedy"}, {"name": "bo", "bot": "random"}], "ruleset": "pot"}
        created = client.post("/v1/games", json=body)
        assert created.status_code == 201, created.text
        game_id = created.json()["game_id"]
        paths = [f"/v1/games/{game_id}{read}" for read in ("", "/scores", "/events", "/export", "?version=3")]
        before = [client.get(path).content for path in paths]
        deadline = time.monotonic() + 20
        while await raw.exists(f"{namespace}:{{{game_id}}}:events"):
            assert time.monotonic() < deadline, "the game was not archived"
            await asyncio.sleep(0.1)
        assert list((tmp_path / "archive").glob("day=*/*.parquet"))
        assert [client.get(path).content for path in paths] == before


async def test_an_archive_at_a_url_of_fsspecs_takes_and_gives_games(redis_url: str, namespace: str) -> None:
    url = f"memory://poison-{uuid.uuid4().hex[:8]}/archive"
    store = EventStore.from_url(redis_url, namespace=namespace, archive=Archive(url))
    ids = await finished_games(store, 12)
    before = await logs_of(store, ids)
    assert (await store.archiver(after_ms=0).pass_once()).games == len(ids)
    assert store.archive is not None
    assert store.archive.files()
    cold = EventStore.from_url(redis_url, namespace=namespace, archive=Archive(url))
    assert await logs_of(cold, ids) == before
    assert [await cold.placed(game_id) for game_id in ids].count(None) == 0
    await store.close()
    await cold.close()
