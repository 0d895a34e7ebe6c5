"""The event store on one node and on a 3+3 Redis Cluster, in one run (group `store-cluster`).

Appends: each round is 640 of the store's own appends (`EventStore.append`: the one script,
in the game's slot, at an expected version) from 64 games at once, one event each (a game's
first ten, one append apiece), on the session's embedded server and on a local cluster of
the same binary (three masters, a replica of each, formed by this module), waiting for a
replica after each turn's writes (the `auto` default where there are replicas) and not.
Loads: a finished six-round game loaded from a cold cache (`Games.load`: its finished copy,
one GET) on each. Every round checks its result: each append at the version it expected,
each load the game's scores. On 2 cores a cluster brings capacity and availability, not
speed: six servers fsync on the same disk.
"""

from __future__ import annotations

import asyncio
import itertools
import uuid
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks.test_store import has_finished_copy, six_round_game
from events.cluster import LocalCluster
from events.games import Games
from events.pipelined import Replication
from events.poison.schema import CODEC
from events.store import EventStore
from tests.events.logs import game_log

GAMES = 64  # appending at once
APPENDS = 10  # by each game, in a round
LOG, _ = game_log(4, seed=64)  # its first APPENDS events are appended one at a time


@pytest.fixture(scope="module")
def local_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    cluster = LocalCluster(Path(tmp_path_factory.mktemp("bench-cluster")))
    cluster.start()
    yield cluster
    cluster.stop()


def store_on(url: str, replication: Replication) -> EventStore:
    store = EventStore.from_url(url, namespace=f"bench-{uuid.uuid4().hex[:8]}")
    store.recorder.wire.replication = replication  # read when it first connects, as events.connect sets it
    return store


def rounds_of_appends(url: str, replication: Replication) -> Generator[int, None, None]:
    """An endless run of rounds on fresh games; each round's count of appends made."""
    loop = asyncio.new_event_loop()
    store = store_on(url, replication)
    rounds = itertools.count()

    async def game(game_id: str) -> int:
        for version in range(APPENDS):
            appended = await store.append(game_id, [LOG[version]], version, codec=CODEC)
            assert appended.first_version == version + 1
        return APPENDS

    async def one_round() -> int:
        number = next(rounds)
        return sum(await asyncio.gather(*(game(f"r{number}-g{n}") for n in range(GAMES))))

    try:
        while True:
            yield loop.run_until_complete(one_round())
    finally:
        loop.run_until_complete(store.close())
        loop.close()


def measure_appends(benchmark: BenchmarkFixture, url: str, replication: Replication) -> None:
    appending = rounds_of_appends(url, replication)
    try:
        made = benchmark.pedantic(lambda: next(appending), rounds=5, warmup_rounds=1)
        assert made == GAMES * APPENDS
        benchmark.extra_info["appends_per_round"] = GAMES * APPENDS
    finally:
        appending.close()


def measure_load(benchmark: BenchmarkFixture, url: str) -> None:
    log, finished = six_round_game()
    loop = asyncio.new_event_loop()
    store = store_on(url, Replication.AUTO)
    try:
        loop.run_until_complete(store.append("six", log, 0, codec=CODEC))
        assert has_finished_copy(loop, store, "six")  # what a cold load of it reads

        def load() -> Games:
            games = Games(store)  # a cold cache each time
            loop.run_until_complete(games.load("six"))
            return games

        games = benchmark.pedantic(load, rounds=200, warmup_rounds=5)
        loaded = loop.run_until_complete(games.load("six"))
        assert loaded.version == len(log) > 300
        assert loaded.game.results() == finished.game.results()
    finally:
        loop.run_until_complete(store.close())
        loop.close()


@pytest.mark.benchmark(group="store-cluster")
def test_appends_on_one_node(benchmark: BenchmarkFixture, redis_url: str) -> None:
    measure_appends(benchmark, redis_url, Replication.AUTO)


@pytest.mark.cluster
@pytest.mark.benchmark(group="store-cluster")
def test_appends_on_a_cluster_waiting_for_a_replica(benchmark: BenchmarkFixture, local_cluster: LocalCluster) -> None:
    measure_appends(benchmark, local_cluster.url, Replication.AUTO)


@pytest.mark.cluster
@pytest.mark.benchmark(group="store-cluster")
def test_appends_on_a_cluster_without_waiting(benchmark: BenchmarkFixture, local_cluster: LocalCluster) -> None:
    measure_appends(benchmark, local_cluster.url, Replication.NONE)


@pytest.mark.benchmark(group="store-cluster")
def test_load_a_finished_game_on_one_node(benchmark: BenchmarkFixture, redis_url: str) -> None:
    measure_load(benchmark, redis_url)


@pytest.mark.cluster
@pytest.mark.benchmark(group="store-cluster")
def test_load_a_finished_game_on_a_cluster(benchmark: BenchmarkFixture, local_cluster: LocalCluster) -> None:
    measure_load(benchmark, local_cluster.url)
