"""Deadlines on the real 3+3 cluster: every write of the deadline index (an append's ENTER
and ZADD, a worker's CLAIM and SETTLE) is acknowledged only once a replica has it, so a
failover keeps it; and a master killed while games' deadlines are pending, in its slots
and on the other masters', loses and doubles none once its replica is promoted."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import uuid
from pathlib import Path

import httpx
import pytest

from events.clocks import Deadlines
from events.cluster import LocalCluster
from events.listing import shard_of
from events.pipelined import PipelinedConnection, Replication
from events.slots import slot_of
from events.store import StoreUnavailable
from tests.cluster.test_connection import master_of
from tests.service.clocked import abandoned, create_clocked, each_timed_out_once
from tests.service.served import serving

pytestmark = [pytest.mark.anyio, pytest.mark.cluster]

#: Seconds per move: the deadlines of the first seats come due while the failover goes on.
SECONDS = 3


def replica_of(cluster: LocalCluster, key: str) -> int:
    slot = slot_of(key)
    return next(followers[0] for first, last, _, followers in cluster.slots() if first <= slot <= last)


async def test_every_write_of_the_deadline_index_waits_for_a_replica(cluster: LocalCluster):
    wire = PipelinedConnection(cluster.url, timeout=2.0, replication=Replication.REPLICAS)
    deadlines = Deadlines(wire, namespace=f"k{uuid.uuid4().hex[:8]}")
    game = "waited"
    key = deadlines.index_key(shard_of(game))
    process = cluster.node_on(replica_of(cluster, key)).process
    assert process is not None
    try:
        await deadlines.set(game, 1_000)
        # The scripts once each, doing nothing, so that the node has them (a NOSCRIPT's second
        # send would queue behind the first wait).
        await deadlines.enter(game, 1_000)
        await deadlines.claim(shard_of(game), 0, 0)
        await deadlines.settle(game, 0, None)
        with cluster.node_on(replica_of(cluster, key)).client() as client:
            client.execute_command("READONLY")
            assert client.zscore(key, game) == 1_000  # the replica had it before we were told
        os.kill(process.pid, signal.SIGSTOP)
        try:
            # All at once, so that the replica is held for one wait only: each is refused
            # NOREPLICAS, none done without a replica's word.
            refused = await asyncio.gather(
                deadlines.enter(game, 500),
                deadlines.set(game, 2_000),
                deadlines.claim(shard_of(game), 3_000, 8_000),
                deadlines.settle(game, 8_000, None),
                return_exceptions=True,
            )
        finally:
            os.kill(process.pid, signal.SIGCONT)
        assert [type(error) for error in refused] == [StoreUnavailable] * 4, refused
        assert all("NOREPLICAS" in str(error) for error in refused), [str(error) for error in refused]
    finally:
        await wire.close()
        cluster.wait_until_ok(30)


def test_a_master_killed_with_deadlines_pending_loses_and_doubles_none_after_the_failover(
    cluster: LocalCluster, tmp_path: Path
):
    namespace = f"k{uuid.uuid4().hex[:8]}"
    settings = {"POISON_REDIS_URL": cluster.url, "POISON_NAMESPACE": namespace}
    settings["POISON_SECRET_KEY"] = secrets.token_urlsafe(32)
    with serving(tmp_path / "a", workers=2, **settings) as base, httpx.Client(base_url=base, timeout=15) as http:
        games = [create_clocked(http, SECONDS, seed).game_id for seed in range(24)]
        index = {game: master_of(cluster, slot_of(f"{namespace}:clock:due:{{{shard_of(game)}}}")) for game in games}
        logs = {game: master_of(cluster, slot_of(f"{{{game}}}")) for game in games}
        victim_port = index[games[0]]
        # The victim holds deadlines of some games, the other masters those of the rest, and
        # the logs of some games are its too.
        assert 0 < sum(port == victim_port for port in index.values()) < len(games)
        assert victim_port in logs.values()
        victim = cluster.node_on(victim_port)
        victim.kill()  # kill -9, before the first seats' deadlines
        try:
            abandoned(http, games, seconds=120)
            each_timed_out_once(http, games)
        finally:
            victim.start()  # back, as its promoted replica's replica
            cluster.wait_until_ok(30)
