"""The listing filtered by status (issue 11, defect 9): every page but the last is full,
however rare the status is among the games."""

from __future__ import annotations

import pytest

import events.listing
from tests.service.api import create

pytestmark = pytest.mark.anyio


async def test_a_rare_status_fills_every_page_but_the_last(client, monkeypatch):
    # A listing reads at most MAX_LISTING_BATCHES batches of the index; made 1 here, so
    # that 300 games play the part of the 15,000 of the report.
    monkeypatch.setattr(events.listing, "MAX_LISTING_BATCHES", 1)
    finished = []
    for _ in range(5):  # the oldest games are the finished ones
        created, _ = await create(client, 3, rounds=1, bots=dict.fromkeys(range(3), "random"))
        finished.append(created["game_id"])
    for _ in range(300):
        await create(client, 3)
    pages, cursor = [], None
    while True:
        query = "/v1/games?status=finished&limit=2" + (f"&cursor={cursor}" if cursor else "")
        page = (await client.get(query)).json()
        pages.append([game["game_id"] for game in page["games"]])
        cursor = page["next"]
        if cursor is None:
            break
        assert len(pages) < 10
    assert [len(page) for page in pages] == [2, 2, 1]
    assert [game for page in pages for game in page] == finished[::-1]
    active = (await client.get("/v1/games?status=active&limit=200")).json()
    assert len(active["games"]) == 200
    assert active["next"] is not None
