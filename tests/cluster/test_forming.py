"""Forming a local cluster from the embedded binary, and starting it again on its data."""

from __future__ import annotations

import redis

from events.cluster import SLOTS, LocalCluster


def owner_of(cluster: LocalCluster, key: str) -> int:
    """The port of the master that serves `key`, by the cluster's own hashing."""
    with redis.Redis(port=cluster.nodes[0].port) as client:
        slot = int(client.execute_command("CLUSTER", "KEYSLOT", key))
    return next(port for first, last, port, _ in cluster.slots() if first <= slot <= last)


def test_the_cluster_serves_every_slot_from_three_masters_each_with_a_replica(cluster: LocalCluster):
    ranges = cluster.slots()  # other tests may have moved a slot, or failed a master over
    served = [slot for first, last, _, _ in ranges for slot in range(first, last + 1)]
    assert served == list(range(SLOTS))
    masters = {master for _, _, master, _ in ranges}
    replicas = {replica for _, _, _, followers in ranges for replica in followers}
    assert len(masters) == 3
    assert len(replicas) == 3
    assert not masters & replicas


def test_a_cluster_stopped_and_started_again_on_its_directory_recovers_its_slots_and_data(cluster: LocalCluster):
    before = cluster.slots()
    owner = owner_of(cluster, "{kept}:x")
    with redis.Redis(port=owner) as client:
        client.set("{kept}:x", "still here")
    cluster.stop()
    cluster.start()
    assert cluster.slots() == before
    with redis.Redis(port=owner) as client:
        assert client.get("{kept}:x") == b"still here"
