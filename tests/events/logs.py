"""Whole game logs for the event tests, made through events.play."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from events.games import Games
from events.play import LoggedGame, move, new_game
from events.poison.schema import Event, Player, Rules

if TYPE_CHECKING:
    from events.store import EventStore


def players(n: int) -> tuple[Player, ...]:
    return tuple(Player(seat=seat, name=f"player{seat}") for seat in range(n))


def game_log(
    n: int = 4, *, seed: int = 1, rounds: int | None = None, cauldrons: str = "dynamic", moves: int | None = None
) -> tuple[list[Event], LoggedGame]:
    """The log of a game played with the last legal move each turn, to its end or for
    `moves` moves."""
    log, logged = new_game("g-test", players(n), rounds=rounds, rules=Rules(cauldrons=cauldrons), seed=seed)
    played = 0
    while not logged.finished and (moves is None or played < moves):
        card, cauldron = logged.game.legal_moves()[-1]
        caused, logged = move(logged, logged.game.turn, card, cauldron)
        log += caused
        played += 1
    return log, logged


def numbered(log: list[Event]) -> list[tuple[int, Event]]:
    return list(enumerate(log, start=1))


async def play_to_the_end(games: Games, game_id: str, client: str | None = None) -> int:
    """Play a stored game to its end, each seat taking its first legal move; how many moves."""
    logged = await games.load(game_id)
    moves = 0
    while not logged.finished:
        _, logged = await games.play(game_id, logged.game.turn, *logged.game.legal_moves()[0], client=client)
        moves += 1
    return moves


async def xadd(store: EventStore, key: str, fields: Mapping[str, Any], entry_id: str) -> None:
    """Write a raw stream entry as an older (or broken) writer would, through the store's wire."""
    await store.recorder.wire.execute("XADD", key, entry_id, *(part for pair in fields.items() for part in pair))


def followed(
    batches: AsyncGenerator[list[Any], None], version_of: Callable[[Any], int], last: int
) -> tuple[list[int], asyncio.Future[None]]:
    """Follow `batches` (a store's or a recorder's follow) in the background: the versions
    seen so far, growing as they come, and the task, done (the follow closed) once version
    `last` has come."""
    seen: list[int] = []

    async def follow() -> None:
        async with aclosing(batches):
            async for batch in batches:
                seen.extend(version_of(item) for item in batch)
                if seen[-1] >= last:
                    return

    return seen, asyncio.ensure_future(follow())
