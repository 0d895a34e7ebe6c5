"""What the archive's tests share: finished games written fast (bots only, so that each is
over at its creation), what the store holds of each, and a mover for a process of its own."""

from __future__ import annotations

import asyncio
from typing import Any

import duckdb

from core.rulesets import RULESETS
from events.archive import Archive
from events.games import Games
from events.records import Entries
from events.store import EventStore
from tests.rulesets import seats


async def finished_games(store: EventStore, count: int, *, prefix: str = "g") -> list[str]:
    """`count` finished games of every ruleset in turn, ids `<prefix><n>`."""
    games = Games(store)
    rulesets = list(RULESETS.values())
    ids = []
    for n in range(count):
        ruleset = rulesets[n % len(rulesets)]
        players = ruleset.players[0]
        table = seats(players, dict.fromkeys(range(players), ruleset.bots[0]))
        game_id = f"{prefix}{n}"
        _, logged = await games.create(game_id, table, seed=n, token_hashes={}, created_ms=n + 1, ruleset=ruleset.name)
        assert logged.finished
        ids.append(game_id)
    return ids


async def logs_of(store: EventStore, ids: list[str]) -> dict[str, Entries]:
    """Each game's raw entries, wherever they are now (Redis or the archive)."""
    return {game_id: await store.entries(game_id) for game_id in ids}


def rows(url: str) -> tuple[int, int, int]:
    """The archive's rows, games and distinct (game, version) pairs, as DuckDB reads them."""
    query = "select count(*), count(distinct game_id), count(distinct (game_id, version)) from read_parquet(?)"
    [(count, games, pairs)] = duckdb.execute(query, [f"{url}/*/*.parquet"]).fetchall()
    return count, games, pairs


def move(redis_url: str, namespace: str, url: str, batch_games: int, ready: Any, moved: Any) -> None:
    """A mover of its own (run in a process: tests kill it): archive every game that is
    over until none is due, counting the games it moved in `moved`; `ready` is set once it
    has connected."""
    asyncio.run(_move(redis_url, namespace, url, batch_games, ready, moved))


async def _move(redis_url: str, namespace: str, url: str, batch_games: int, ready: Any, moved: Any) -> None:
    store = EventStore.from_url(redis_url, namespace=namespace, archive=Archive(url))
    # A short lease: a shard whose mover was killed is free again soon.
    archiver = store.archiver(after_ms=0, batch_games=batch_games, lease_ms=300)
    await store.ping()
    ready.set()
    try:
        while True:
            done = await archiver.pass_once()
            with moved.get_lock():
                moved.value += done.games
            if done.games == 0:
                if not await archiver.count():
                    break
                await asyncio.sleep(0.01)
    finally:
        await store.close()
