"""Speed of the event store on the real embedded server (group `store`).

Two cases: appending one move's events (the Lua append at an expected version), and
loading a finished six-round game from scratch (read the whole stream, rebuild and check
it through the core). Each asserts its result.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator

import pytest

from events.games import Games
from events.play import move, new_game
from events.schema import Player, Rules
from events.store import EventStore


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


@pytest.fixture
def bench_store(loop, redis_url, namespace) -> Iterator[EventStore]:
    store = EventStore.from_url(redis_url, namespace=namespace)
    yield store
    loop.run_until_complete(store.close())


def six_round_game():
    seats = tuple(Player(seat=seat, name=f"p{seat}") for seat in range(6))
    log, logged = new_game(
        "six",
        seats,
        rounds=6,
        rules=Rules(),
        seed=6,
    )
    while not logged.finished:
        card, cauldron = logged.game.legal_moves()[0]
        caused, logged = move(logged, logged.game.turn, card, cauldron)
        log += caused
    return log, logged


@pytest.mark.benchmark(group="store")
def test_append_one_move(benchmark, loop, bench_store):
    log, _ = six_round_game()
    one_move = [event for event in log[2:4]]  # a card and what it caused
    versions = itertools.count(0, len(one_move))
    games = itertools.count()

    def append():
        version = next(versions)
        if version > 10_000:  # keep streams short, as games are
            version = 0
        return loop.run_until_complete(bench_store.append(f"append{next(games) // 1000}", one_move, version))

    appended = benchmark(append)
    assert appended.count == len(one_move)


@pytest.mark.benchmark(group="store")
def test_load_a_finished_six_round_game(benchmark, loop, bench_store):
    log, finished = six_round_game()
    loop.run_until_complete(bench_store.append("six", log, 0))

    def load():
        return loop.run_until_complete(Games(bench_store).load("six"))  # a cold cache each time

    loaded = benchmark(load)
    assert loaded.version == len(log) > 300
    assert loaded.finished
    assert loaded.game.round_results() == finished.game.round_results()
