"""A real Redis Cluster for the cluster tests: three masters and a replica of each, formed
once per test session from the embedded server's binary (events/cluster.py, about 2 s)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from events.cluster import LocalCluster


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    cluster = LocalCluster(tmp_path_factory.mktemp("cluster"))
    cluster.start()
    yield cluster
    cluster.stop()
