"""Speed of the store's connection on one node and on a 3+3 cluster, in one run (group
`store-cluster`).

Each round is 640 scripted appends (a game's stream and summary, one slot, at an expected
version, as the store's append is) from 64 concurrent games through one PipelinedConnection:
on the session's embedded server, and on a local cluster of the same binary (three masters,
a replica of each, formed by this module) with and without waiting for a replica (WAIT 1
after each turn's writes, the `auto` default there). The store's own append cannot run on a
cluster yet (its script declares the global listing index: /work/spec/s5/D-store-plan.md),
so this measures the connection under it. Each round checks every append landed at the
version it expected. On 2 cores a cluster brings capacity and availability, not speed.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import uuid
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from events.cluster import LocalCluster
from events.pipelined import PipelinedConnection, Replication

GAMES = 64  # appending at once
APPENDS = 10  # by each game, in a round
APPEND = """
local version = redis.call('XLEN', KEYS[1])
if version ~= tonumber(ARGV[1]) then return {'conflict', version} end
redis.call('XADD', KEYS[1], '0-' .. (version + 1), 'd', ARGV[2])
redis.call('HSET', KEYS[2], 'version', version + 1)
return {'appended', version + 1}
"""
APPEND_SHA = hashlib.sha1(APPEND.encode()).hexdigest()
EVENT = b"\x93\x01\x02\x03" * 16  # a move's worth of msgpack


@pytest.fixture(scope="module")
def local_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    cluster = LocalCluster(Path(tmp_path_factory.mktemp("bench-cluster")))
    cluster.start()
    yield cluster
    cluster.stop()


def rounds_of_appends(url: str, replication: Replication) -> Generator[int, None, None]:
    """An endless run of rounds on fresh games; each round's count of appends made."""
    loop = asyncio.new_event_loop()
    wire = PipelinedConnection(url, replication=replication)
    rounds = itertools.count()
    run = uuid.uuid4().hex[:8]  # games of this run only

    async def game(name: str) -> int:
        keys = [f"bench:{{{name}}}:events", f"bench:{{{name}}}:summary"]
        for version in range(APPENDS):
            reply = await wire.script(APPEND_SHA, APPEND, keys, [version, EVENT])
            assert reply == [b"appended", version + 1]
        return APPENDS

    async def one_round() -> int:
        number = next(rounds)
        return sum(await asyncio.gather(*(game(f"{run}-r{number}-g{n}") for n in range(GAMES))))

    try:
        while True:
            yield loop.run_until_complete(one_round())
    finally:
        loop.run_until_complete(wire.close())
        loop.close()


def measure(benchmark: BenchmarkFixture, url: str, replication: Replication) -> None:
    appending = rounds_of_appends(url, replication)
    try:
        made = benchmark.pedantic(lambda: next(appending), rounds=5, warmup_rounds=1)
        assert made == GAMES * APPENDS
        benchmark.extra_info["appends_per_round"] = GAMES * APPENDS
    finally:
        appending.close()


@pytest.mark.benchmark(group="store-cluster")
def test_appends_on_one_node(benchmark: BenchmarkFixture, redis_url: str) -> None:
    measure(benchmark, redis_url, Replication.AUTO)


@pytest.mark.benchmark(group="store-cluster")
def test_appends_on_a_cluster_waiting_for_a_replica(benchmark: BenchmarkFixture, local_cluster: LocalCluster) -> None:
    measure(benchmark, local_cluster.url, Replication.AUTO)


@pytest.mark.benchmark(group="store-cluster")
def test_appends_on_a_cluster_without_waiting(benchmark: BenchmarkFixture, local_cluster: LocalCluster) -> None:
    measure(benchmark, local_cluster.url, Replication.NONE)
