"""The pipelined connection on a real 3+3 cluster: given any node's URL it finds the
cluster, routes each command to its slot's primary, follows a slot that moved, loads a
script a node lacks, and waits for a replica after a replicated write."""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import time
import uuid

import pytest
from redis.exceptions import ResponseError, TryAgainError

from events.cluster import LocalCluster
from events.pipelined import NotReplicated, PipelinedConnection, Replication
from events.slots import slot_of

pytestmark = [pytest.mark.anyio, pytest.mark.cluster]

APPEND = """
-- KEYS: a game's stream and its summary (one slot); ARGV: expected version, event
local version = redis.call('XLEN', KEYS[1])
if version ~= tonumber(ARGV[1]) then return {'conflict', version} end
redis.call('XADD', KEYS[1], '0-' .. (version + 1), 'e', ARGV[2])
redis.call('HSET', KEYS[2], 'version', version + 1)
return {'appended', version + 1}
"""
APPEND_SHA = hashlib.sha1(APPEND.encode()).hexdigest()


def master_of(cluster: LocalCluster, slot: int) -> int:
    return next(port for first, last, port, _ in cluster.slots() if first <= slot <= last)


def game_keys(game: str) -> list[str]:
    return [f"poison:{{{game}}}:events", f"poison:{{{game}}}:summary"]


@pytest.fixture
def prefix() -> str:
    return f"c{uuid.uuid4().hex[:8]}"


@pytest.fixture
async def wire(cluster: LocalCluster):
    connection = PipelinedConnection(cluster.url, timeout=2.0)
    yield connection
    await connection.close()


def test_slots_computed_here_are_the_clusters_own(cluster: LocalCluster):
    keys = ["poison:{g1}:events", "{}x", "a{}{b}", "{only", "close}{", "plain", "é{ü}", "x{y}z{w}", ""]
    keys += [f"poison:{{game-{n}}}:summary" for n in range(200)]
    with cluster.nodes[0].client() as client:
        assert [slot_of(key) for key in keys] == [client.execute_command("CLUSTER", "KEYSLOT", key) for key in keys]


async def test_any_node_of_the_cluster_even_a_replica_is_a_url_that_just_works(cluster: LocalCluster, prefix):
    for node in cluster.nodes:
        wire = PipelinedConnection(node.url)
        try:
            await wire.execute("SET", f"{prefix}:{node.port}", "reached")
            assert wire.cluster is not None
            assert await wire.execute("GET", f"{prefix}:{node.port}") == b"reached"
        finally:
            await wire.close()


async def test_a_multi_key_script_of_one_game_runs_on_its_slots_primary(cluster: LocalCluster, wire, prefix):
    game = f"{prefix}-game"
    replies = [await wire.script(APPEND_SHA, APPEND, game_keys(game), [n, f"move {n}"]) for n in range(3)]
    assert replies == [[b"appended", 1], [b"appended", 2], [b"appended", 3]]
    assert await wire.script(APPEND_SHA, APPEND, game_keys(game), [1, "late"]) == [b"conflict", 3]
    with cluster.node_on(master_of(cluster, slot_of(game_keys(game)[0]))).client() as owner:
        assert owner.xlen(game_keys(game)[0]) == 3


async def test_the_games_spread_over_the_three_masters_and_each_is_read_back_whole(cluster: LocalCluster, wire, prefix):
    games = [f"{prefix}-{n}" for n in range(60)]
    await asyncio.gather(*(wire.script(APPEND_SHA, APPEND, game_keys(game), [0, game]) for game in games))
    owners = {master_of(cluster, slot_of(game_keys(game)[0])) for game in games}
    assert len(owners) == 3
    read = await asyncio.gather(*(wire.execute("XRANGE", game_keys(game)[0], "-", "+") for game in games))
    assert [entries[0][1] for entries in read] == [[b"e", game.encode()] for game in games]


async def test_a_script_a_node_lost_is_sent_again_by_its_source(cluster: LocalCluster, wire, prefix):
    game = f"{prefix}-flushed"
    assert await wire.script(APPEND_SHA, APPEND, game_keys(game), [0, "first"]) == [b"appended", 1]
    owner = master_of(cluster, slot_of(game_keys(game)[0]))
    with cluster.node_on(owner).client() as client:
        client.script_flush()
        assert client.script_exists(APPEND_SHA) == [False]
        assert await wire.script(APPEND_SHA, APPEND, game_keys(game), [1, "second"]) == [b"appended", 2]
        assert client.script_exists(APPEND_SHA) == [True]


async def test_a_slot_moved_by_migrateslots_is_followed_without_an_error(cluster: LocalCluster, wire, prefix):
    game = f"{prefix}-moving"
    slot = slot_of(game_keys(game)[0])
    assert await wire.script(APPEND_SHA, APPEND, game_keys(game), [0, "before"]) == [b"appended", 1]
    source = master_of(cluster, slot)
    target = next(port for _, _, port, _ in cluster.slots() if port != source)
    with cluster.node_on(target).client() as client:
        target_id = client.execute_command("CLUSTER", "MYID").decode()
    with cluster.node_on(source).client() as client:
        client.execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", slot, slot, "NODE", target_id)
    deadline = time.monotonic() + 10
    while master_of(cluster, slot) != target:  # the wire's map still says: source
        assert time.monotonic() < deadline
        await asyncio.sleep(0.02)
    assert await wire.script(APPEND_SHA, APPEND, game_keys(game), [1, "after"]) == [b"appended", 2]
    assert wire.cluster.slots[slot] is wire.cluster.node("127.0.0.1", target)  # learned from MOVED
    with cluster.node_on(target).client() as client:
        assert client.xlen(game_keys(game)[0]) == 2


async def test_a_replicated_write_waits_for_a_replica_and_fails_when_none_acknowledges(cluster: LocalCluster, prefix):
    game = f"{prefix}-waited"
    slot = slot_of(game_keys(game)[0])
    replica = next(followers[0] for first, last, _, followers in cluster.slots() if first <= slot <= last)
    # The wait for a replica: 1 s, half the timeout, well before the connection's deadline.
    wire = PipelinedConnection(cluster.url, timeout=2.0, replication=Replication.REPLICAS)
    try:
        assert await wire.script(APPEND_SHA, APPEND, game_keys(game), [0, "kept twice"]) == [b"appended", 1]
        with cluster.node_on(replica).client() as client:
            client.execute_command("READONLY")
            assert client.xlen(game_keys(game)[0]) == 1  # the replica had it before we were told
        process = cluster.node_on(replica).process
        os.kill(process.pid, signal.SIGSTOP)
        try:
            # NOREPLICAS, the wait's own answer: not the connection's timeout error, so the wait
            # gave up within the store's timeout and nothing hung.
            with pytest.raises(NotReplicated, match="NOREPLICAS"):
                await wire.script(APPEND_SHA, APPEND, game_keys(game), [1, "kept once"])
        finally:
            os.kill(process.pid, signal.SIGCONT)
    finally:
        await wire.close()


async def test_a_reply_that_is_an_error_is_the_redis_py_exception_for_it_on_a_cluster(wire, prefix):
    await wire.execute("SET", f"{prefix}:text", "x")
    with pytest.raises(ResponseError, match="WRONGTYPE"):
        await wire.execute("LPUSH", f"{prefix}:text", "y")


async def test_the_node_for_a_key_is_the_connection_to_its_slots_primary(cluster: LocalCluster, wire, prefix):
    game = f"{prefix}-blocking"
    node = await wire.node_for(game_keys(game)[0])
    assert node.options["port"] == master_of(cluster, slot_of(game_keys(game)[0]))
    client_id = await node.execute("CLIENT", "ID")  # the same connection as a command of the game's
    assert await node.execute("XLEN", game_keys(game)[0]) == 0
    with cluster.node_on(node.options["port"]).client() as client:
        assert str(client_id) in [entry["id"] for entry in client.client_list()]


async def test_a_slot_half_migrated_by_hand_is_followed_by_asking_the_node_it_goes_to(cluster: LocalCluster, prefix):
    def empty(game: str) -> bool:  # a slot no other test wrote to: nothing of it to move by hand below
        slot = slot_of(f"{{{game}}}")
        with cluster.node_on(master_of(cluster, slot)).client() as owner:
            return owner.execute_command("CLUSTER", "COUNTKEYSINSLOT", slot) == 0

    game = next(f"{prefix}-asked-{n}" for n in range(100) if empty(f"{prefix}-asked-{n}"))
    slot = slot_of(game_keys(game)[0])
    wire = PipelinedConnection(cluster.url, timeout=0.5)
    await wire.execute("PING")  # the map is read: the slot is the source's
    source = master_of(cluster, slot)
    target = next(port for _, _, port, _ in cluster.slots() if port != source)
    with cluster.node_on(source).client() as from_, cluster.node_on(target).client() as to:
        source_id, target_id = (c.execute_command("CLUSTER", "MYID").decode() for c in (from_, to))
        to.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", source_id)
        from_.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", target_id)
        try:
            # A key the source does not have: it answers ASK, and the command goes to the
            # target behind ASKING, in one write.
            await wire.execute("XADD", game_keys(game)[0], "0-1", "e", "asked")
            assert to.execute_command("CLUSTER", "COUNTKEYSINSLOT", slot) == 1
            assert from_.execute_command("CLUSTER", "COUNTKEYSINSLOT", slot) == 0
            assert wire.cluster.slots[slot].options["port"] == source  # ASK moves one command, not the slot
            # Two keys split between the nodes: TRYAGAIN, tried again until the deadline,
            # then the error the store reports as unavailable (503), not a hang.
            started = time.monotonic()
            with pytest.raises(TryAgainError):
                await asyncio.wait_for(wire.script(APPEND_SHA, APPEND, game_keys(game), [1, "split"]), 30)
            # Tried again until the deadline (0.5 s), not given up at once; then given up, not
            # tried for ever (the rest of the bound is slack for a busy machine).
            assert 0.4 < time.monotonic() - started < 5.0
        finally:
            for client in (to, from_):  # the migration ends: the slot is the target's
                client.execute_command("CLUSTER", "SETSLOT", slot, "NODE", target_id)
            await wire.close()
    wire = PipelinedConnection(cluster.nodes[0].url)
    try:
        assert await wire.script(APPEND_SHA, APPEND, game_keys(game), [1, "after"]) == [b"appended", 2]
    finally:
        await wire.close()


async def test_a_write_acknowledged_after_waitaof_is_on_a_replicas_disk(cluster: LocalCluster, prefix):
    game = f"{prefix}-on-disk"
    keys = [game_keys(f"{game}-{n}") for n in range(30)]
    slot = slot_of(keys[0][0])
    master = master_of(cluster, slot)
    replica = next(followers[0] for first, last, _, followers in cluster.slots() if first <= slot <= last)

    def waitaofs() -> int:
        with cluster.node_on(master).client() as client:
            return int(client.info("commandstats").get("cmdstat_waitaof", {}).get("calls", 0))

    waits_before = waitaofs()
    wire = PipelinedConnection(cluster.url, timeout=2.0, replication=Replication.AOF)
    try:
        replies = await asyncio.gather(*(wire.script(APPEND_SHA, APPEND, key, [0, "x"]) for key in keys))
        assert replies == [[b"appended", 1]] * 30
        with cluster.node_on(replica).client() as client:
            assert client.info("persistence")["aof_enabled"] == 1  # what WAITAOF counts on
            client.execute_command("READONLY")
            # Acknowledged means the replica has it: every write of this master, there.
            for key in keys:
                if master_of(cluster, slot_of(key[0])) == master:
                    assert client.xlen(key[0]) == 1
        writes = sum(master_of(cluster, slot_of(key[0])) == master for key in keys)
        # Sent after the writes, one per turn of the loop (the EVALSHAs, then the EVALs of a
        # script the node lacked), not one per write.
        assert 1 <= waitaofs() - waits_before <= 2 < writes
    finally:
        await wire.close()
