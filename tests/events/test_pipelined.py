"""The pipelined connection of the store's hot path, against real servers: replies matched
to their commands, one write for many commands, errors, timeouts, reconnection, URLs."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import signal
import ssl
import subprocess
import time
import uuid

import pytest
import redis
import trustme
from redis.asyncio.connection import parse_url
from redis.exceptions import AuthenticationError, NoScriptError, ResponseError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from events.connect import replication
from events.pipelined import NotReplicated, PipelinedConnection, Replication, tls_context
from events.server import EmbeddedServer, find_server_binary
from events.store import StoreUnavailable, unavailable
from tests.waiting import until_async

pytestmark = pytest.mark.anyio


@pytest.fixture
async def wire(redis_url):
    connection = PipelinedConnection(redis_url, timeout=2.0)
    yield connection
    await connection.close()


@pytest.fixture
def prefix() -> str:
    return f"pipelined-{uuid.uuid4().hex[:8]}"


def reads_processed(url: str) -> int:
    with redis.Redis.from_url(url) as client:
        return client.info("stats")["total_reads_processed"]


async def test_commands_sent_in_one_turn_each_get_their_own_reply(wire, prefix):
    await asyncio.gather(*(wire.execute("SET", f"{prefix}:{n}", n * n) for n in range(300)))
    replies = await asyncio.gather(*(wire.execute("GET", f"{prefix}:{n}") for n in range(300)))
    assert replies == [str(n * n).encode() for n in range(300)]


async def test_many_commands_in_flight_reach_the_server_in_a_few_reads(wire, redis_url, prefix):
    await wire.execute("PING")  # connected
    asking = reads_processed(redis_url) - reads_processed(redis_url)  # what asking costs (negated)
    before = reads_processed(redis_url)
    await asyncio.gather(*(wire.execute("INCR", f"{prefix}:count") for _ in range(500)))
    # 500 commands leave in one write (12 kB): the server reads them in a few reads,
    # where a connection pool would take 500.
    assert reads_processed(redis_url) - before + asking <= 5
    assert await wire.execute("GET", f"{prefix}:count") == b"500"


async def test_an_error_reply_fails_only_its_own_command(wire, prefix):
    await wire.execute("SET", f"{prefix}:word", "poison")
    first, wrong, last = await asyncio.gather(
        wire.execute("GET", f"{prefix}:word"),
        wire.execute("INCR", f"{prefix}:word"),
        wire.execute("STRLEN", f"{prefix}:word"),
        return_exceptions=True,
    )
    assert first == b"poison"
    assert isinstance(wrong, ResponseError)
    assert "not an integer" in str(wrong)
    assert last == 6


async def test_a_caller_that_stops_waiting_does_not_shift_the_replies_of_others(wire, prefix):
    await wire.execute("MSET", f"{prefix}:a", "A", f"{prefix}:b", "B")
    abandoned = asyncio.ensure_future(wire.execute("GET", f"{prefix}:a"))
    await asyncio.sleep(0)  # sent (or about to be) before it is cancelled
    abandoned.cancel()
    assert await wire.execute("GET", f"{prefix}:b") == b"B"
    assert await wire.execute("GET", f"{prefix}:a") == b"A"


async def test_a_script_the_server_lacks_is_sent_once_by_its_source(wire, prefix):
    source = f"return 'cauldron ' .. KEYS[1] .. ' ' .. ARGV[1] -- {prefix}"
    sha = hashlib.sha1(source.encode()).hexdigest()
    assert await wire.execute("SCRIPT", "EXISTS", sha) == [0]
    assert await wire.script(sha, source, ["red"], [13]) == b"cauldron red 13"
    assert await wire.execute("SCRIPT", "EXISTS", sha) == [1]
    assert await wire.script(sha, source, ["blue"], [7]) == b"cauldron blue 7"


async def test_the_url_chooses_the_database(redis_url, prefix):
    wire = PipelinedConnection(redis_url.rsplit("/", 1)[0] + "/5")
    await wire.execute("SET", f"{prefix}:db", "five")
    await wire.close()
    with redis.Redis.from_url(redis_url.rsplit("/", 1)[0] + "/5") as in_five, redis.Redis.from_url(redis_url) as in_0:
        assert in_five.get(f"{prefix}:db") == b"five"
        assert in_0.get(f"{prefix}:db") is None


@pytest.fixture
def own_server(tmp_path):
    """A server of this test's own: the test may freeze, kill, or lock it."""
    server = EmbeddedServer(tmp_path / "data")
    server.start()
    yield server
    if server.process is not None:
        os.kill(server.process.pid, signal.SIGCONT)
    server.stop()


async def test_a_password_in_the_url_is_sent_first_and_a_wrong_one_refuses_the_connection(own_server):
    host_port = f"127.0.0.1:{own_server.port}/0"
    right = PipelinedConnection(own_server.url)  # the embedded server's, with its password
    assert await right.execute("PING") == b"PONG"
    await right.close()
    wrong = PipelinedConnection(f"redis://:nightshade@{host_port}")
    with pytest.raises(RedisConnectionError, match="refused the connection"):
        await wrong.execute("PING")
    await wrong.close()
    none = PipelinedConnection(f"redis://{host_port}")
    with pytest.raises(AuthenticationError, match="Authentication required"):  # NOAUTH: 503 in the service
        await none.execute("PING")
    await none.close()


@pytest.mark.faults
async def test_a_frozen_server_fails_every_command_in_flight_within_the_timeout(own_server):
    wire = PipelinedConnection(own_server.url, timeout=0.5)
    await wire.execute("PING")
    os.kill(own_server.process.pid, signal.SIGSTOP)
    started = time.monotonic()
    pings = asyncio.gather(*(wire.execute("PING") for _ in range(20)), return_exceptions=True)
    replies = await asyncio.wait_for(pings, 30)  # a frozen server never answers: waiting for it never ends
    assert all(isinstance(reply, RedisTimeoutError) for reply in replies)
    # All at the timeout (0.5 s), together: not one after another (20 of them, 10 s). The
    # rest is slack for a busy machine.
    assert time.monotonic() - started < 5.0
    os.kill(own_server.process.pid, signal.SIGCONT)
    assert await wire.execute("PING") == b"PONG"  # a new connection, the same object
    await wire.close()


@pytest.mark.faults
async def test_a_restarted_server_is_reached_again_by_the_next_command(own_server, prefix):
    wire = PipelinedConnection(own_server.url, timeout=1.0)
    await wire.execute("SET", f"{prefix}:kept", "yes")
    own_server.kill()
    own_server.start()  # same port: the old connection is dead, which only use reveals
    assert await wire.execute("GET", f"{prefix}:kept", repeatable=True) == b"yes"  # a read is sent again
    await wire.close()


async def test_nothing_listening_is_a_connection_error_at_once():
    wire = PipelinedConnection("redis://127.0.0.1:1/0", timeout=30.0)
    started = time.monotonic()
    with pytest.raises(RedisConnectionError, match="no connection"):
        await wire.execute("PING")
    assert time.monotonic() - started < 10  # at once: not at the timeout, 30 s


async def test_a_unix_socket_url_is_served(tmp_path):
    socket = tmp_path / "valkey.sock"
    server = subprocess.Popen(
        [find_server_binary(), "--port", "0", "--unixsocket", socket, "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while not socket.exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        wire = PipelinedConnection(f"unix://{socket}")
        assert await wire.execute("ECHO", "through the socket") == b"through the socket"
        await wire.close()
    finally:
        server.terminate()
        server.wait(10)


def test_tls_options_of_the_url_shape_the_context():
    strict = tls_context(parse_url("rediss://store.example:6380/0"))
    assert strict.verify_mode == ssl.CERT_REQUIRED
    assert strict.check_hostname
    lax = tls_context(parse_url("rediss://store.example:6380/0?ssl_cert_reqs=none"))
    assert lax.verify_mode == ssl.CERT_NONE
    assert not lax.check_hostname


def test_a_wrong_tls_option_fails_when_the_connection_is_made_not_at_its_first_command():
    with pytest.raises(ValueError, match="ssl_cert_reqs must be none, optional or required"):
        PipelinedConnection("rediss://store.example:6380/0?ssl_cert_reqs=sometimes")
    with pytest.raises(FileNotFoundError):
        PipelinedConnection("rediss://store.example:6380/0?ssl_certfile=/nonexistent/cert.pem")


async def test_a_rediss_url_speaks_tls_and_refuses_a_server_it_does_not_trust(redis_server, tmp_path, prefix):
    # The embedded server has no TLS: a TLS relay in front of it stands for one that has.
    authority = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(server_context)
    ca_file = tmp_path / "ca.pem"
    authority.cert_pem.write_to_path(str(ca_file))
    host, port, password = "127.0.0.1", redis_server.port, redis_server.password
    relays: list[asyncio.Task] = []

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection(host, int(port))

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(ConnectionError, ssl.SSLError):
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            sink.close()

        relays.append(asyncio.current_task())
        await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))

    server = await asyncio.start_server(relay, "127.0.0.1", 0, ssl=server_context)
    tls_port = server.sockets[0].getsockname()[1]
    try:
        trusting = PipelinedConnection(f"rediss://:{password}@127.0.0.1:{tls_port}/0?ssl_ca_certs={ca_file}")
        await trusting.execute("SET", f"{prefix}:sealed", "under TLS")
        assert await trusting.execute("GET", f"{prefix}:sealed") == b"under TLS"
        await trusting.close()
        untrusting = PipelinedConnection(f"rediss://:{password}@127.0.0.1:{tls_port}/0")
        with pytest.raises(RedisConnectionError, match="CERTIFICATE_VERIFY_FAILED"):
            await untrusting.execute("PING")
        await untrusting.close()
    finally:
        server.close()
        for task in relays:
            task.cancel()
        await asyncio.gather(*relays, return_exceptions=True)
        await server.wait_closed()


@pytest.mark.faults
async def test_a_server_full_of_clients_is_a_connection_error_and_no_connection_is_left_behind(own_server):
    with redis.Redis.from_url(own_server.url) as admin:
        admin.config_set("maxclients", 1)  # this admin connection is the one
        wire = PipelinedConnection(own_server.url)
        for _ in range(5):
            with pytest.raises(RedisConnectionError, match="max number of clients"):
                await wire.execute("PING", repeatable=True)
        admin.config_set("maxclients", 100)
        assert await wire.execute("PING") == b"PONG"
        assert admin.info("clients")["connected_clients"] == 2  # the admin's and one of ours
    await wire.close()


@pytest.mark.faults
async def test_a_connection_attempt_whose_waiters_all_gave_up_does_not_answer_the_next_command(tmp_path):
    server = EmbeddedServer(tmp_path / "data")
    server.start()
    url = server.url
    server.stop()  # nothing listens on its port now
    wire = PipelinedConnection(url, timeout=1.0)
    abandoned = asyncio.ensure_future(wire.execute("PING"))
    await asyncio.sleep(0)
    assert wire._connecting is not None  # the attempt to connect is under way
    abandoned.cancel()
    await until_async(lambda: wire._connecting is None, what="the attempt failed, with nobody waiting for it")
    server.start()  # the same port
    try:
        assert await wire.execute("PING") == b"PONG"
    finally:
        await wire.close()
        server.stop()


async def test_an_error_reply_is_the_redis_py_exception_that_names_it(wire, prefix):
    with pytest.raises(NoScriptError):
        await wire.execute("EVALSHA", "0" * 40, 0)
    await wire.execute("SET", f"{prefix}:text", "x")
    with pytest.raises(ResponseError, match="WRONGTYPE"):
        await wire.execute("LPUSH", f"{prefix}:text", "y")


async def test_the_node_for_any_key_of_a_single_server_is_the_connection_itself(wire):
    assert await wire.node_for("poison:{any}:events") is wire
    assert wire.cluster is None


@pytest.fixture
def replicated_server(own_server, tmp_path):
    """own_server with a replica of its own, linked."""
    with own_server.client() as client:
        client.config_set("repl-diskless-sync-delay", 0)  # the replica's first copy at once, not in 5 s
    replica = EmbeddedServer(
        tmp_path / "replica", arguments=["--replicaof", "127.0.0.1", str(own_server.port)], password=own_server.password
    )
    replica.start()
    with replica.client() as client:
        deadline = time.monotonic() + 10
        while client.info("replication").get("master_link_status") != "up":
            assert time.monotonic() < deadline
            time.sleep(0.02)
    yield own_server, replica
    if replica.process is not None:
        os.kill(replica.process.pid, signal.SIGCONT)
    replica.stop()


async def test_a_replicated_write_on_a_server_with_a_replica_is_acknowledged_only_once_the_replica_has_it(
    replicated_server, prefix
):
    primary, replica = replicated_server
    # auto: it has a replica, so it waits (1 s: half the timeout, well before the connection's deadline)
    wire = PipelinedConnection(primary.url, timeout=2.0)
    try:
        source = "return redis.call('INCR', KEYS[1])"
        sha = hashlib.sha1(source.encode()).hexdigest()
        assert await asyncio.gather(*(wire.script(sha, source, [f"{prefix}:n"], []) for _ in range(50))) == list(
            range(1, 51)
        )
        assert wire.replicas == 1
        os.kill(replica.process.pid, signal.SIGSTOP)
        # NOREPLICAS, the wait's own answer: not the connection's timeout error, so the wait
        # gave up within its time and nothing hung.
        with pytest.raises(NotReplicated, match="NOREPLICAS"):
            await wire.script(sha, source, [f"{prefix}:n"], [])
        assert await wire.execute("GET", f"{prefix}:n") == b"51"  # done, but not acknowledged
        unwaited = PipelinedConnection(primary.url, timeout=1.0, replication=Replication.NONE)
        assert await unwaited.script(sha, source, [f"{prefix}:n"], []) == 52
        await unwaited.close()
    finally:
        await wire.close()


async def test_commands_beyond_the_cap_in_flight_wait_for_room_and_all_get_their_replies(wire, redis_url, prefix):
    capped = PipelinedConnection(redis_url, in_flight=3)
    await capped.execute("PING")  # connected: its protocol is the one every INCR below uses
    protocol = capped._protocol
    assert protocol is not None
    most = 0
    send = protocol.send

    def counted(command, deadline):  # the replies awaited on the wire, after each command leaves
        nonlocal most
        future = send(command, deadline)
        most = max(most, len(protocol._waiting))
        return future

    protocol.send = counted  # type: ignore[method-assign]
    try:
        replies = await asyncio.gather(*(capped.execute("INCR", f"{prefix}:capped") for _ in range(200)))
        assert sorted(replies) == list(range(1, 201))
        assert most == 3  # never more than the cap, though 200 were asked at once
    finally:
        await capped.close()


@pytest.mark.faults
async def test_commands_beyond_the_cap_on_a_frozen_server_give_up_at_their_deadline(own_server):
    timeout = 2.0
    capped = PipelinedConnection(own_server.url, timeout=timeout, in_flight=2)
    await capped.execute("PING")
    os.kill(own_server.process.pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        pings = asyncio.gather(*(capped.execute("PING") for _ in range(10)), return_exceptions=True)
        replies = await asyncio.wait_for(pings, 30)
        assert all(isinstance(reply, RedisTimeoutError) for reply in replies)
        # Two were sent and got no answer; the eight beyond the cap never left: they gave up
        # waiting for room, or (woken when the connection was given up) for a new one.
        assert sum("did not answer" in str(reply) for reply in replies) == 2
        assert sum("no room" in str(reply) or "no connection" in str(reply) for reply in replies) == 8
        # At their deadline, one timeout after they were asked: not never, nor after a second
        # wait of a whole timeout (twice the timeout). The rest is slack for a busy machine.
        assert time.monotonic() - started < 1.75 * timeout
    finally:
        os.kill(own_server.process.pid, signal.SIGCONT)
        await capped.close()


@pytest.mark.faults
async def test_a_connection_still_being_made_when_closed_is_given_up_not_left_open(own_server):
    # Its caller gave up first (a deadline shorter than the connection's own); the server,
    # frozen, accepted the socket but answers nothing. Closed now, the connection must not
    # be finished later by the handshake and kept open with no one to close it.
    connection = PipelinedConnection(own_server.url, timeout=2.0)
    os.kill(own_server.process.pid, signal.SIGSTOP)
    try:
        with pytest.raises(RedisTimeoutError, match="no connection"):
            await connection._connected(asyncio.get_running_loop().time() + 0.2)
        await connection.close()
    finally:
        os.kill(own_server.process.pid, signal.SIGCONT)

    def no_client_left() -> bool:
        # The server, running again, takes the socket it accepted while frozen and finds it
        # closed; a handshake left running would complete now and keep it open for ever.
        with redis.Redis.from_url(own_server.url) as admin:
            return [line for line in admin.client_list() if line["cmd"] != "client|list"] == []

    await until_async(no_client_left, deadline=10, what="no connection left open on the server")


def test_the_acknowledgement_asked_for_is_checked_by_name(monkeypatch):
    monkeypatch.setenv("POISON_REDIS_WAIT", "aof")
    assert replication() is Replication.AOF
    assert replication("none") is Replication.NONE
    monkeypatch.setenv("POISON_REDIS_WAIT", "always")
    with pytest.raises(ValueError, match="POISON_REDIS_WAIT must be one of auto, replicas, aof, none, not 'always'"):
        replication()
    monkeypatch.delenv("POISON_REDIS_WAIT")
    assert replication() is Replication.AUTO


def test_a_write_no_replica_acknowledged_is_the_stores_unavailable_not_a_bug():
    refusal = unavailable(NotReplicated("NOREPLICAS the write was done but no replica acknowledged it"))
    assert isinstance(refusal, StoreUnavailable)  # the service's 503 store_unavailable


def test_a_server_busy_with_a_long_script_is_the_stores_unavailable_not_a_bug():
    refusal = unavailable(ResponseError("BUSY Valkey is busy running a script. You can only call SCRIPT KILL"))
    assert isinstance(refusal, StoreUnavailable)
    assert unavailable(ResponseError("ERR unknown command 'BUSYNESS'")) is None


async def test_a_connection_made_just_before_close_is_closed_with_it(own_server):
    # The attempt has made its connection, but the step that adopts it (the attempt's done
    # callback) has not run yet when close() comes: adopted after the close, it would stay
    # open with no one to close it (an unclosed socket, found later by the collector).
    connection = PipelinedConnection(own_server.url, timeout=5.0)
    attempt = asyncio.ensure_future(connection._connected(asyncio.get_running_loop().time() + 5))
    await until_async(lambda: connection._connecting is not None and connection._connecting.done(), interval=0)
    await connection.close()
    made = await attempt
    assert made.closed
    assert connection._protocol is None

    def no_client_left() -> bool:
        with redis.Redis.from_url(own_server.url) as admin:
            return [line for line in admin.client_list() if line["cmd"] != "client|list"] == []

    await until_async(no_client_left, deadline=10, what="no connection left open on the server")
