"""A local Redis Cluster of embedded servers: three masters and a replica of each.

For the tests, `make cluster` and anyone who wants to see the store on a cluster without
installing anything: the nodes are the embedded server's binary (events/server.py) run in
cluster mode, each with its own data directory under one directory of ours, and the cluster
is formed from Python alone (the binary ships no `valkey-cli`): each master is given its
third of the 16384 slots and its own config epoch, one node meets the others, each replica
follows its master, then we wait until every node says `cluster_state:ok`, every replica's
link to its master is up and every node answers the same `CLUSTER SLOTS`.

The ports are chosen once and kept in `ports.json` in the directory, because each node's
`nodes.conf` names its peers by port: started again on the same directory, the cluster
recovers from those files and is not formed again. So is its password (`password`, mode
0600, like every file there): every node requires it of clients, and replicas give it to
their masters (events/server.py), so the nodes' URLs are the same each time. The cluster bus
(the nodes' own port to each other) has no password in Valkey: it is bound to loopback.

Node timeout is 1 s (the default 15 s would leave a dead master's games without a store
for longer than that): a replica is promoted soon after its master dies (figures:
docs/performance.md). Full coverage is not required: while a master is lost, the games of
the other masters go on.
"""

from __future__ import annotations

import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import redis

from events.credentials import new_password
from events.server import EmbeddedServer, free_port, private_directory, write_private
from events.slots import SLOTS

NODE_TIMEOUT_MS = 1000


class ClusterFailed(RuntimeError):
    """The cluster did not form, or did not come back, in time."""


def _node_arguments(cluster_port: int, node_timeout_ms: int) -> list[str]:
    return [
        "--cluster-enabled",
        "yes",
        "--cluster-config-file",
        "nodes.conf",  # in the node's --dir
        "--cluster-port",
        str(cluster_port),
        "--cluster-node-timeout",
        str(node_timeout_ms),
        # A lost master stops its own games only, not every game (the default: the whole
        # cluster refuses commands, CLUSTERDOWN, until a replica is promoted).
        "--cluster-require-full-coverage",
        "no",
        # A replica's first full copy starts at once rather than after the default 5 s.
        "--repl-diskless-sync-delay",
        "0",
    ]


class LocalCluster:
    """`masters` masters and `replicas` replicas of each on loopback, in `directory`."""

    def __init__(
        self, directory: Path | str, *, masters: int = 3, replicas: int = 1, node_timeout_ms: int = NODE_TIMEOUT_MS
    ) -> None:
        if masters < 3:
            raise ValueError(f"a cluster that can fail over needs at least 3 masters, not {masters}")
        self.directory = Path(directory).resolve()
        self.masters = masters
        self.replicas = replicas
        self.node_timeout_ms = node_timeout_ms
        self.nodes: list[EmbeddedServer] = []
        self.password = ""  # the nodes', read or made when the cluster starts

    # -- addresses ----------------------------------------------------------------------

    @property
    def url(self) -> str:
        """Any node will do for a cluster-aware client: the first master's."""
        return self.nodes[0].url

    @property
    def urls(self) -> list[str]:
        return [node.url for node in self.nodes]

    @property
    def password_path(self) -> Path:
        return self.directory / "password"

    def _password(self) -> str:
        """The nodes' password, made once for the directory (its owner's alone to read)."""
        if self.password_path.exists():
            return self.password_path.read_text().strip()
        password = new_password()
        write_private(self.password_path, password + "\n")
        return password

    def _ports(self) -> list[tuple[int, int]]:
        """(port, cluster bus port) of each node, chosen once for the directory."""
        recorded = self.directory / "ports.json"
        if recorded.exists():
            ports = [tuple(pair) for pair in json.loads(recorded.read_text())]
            if len(ports) != self.masters * (1 + self.replicas):
                raise ClusterFailed(f"{recorded} names {len(ports)} nodes, not {self.masters * (1 + self.replicas)}")
            return [(int(port), int(bus)) for port, bus in ports]
        chosen: set[int] = set()
        while len(chosen) < 2 * self.masters * (1 + self.replicas):
            chosen.add(free_port())
        ordered = sorted(chosen)
        pairs = list(zip(ordered[0::2], ordered[1::2], strict=True))
        write_private(recorded, json.dumps(pairs))
        return pairs

    # -- starting and stopping ------------------------------------------------------------

    def start(self, timeout: float = 30.0) -> str:
        """Start every node; form the cluster unless it was formed before in this
        directory; wait until it serves every slot. Return a node's URL."""
        private_directory(self.directory)
        formed = (self.directory / "node-0" / "nodes.conf").exists()
        deadline = time.monotonic() + timeout
        self.password = self._password()
        try:
            self.nodes = []
            for index, (port, bus) in enumerate(self._ports()):
                node = EmbeddedServer(
                    self.directory / f"node-{index}",
                    port=port,
                    arguments=_node_arguments(bus, self.node_timeout_ms),
                    password=self.password,
                )
                node.start(timeout)
                self.nodes.append(node)
            if not formed:
                self._form(deadline)
            self.wait_until_ok(deadline - time.monotonic())
        except BaseException:
            self.stop()
            raise
        return self.url

    def stop(self) -> None:
        """Stop every node, all at once (each flushes its append-only file first)."""
        with ThreadPoolExecutor(max(len(self.nodes), 1)) as pool:
            list(pool.map(EmbeddedServer.stop, self.nodes))

    def __enter__(self) -> LocalCluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- forming ------------------------------------------------------------------------

    def _form(self, deadline: float) -> None:
        masters = self.nodes[: self.masters]
        replicas = self.nodes[self.masters :]
        share = SLOTS // self.masters
        for index, node in enumerate(masters):
            first = index * share
            last = SLOTS - 1 if index == self.masters - 1 else first + share - 1
            with _client(node) as client:
                client.execute_command("CLUSTER", "ADDSLOTSRANGE", first, last)
                # Distinct epochs, so that no two masters must settle a tie before the
                # cluster agrees on who owns what.
                client.execute_command("CLUSTER", "SET-CONFIG-EPOCH", index + 1)
        ports = self._ports()
        with _client(self.nodes[0]) as client:
            for port, bus in ports[1:]:
                client.execute_command("CLUSTER", "MEET", "127.0.0.1", port, bus)
        master_ids = [self._node_id(node) for node in masters]
        for index, replica in enumerate(replicas):
            master_id = master_ids[index % self.masters]
            with _client(replica) as client:
                # The replica must have heard of its master (by gossip) before it can follow it.
                _until(
                    deadline,
                    f"node {replica.port} to learn of {master_id}",
                    lambda c=client, m=master_id: m in _known(c),
                )
                client.execute_command("CLUSTER", "REPLICATE", master_id)

    @staticmethod
    def _node_id(node: EmbeddedServer) -> str:
        with _client(node) as client:
            return str(_text(client.execute_command("CLUSTER", "MYID")))

    def wait_until_ok(self, timeout: float = 30.0) -> None:
        """Until every node running says the cluster is ok and agrees on its slots, and every
        replica's link to its master is up."""
        deadline = time.monotonic() + max(timeout, 0.0)
        running = [node for node in self.nodes if node.process is not None]
        clients = [_client(node) for node in running]
        try:
            for client, node in zip(clients, running, strict=True):
                _until(deadline, f"node {node.port} to say cluster_state:ok", lambda c=client: _cluster_ok(c))
            for client, node in zip(clients, running, strict=True):
                _until(deadline, f"node {node.port} to be linked to its master", lambda c=client: _linked(c))
            _until(
                deadline,
                "every node to answer the same CLUSTER SLOTS",
                lambda: len({_slots_seen(client) for client in clients}) == 1,
            )
        finally:
            for client in clients:
                client.close()

    # -- what it looks like ---------------------------------------------------------------

    def slots(self) -> list[tuple[int, int, int, list[int]]]:
        """(first slot, last slot, master's port, replicas' ports) of each range, as a
        running node sees them."""
        node = next(node for node in self.nodes if node.process is not None)
        with _client(node) as client:
            rows = client.execute_command("CLUSTER", "SLOTS")
        return sorted((int(row[0]), int(row[1]), int(row[2][1]), [int(r[1]) for r in row[3:]]) for row in rows)

    def node_on(self, port: int) -> EmbeddedServer:
        return next(node for node in self.nodes if node.port == port)


def _client(node: EmbeddedServer) -> redis.Redis:
    return node.client(socket_timeout=2, socket_connect_timeout=2)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _known(client: redis.Redis) -> str:
    return _text(client.execute_command("CLUSTER", "NODES"))


def _cluster_ok(client: redis.Redis) -> bool:
    return "cluster_state:ok" in _text(client.execute_command("CLUSTER", "INFO"))


def _linked(client: redis.Redis) -> bool:
    info = client.info("replication")
    return info.get("role") == "master" or info.get("master_link_status") == "up"


def _slots_seen(client: redis.Redis) -> str:
    rows = client.execute_command("CLUSTER", "SLOTS")
    return repr(sorted((row[0], row[1], row[2][1], tuple(sorted(r[1] for r in row[3:]))) for row in rows))


def _until(deadline: float, what: str, condition: Any) -> None:
    while True:
        try:
            if condition():
                return
        except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError):
            pass  # a node still starting, or still loading its data
        if time.monotonic() > deadline:
            raise ClusterFailed(f"the local cluster did not form in time: waited for {what}")
        time.sleep(0.02)


def main(argv: list[str] | None = None) -> int:
    """`python -m events.cluster [DIRECTORY] [--serve N] [--port P]`: run a local 3+3
    cluster (and N `poison serve` processes on it, on ports P, P+1, ..., each given another
    master's URL) until interrupted."""
    import argparse
    import signal
    import subprocess

    parser = argparse.ArgumentParser(prog="python -m events.cluster", description=main.__doc__)
    parser.add_argument("directory", nargs="?", default="poison-cluster", help="the nodes' data (default: %(default)s)")
    parser.add_argument("--serve", type=int, default=0, metavar="N", help="poison serve processes to start on it")
    parser.add_argument(
        "--port", type=int, default=8000, metavar="P", help="the first one's port (default: %(default)s)"
    )
    options = parser.parse_args(argv)
    if not 0 <= options.serve <= 16:
        parser.error(f"--serve must be between 0 and 16, not {options.serve}")
    cluster = LocalCluster(options.directory)
    cluster.start()
    services: list[subprocess.Popen[bytes]] = []
    try:
        said = [
            "cluster: " + " ".join(node.shown_url for node in cluster.nodes),
            f"its password: in {cluster.password_path} (yours alone to read)",
        ]
        masters = cluster.nodes[: cluster.masters]
        for n in range(options.serve):
            port, node = options.port + n, masters[n % len(masters)]
            command = [sys.executable, "-m", "service.cli", "serve", "--port", str(port)]
            # The URL in the environment, not the arguments: those every user can read (`ps`).
            environment = {**os.environ, "POISON_REDIS_URL": node.url}
            services.append(subprocess.Popen(command, env=environment, start_new_session=True))
            said.append(f"poison serve on http://127.0.0.1:{port} (store: {node.shown_url})")
        # Blocked only now, for sigwait: a child inherits a blocked mask across exec, and the
        # nodes and services started with SIGTERM blocked would never hear it. Said only
        # once blocked: a signal sent as soon as the lines appear is then held for sigwait,
        # even where it is ignored (a script's background job ignores SIGINT, and an ignored
        # signal that is not blocked is dropped, leaving sigwait to wait for ever).
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        print("\n".join(said), flush=True)
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    except KeyboardInterrupt:
        pass  # Ctrl-C while starting: stop what started
    finally:
        try:
            for service in services:
                service.send_signal(signal.SIGTERM)
            for service in services:
                try:
                    service.wait(30)
                except subprocess.TimeoutExpired:
                    service.kill()
                    service.wait()
        finally:
            cluster.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
