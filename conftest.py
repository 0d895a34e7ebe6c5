"""Fixtures shared by the tests and the benchmarks: a real Redis-compatible server.

The server is the embedded one the product itself starts (events.server), in a temporary
data directory; no test fakes or mocks the store. Each test gets its own key namespace, so
tests never see each other's games.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio

from events.cluster import LocalCluster
from events.server import EmbeddedServer
from events.store import EventStore

# make check leaves out the slow kinds of test, and tests.tiers holds each test to its
# marker; tests.leaks reports an unclosed socket or file against the module that left it.
pytest_plugins = ["tests.tiers", "tests.leaks"]


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServer]:
    server = EmbeddedServer(tmp_path_factory.mktemp("store"))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """A real Redis Cluster for the cluster tests: three masters and a replica of each,
    formed once per test session from the embedded server's binary (events/cluster.py),
    for tests marked `cluster` only (tests/cluster/, and the recorder's contract suite)."""
    cluster = LocalCluster(tmp_path_factory.mktemp("cluster"))
    cluster.start()
    yield cluster
    cluster.stop()


@pytest.fixture
def redis_url(redis_server: EmbeddedServer) -> str:
    return redis_server.url


@pytest.fixture
def namespace() -> str:
    return f"test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def store(redis_url: str, namespace: str) -> AsyncIterator[EventStore]:
    store = EventStore.from_url(redis_url, namespace=namespace)
    yield store
    await store.close()


@pytest.fixture
async def raw(redis_url: str) -> AsyncIterator[redis.asyncio.Redis]:
    """A plain client of the session's store, for tests that read what the store holds."""
    connection = redis.asyncio.from_url(redis_url)
    yield connection
    await connection.aclose()
