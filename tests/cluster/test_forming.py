"""Forming a local cluster from the embedded binary, and starting it again on its data."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from events.cluster import SLOTS, LocalCluster

pytestmark = pytest.mark.cluster


def owner_of(cluster: LocalCluster, key: str) -> int:
    """The port of the master that serves `key`, by the cluster's own hashing."""
    with cluster.nodes[0].client() as client:
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
    with cluster.node_on(owner).client() as client:
        client.set("{kept}:x", "still here")
    cluster.stop()
    cluster.start()
    assert cluster.slots() == before
    with cluster.node_on(owner).client() as client:
        assert client.get("{kept}:x") == b"still here"


def test_every_node_refuses_a_client_without_the_password_and_keeps_its_files_to_itself(cluster: LocalCluster):
    for node in cluster.nodes:
        with socket.create_connection(("127.0.0.1", node.port or 0), timeout=5) as stranger:
            stranger.sendall(b"CLUSTER NODES\r\n")
            assert stranger.recv(100) == b"-NOAUTH Authentication required.\r\n"
        assert node.password == cluster.password
        assert node.process is not None
        assert cluster.password.encode() not in Path(f"/proc/{node.process.pid}/cmdline").read_bytes()
    entries = [cluster.directory, *cluster.directory.rglob("*")]
    assert {cluster.directory / "password", cluster.directory / "node-0" / "nodes.conf"} <= set(entries)
    loose = {str(path): oct(path.stat().st_mode & 0o777) for path in entries if path.stat().st_mode & 0o077}
    assert loose == {}


def blocked_signals(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"SigBlk:\s*([0-9a-f]+)", status)[1], 16)  # type: ignore[index]


@pytest.mark.parametrize("sigint", [signal.SIG_DFL, signal.SIG_IGN], ids=["in a terminal", "a background job"])
def test_the_cluster_command_starts_nodes_that_hear_sigterm_and_stops_them_all_at_ctrl_c(tmp_path, sigint):
    # `python -m events.cluster` (make cluster) waits for Ctrl-C with the signals blocked:
    # blocked before its children started, they inherited the mask, ignored SIGTERM and were
    # left running. Its first line must come once they are blocked: a SIGINT sent as soon as
    # it appears, to a command that ignores SIGINT (a script's background job), was dropped
    # before the block, and sigwait then waited for ever.
    command = [sys.executable, "-m", "events.cluster", str(tmp_path / "nodes")]
    with subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),
    ) as main:
        try:
            assert main.stdout is not None
            said = main.stdout.readline() + main.stdout.readline()
            assert said.startswith("cluster: redis://:***@127.0.0.1:")
            assert f"its password: in {tmp_path / 'nodes' / 'password'}" in said
            assert (tmp_path / "nodes" / "password").read_text().strip() not in said
            nodes = [int(pid) for pid in Path(f"/proc/{main.pid}/task/{main.pid}/children").read_text().split()]
            assert len(nodes) == 6
            for node in nodes:
                assert not blocked_signals(node) & (1 << (signal.SIGTERM - 1))
            main.send_signal(signal.SIGINT)
            assert main.wait(15) == 0
        finally:
            if main.poll() is None:
                main.kill()
    assert all(not Path(f"/proc/{node}").exists() for node in nodes)
