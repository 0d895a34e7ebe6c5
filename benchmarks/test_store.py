"""Speed of the event store on the real embedded server (group `store`).

Two cases: appending one move's events (the Lua append at an expected version), and
loading a finished six-round game from scratch (read the whole stream, rebuild and check
it through the core). Each asserts its result: every append landed at the version it
expected, and the loaded game is the one that was played.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterator

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from events.codec import Event
from events.games import Games
from events.play import LoggedGame, move, new_game
from events.schema import Player, Rules
from events.store import Appended, EventStore

#: Appends to one stream before the next: about a six-round game's events, so the
#: benchmark measures streams as long as games make them, however many rounds it runs.
APPENDS_PER_STREAM = 150


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


@pytest.fixture
def bench_store(loop: asyncio.AbstractEventLoop, redis_url: str, namespace: str) -> Iterator[EventStore]:
    store = EventStore.from_url(redis_url, namespace=namespace)
    yield store
    loop.run_until_complete(store.close())


def six_round_game() -> tuple[list[Event], LoggedGame]:
    seats = tuple(Player(seat=seat, name=f"p{seat}") for seat in range(6))
    log, logged = new_game("six", seats, rounds=6, rules=Rules(), seed=6)
    while not logged.finished:
        card, cauldron = logged.game.legal_moves()[0]
        caused, logged = move(logged, logged.game.turn, card, cauldron)
        log += caused
    return log, logged


def appender(
    loop: asyncio.AbstractEventLoop, store: EventStore, events: list[Event]
) -> tuple[Callable[[], Appended], list[tuple[str, int, Appended]]]:
    """A function appending `events` once per call, each time at the version the stream is
    at: stream and version both come from one count of calls, so moving on to a fresh
    stream starts it at version 0. Also the record of every call (stream, expected
    version, what the store answered), to check them all afterwards."""
    calls = itertools.count()
    record: list[tuple[str, int, Appended]] = []

    def append() -> Appended:
        call = next(calls)
        stream, expected = f"append{call // APPENDS_PER_STREAM}", (call % APPENDS_PER_STREAM) * len(events)
        appended = loop.run_until_complete(store.append(stream, events, expected))
        record.append((stream, expected, appended))
        return appended

    return append, record


def check_appends(
    loop: asyncio.AbstractEventLoop, store: EventStore, events: list[Event], record: list[tuple[str, int, Appended]]
) -> None:
    """Every append landed just after the version it expected, and each stream holds
    exactly what was appended to it."""
    assert record != []
    for _, expected, appended in record:
        assert (appended.version, appended.count, appended.replayed) == (expected + len(events), len(events), False)
    last: dict[str, int] = {}
    for stream, _, appended in record:
        last[stream] = appended.version
    for stream, version in last.items():
        assert loop.run_until_complete(store.version(stream)) == version


def one_move() -> list[Event]:
    log, _ = six_round_game()
    return log[2:4]  # a card and what it caused


@pytest.mark.benchmark(group="store")
def test_append_one_move(benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, bench_store: EventStore) -> None:
    events = one_move()
    append, record = appender(loop, bench_store, events)
    benchmark(append)
    check_appends(loop, bench_store, events, record)


def test_the_append_benchmark_starts_each_new_stream_at_version_zero(
    loop: asyncio.AbstractEventLoop, bench_store: EventStore
) -> None:
    # Untimed, and past two changes of stream: the benchmark must survive any number of
    # rounds (it once kept counting versions into a fresh stream and failed at round 1,001).
    events = one_move()
    append, record = appender(loop, bench_store, events)
    for _ in range(2 * APPENDS_PER_STREAM + 1):
        append()
    check_appends(loop, bench_store, events, record)
    assert [stream for stream, _, _ in record[::APPENDS_PER_STREAM]] == ["append0", "append1", "append2"]


@pytest.mark.benchmark(group="store")
def test_load_a_finished_six_round_game(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, bench_store: EventStore
) -> None:
    log, finished = six_round_game()
    loop.run_until_complete(bench_store.append("six", log, 0))

    def load() -> LoggedGame:
        return loop.run_until_complete(Games(bench_store).load("six"))  # a cold cache each time

    loaded = benchmark(load)
    assert loaded.version == len(log) > 300
    assert loaded.finished
    assert loaded.game.round_results() == finished.game.round_results()
