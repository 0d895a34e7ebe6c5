"""One pipelined connection to Redis for the store's hot path.

Every command issued in one turn of the event loop leaves in one write, and replies are
matched to their commands in order as they arrive, so many requests in flight share one
connection, one send and one receive. redis-py's asyncio client has no such mode (its
issue #3767): it takes a pooled connection per command, which costs many times the CPU a
command costs here (figures: docs/performance.md). redis-py stays the client for
everything else, and hiredis (redis-py's own parser) packs and parses here.

Never send a blocking command (XREAD BLOCK, BLPOP, ...) here: every command queued behind
it would wait with it.

A reply that does not come within `timeout` seconds closes the connection (the replies
after it could no longer be matched) and fails every command in flight; so does a lost
connection. The next command connects afresh. A command that finds its connection lost
is sent once more on a new one if it never left, or if it is a read (`repeatable`); a
write that left may have been done, so its caller is told so rather than it being redone.
At most `in_flight` commands wait for their replies on a connection; more wait for room
(back-pressure), within their own deadline, rather than growing the buffers without bound.

A Redis Cluster needs no other URL: the first connection asks the node it reaches whether
it is one (`INFO cluster`), and if so the commands are routed by the cluster's map of
slots (events/slots.py), over one pipelined connection per node. See `_Cluster`.

Acknowledged means replicated (`replication`): a write sent with `replicated=True` is
followed, in the same write to the same node, by `WAIT 1 <ms>` (or `WAITAOF 0 1 <ms>`),
one for all the writes of a turn of the loop; too few acknowledgements fail each of them
with a `NOREPLICAS` error (the store's "unavailable"), never a silent success.
"""

from __future__ import annotations

import asyncio
import enum
import ssl
from collections import deque
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import hiredis
from redis.asyncio.connection import SSLConnection, UnixDomainSocketConnection, parse_url
from redis.exceptions import (
    AskError,
    AuthenticationError,
    BusyLoadingError,
    ClusterCrossSlotError,
    ClusterDownError,
    ExecAbortError,
    InvalidResponse,
    MasterDownError,
    MovedError,
    NoPermissionError,
    NoScriptError,
    OutOfMemoryError,
    ReadOnlyError,
    RedisError,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from events.slots import SLOTS, Argument, Command, slot_of, slot_of_command

IN_FLIGHT = 4096  # commands awaiting their replies on one connection, at most
MAX_REDIRECTS = 5  # MOVED and ASK answers followed for one command, at most
TRY_AGAIN_PAUSE = 0.02  # seconds between two tries of a command a migrating slot refused
REFRESH_PAUSE = 0.1  # seconds between two readings of a cluster's map, at least

#: The first word of an error reply and the redis-py exception for it, as redis-py's own
#: parser maps them (its table is private): the store and the service know these.
ERROR_CODES: dict[str, type[RedisError]] = {
    "OOM": OutOfMemoryError,
    "WRONGPASS": AuthenticationError,
    "EXECABORT": ExecAbortError,
    "LOADING": BusyLoadingError,
    "NOSCRIPT": NoScriptError,
    "READONLY": ReadOnlyError,
    "NOAUTH": AuthenticationError,
    "NOPERM": NoPermissionError,
    "ASK": AskError,
    "TRYAGAIN": TryAgainError,
    "MOVED": MovedError,
    "CLUSTERDOWN": ClusterDownError,
    "CROSSSLOT": ClusterCrossSlotError,
    "MASTERDOWN": MasterDownError,
}
#: ERR replies that mean the connection is of no use.
ERR_MESSAGES: dict[str, type[RedisError]] = {
    "max number of clients reached": RedisConnectionError,
    "invalid password": AuthenticationError,
}


def error_reply(text: str) -> RedisError:
    """The redis-py exception for an error reply (its code dropped from the message when
    the exception names it, as redis-py does)."""
    code, _, rest = text.partition(" ")
    kind = ERROR_CODES.get(code)
    if kind is not None:
        return kind(rest)
    if code == "ERR":
        return ERR_MESSAGES.get(rest, ResponseError)(rest)
    return ResponseError(text)


class Replication(enum.Enum):
    """What an acknowledged write promises (`POISON_REDIS_WAIT`)."""

    AUTO = "auto"  # REPLICAS where the primary has replicas, else NONE (the default)
    REPLICAS = "replicas"  # a replica has it in memory (WAIT 1)
    AOF = "aof"  # a replica has written it to its append-only file (WAITAOF 0 1)
    NONE = "none"  # the primary has it (in its append-only file, if it keeps one)


class NotReplicated(ResponseError):
    """A write was done but too few replicas acknowledged it in time: its outcome is not
    yet safe from the loss of its primary. (The first word is the server's own for this.)"""


class NotSent(RedisConnectionError):
    """The connection was lost before the command was written: it can be sent again."""


class _Protocol(asyncio.Protocol):
    """The connection's state: commands waiting to be written, and futures waiting for
    their replies, oldest first."""

    def __init__(self, loop: asyncio.AbstractEventLoop, timeout: float, in_flight: int = IN_FLIGHT) -> None:
        self.loop = loop
        self.timeout = timeout
        self.in_flight = in_flight
        self.closed = False
        self.reason: Exception | None = None  # why it closed
        self._transport: Any = None  # an asyncio.Transport (uvloop's are not subclasses)
        # Error replies become the redis-py exceptions that name them (NOSCRIPT, LOADING,
        # NOAUTH, READONLY, MOVED, ...), as redis-py's hiredis parser does.
        self._parser = hiredis.Reader(protocolError=InvalidResponse, replyError=error_reply)
        self._outgoing: list[bytes] = []
        self._waiting: deque[tuple[asyncio.Future[Any], float]] = deque()
        self._timer: asyncio.TimerHandle | None = None
        self._room: deque[asyncio.Future[None]] = deque()  # commands waiting for room
        # The replication wait that follows this turn's replicated writes: its command,
        # and the future of its reply.
        self._wait: tuple[bytes, asyncio.Future[Any]] | None = None

    # -- asyncio.Protocol -------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        self._parser.feed(data)
        waiting = self._waiting
        try:
            while (reply := self._parser.gets()) is not False:
                if not waiting:  # a reply nobody asked for: the server is hanging up
                    cause = reply if isinstance(reply, RedisError) else repr(reply)
                    self.abort(RedisConnectionError(f"the event store closed the connection: {cause}"))
                    return
                future, _ = waiting.popleft()
                if future.done():
                    continue  # its caller gave up waiting
                if isinstance(reply, RedisError):
                    future.set_exception(reply)
                    if isinstance(reply, RedisConnectionError) and not isinstance(reply, BusyLoadingError):
                        # No credentials, or no room for this client: the connection is of no
                        # use, and the server may already be closing it.
                        self.abort(reply)
                        return
                else:
                    future.set_result(reply)
        except InvalidResponse as error:
            self.abort(RedisConnectionError(f"the event store's reply cannot be read: {error!r}"))
            return
        # Wake only as many as there is room for: each woken one sends a command (waking
        # them all let every one of them send, past the cap).
        room = self._room
        free = self.in_flight - len(waiting)
        while room and free > 0:
            waiter = room.popleft()
            if not waiter.done():
                waiter.set_result(None)
                free -= 1

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(RedisConnectionError(f"the connection to the event store was lost: {exc or 'closed'}"))

    # -- commands -------------------------------------------------------------------------

    def send(self, command: Command, deadline: float) -> asyncio.Future[Any]:
        """Queue a command to leave at the end of this turn of the loop; its reply is due
        by `deadline` (loop time), or the connection is given up."""
        if self.closed:
            raise NotSent(f"the connection to the event store is closed: {self.reason}")
        if deadline <= self.loop.time():  # not worth a connection's life
            raise RedisTimeoutError(f"the event store did not answer within {self.timeout:g} s")
        if not self._outgoing:
            self.loop.call_soon(self._flush)
        # hiredis's stub declares a one-element tuple; it packs a command of any length.
        self._outgoing.append(hiredis.pack_command(command))  # type: ignore[arg-type]
        future = self.loop.create_future()
        self._waiting.append((future, deadline))
        if self._timer is None:
            self._timer = self.loop.call_at(deadline, self._check_deadline)
        return future

    def wait_for_replicas(self, command: bytes) -> asyncio.Future[Any]:
        """The reply of the replication wait (`command`, packed) that will follow every
        command queued in this turn of the loop: one wait, however many writes."""
        if self._wait is None:
            future = self.loop.create_future()
            future.add_done_callback(_retrieve)  # its writers may have failed and left
            self._wait = (command, future)
        return self._wait[1]

    @property
    def crowded(self) -> bool:
        return len(self._waiting) >= self.in_flight

    async def room(self, deadline: float, *, first: bool = False) -> None:
        """Until fewer than `in_flight` commands wait for their replies (or it closed);
        `first`: at the head of the queue (one woken whose room was taken meanwhile)."""
        waiter = self.loop.create_future()
        if first:
            self._room.appendleft(waiter)
        else:
            self._room.append(waiter)
        try:
            async with asyncio.timeout_at(deadline):
                await waiter
        except TimeoutError:
            raise RedisTimeoutError(
                f"no room on the connection to the event store within {self.timeout:g} s "
                f"({self.in_flight} commands in flight)"
            ) from None

    def _flush(self) -> None:
        if self._wait is not None:
            command, future = self._wait
            self._wait = None
            if not self.closed:
                self._outgoing.append(command)
                self._waiting.append((future, self.loop.time() + self.timeout))
            else:
                future.set_exception(NotSent(f"the connection to the event store is closed: {self.reason}"))
        if self._outgoing and not self.closed:
            self._transport.write(b"".join(self._outgoing))
        self._outgoing.clear()

    def _check_deadline(self) -> None:
        self._timer = None
        if not self._waiting:
            return
        deadline = self._waiting[0][1]
        if deadline <= self.loop.time():
            self.abort(RedisTimeoutError(f"the event store did not answer within {self.timeout:g} s"))
        else:
            self._timer = self.loop.call_at(deadline, self._check_deadline)

    # -- ending ---------------------------------------------------------------------------

    def abort(self, error: Exception) -> None:
        self._fail(error)
        if self._transport is not None:
            self._transport.abort()

    def _fail(self, error: Exception) -> None:
        if not self.closed:
            self.reason = error
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        unsent = len(self._outgoing)  # the newest commands, still queued here
        self._outgoing.clear()
        while self._waiting:
            future, _ = self._waiting.popleft()
            if not future.done():
                future.set_exception(NotSent(str(error)) if len(self._waiting) < unsent else error)
        if self._wait is not None:  # its writes were never sent
            if not self._wait[1].done():
                self._wait[1].set_exception(NotSent(str(error)))
            self._wait = None
        while self._room:  # they will find it closed
            waiter = self._room.popleft()
            if not waiter.done():
                waiter.set_result(None)


def tls_context(options: Mapping[str, Any]) -> ssl.SSLContext:
    """TLS for a `rediss://` URL, from the same query options redis-py reads:
    ssl_cert_reqs (none, optional, required), ssl_ca_certs, ssl_certfile, ssl_keyfile."""
    context = ssl.create_default_context(cafile=options.get("ssl_ca_certs"))
    required = options.get("ssl_cert_reqs", "required")
    if required not in ("none", "optional", "required"):
        raise ValueError(f"ssl_cert_reqs must be none, optional or required, not {required!r}")
    if required != "required":
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE if required == "none" else ssl.CERT_OPTIONAL
    if options.get("ssl_certfile"):
        context.load_cert_chain(options["ssl_certfile"], options.get("ssl_keyfile"))
    return context


class PipelinedConnection:
    """Commands over one pipelined connection (`redis://`, `rediss://` or `unix://`),
    connected on first use and again after it was lost; or, when the server is a node of a
    Redis Cluster, over one such connection per node (see `_Cluster`). Like redis-py's
    asyncio clients, it belongs to the event loop that first uses it."""

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 2.0,
        in_flight: int = IN_FLIGHT,
        replication: Replication | str = Replication.AUTO,
    ) -> None:
        if in_flight < 1:
            raise ValueError(f"in_flight must be at least 1, not {in_flight}")
        self.options = parse_url(url)
        self.timeout = timeout
        self.in_flight = in_flight
        self.replication = Replication(replication)
        # Made now, so that a wrong TLS option fails at start, not at the first request.
        self._tls = tls_context(self.options) if self.options.get("connection_class") is SSLConnection else None
        self._protocol: _Protocol | None = None
        self._connecting: asyncio.Task[_Protocol] | None = None
        self._detect = True  # ask the server whether it is a cluster's node (not asked of nodes)
        self._cluster: _Cluster | None = None
        self.replicas = 0  # the server's replicas, as it said when we last connected
        self._single_wait: bytes | None = None  # a single server's wait after a replicated write

    def node(self, host: str, port: int) -> PipelinedConnection:
        """A connection like this one (credentials, TLS, limits) to another node."""
        node = PipelinedConnection.__new__(PipelinedConnection)
        node.__dict__.update(self.__dict__)
        node.options = {**self.options, "host": host, "port": port}
        if node.options.get("connection_class") is UnixDomainSocketConnection:
            del node.options["connection_class"]  # a node is reached by its address
        node._protocol = node._connecting = node._cluster = None
        node._detect = False
        node.replicas = 0
        node._single_wait = None
        return node

    async def node_for(self, key: Argument) -> PipelinedConnection:
        """The connection to the node that serves `key` (this one, on a single server):
        for what must stay on one node's connection, as a blocking read and its unblocking."""
        if self._cluster is None and (self._protocol is None or self._protocol.closed):
            await self._connected(asyncio.get_running_loop().time() + self.timeout)
        if self._cluster is None:
            return self
        return self._cluster.primary(slot_of(key))

    @property
    def cluster(self) -> _Cluster | None:
        """The cluster the server belongs to (once connected), or None for a single server."""
        return self._cluster

    async def execute(self, *command: Argument, repeatable: bool = False, replicated: bool = False) -> Any:
        """Send one command; its reply (bytes, int, list, None), within `timeout`. An
        error reply raises the redis-py exception for it; no reply in time or no
        connection raises redis-py's TimeoutError or ConnectionError.

        A connection the server dropped (say, it restarted) is only noticed on use: a
        command that never left is sent once more on a new connection, and so is one that
        did when it is `repeatable` (a read); any other's outcome is unknown, and said so.
        `replicated`: a write acknowledged only once replicas have it (`replication`)."""
        if self._cluster is not None:
            return await self._cluster.execute(command, repeatable=repeatable, replicated=replicated)
        protocol = self._protocol
        if (
            protocol is not None
            and not protocol.closed
            and (not replicated or self._single_wait is None)
            and len(protocol._waiting) < self.in_flight
        ):
            # The hot path, kept as short as it was before clusters: a single server, room
            # on its connection, no wait for replicas.
            try:
                return await protocol.send(command, protocol.loop.time() + self.timeout)
            except RedisConnectionError as error:
                if not protocol.closed or not (repeatable or isinstance(error, NotSent)):
                    raise
        return await self._request(command, repeatable, replicated, None, False)

    async def _request(
        self, command: Command, repeatable: bool, replicated: bool, has_replicas: bool | None, asking: bool
    ) -> Any:
        """`execute` on this connection's own server. `has_replicas`: whether the
        command's primary has replicas (a cluster knows), None for what the server said."""
        protocol = self._protocol
        if protocol is not None and not protocol.closed:
            deadline = protocol.loop.time() + self.timeout
            try:
                return await self._send(protocol, command, deadline, replicated, has_replicas, asking)
            except RedisConnectionError as error:
                if not protocol.closed or not (repeatable or isinstance(error, NotSent)):
                    raise
        else:
            deadline = asyncio.get_running_loop().time() + self.timeout
        protocol = await self._connected(deadline)
        if self._cluster is not None:  # this first connection found a cluster
            return await self._cluster.execute(command, repeatable=repeatable, replicated=replicated)
        return await self._send(protocol, command, deadline, replicated, has_replicas, asking)

    async def _send(
        self,
        protocol: _Protocol,
        command: Command,
        deadline: float,
        replicated: bool,
        has_replicas: bool | None,
        asking: bool,
    ) -> Any:
        queued = False
        while protocol.crowded and not protocol.closed:  # woken, it may find the room taken again
            await protocol.room(deadline, first=queued)
            queued = True
        if asking:  # in the same write as the command, which it lets through
            protocol.send(ASKING, deadline).add_done_callback(_retrieve)
        reply = protocol.send(command, deadline)
        wait = self._wait_command(self.replicas > 0 if has_replicas is None else has_replicas) if replicated else None
        if wait is None:
            return await reply
        acknowledged = protocol.wait_for_replicas(wait)
        result = await reply
        acknowledgements = await acknowledged
        count = acknowledgements[1] if isinstance(acknowledgements, list) else acknowledgements
        if count < 1:
            raise NotReplicated(
                f"NOREPLICAS the write was done but no replica acknowledged it within {self._wait_ms} ms: "
                "its primary's loss could still undo it"
            )
        return result

    @property
    def _wait_ms(self) -> int:
        # Half the timeout: the wait's answer comes well before the connection's deadline.
        return max(int(self.timeout * 500), 1)

    def _wait_command(self, has_replicas: bool) -> bytes | None:
        """The packed wait that follows a replicated write, or None for no wait."""
        mode = self.replication
        if mode is Replication.NONE or (mode is Replication.AUTO and not has_replicas):
            return None
        return _packed_wait(mode, self._wait_ms)

    async def script(
        self,
        sha: str,
        source: str | bytes | memoryview,
        keys: list[str],
        args: list[Any],
        *,
        repeatable: bool = False,
        replicated: bool | None = None,
    ) -> Any:
        """Run a Lua script by its SHA1, sending its source once if the server (or, after a
        failover, the new primary) lacks it. `replicated` defaults to: not `repeatable`."""
        replicated = not repeatable if replicated is None else replicated
        try:
            return await self.execute(
                "EVALSHA", sha, len(keys), *keys, *args, repeatable=repeatable, replicated=replicated
            )
        except NoScriptError:
            return await self.execute(
                "EVAL", source, len(keys), *keys, *args, repeatable=repeatable, replicated=replicated
            )

    async def close(self) -> None:
        # A connection being made now is given up too: made after this close, nothing would
        # ever close it (a frozen server's handshake outlived its callers' deadlines).
        connecting, self._connecting = self._connecting, None
        if connecting is not None and not connecting.done():
            connecting.cancel()
            await asyncio.wait([connecting])
        elif connecting is not None and not connecting.cancelled() and connecting.exception() is None:
            # Made, but not yet adopted (its done callback runs at the loop's next turn, and
            # now leaves it alone): closed below with the rest.
            self._protocol = connecting.result()
        if self._cluster is not None:
            await self._cluster.close()
        if self._protocol is not None and not self._protocol.closed:
            self._protocol.abort(RedisConnectionError("the connection to the event store was closed"))
        self._protocol = None

    async def _connected(self, deadline: float) -> _Protocol:
        """The open connection: another command's new one, or one made now. Concurrent
        commands share one attempt to connect, and none waits past its deadline."""
        protocol = self._protocol
        if protocol is not None and not protocol.closed:
            return protocol
        connecting = self._connecting
        if connecting is None:
            loop = asyncio.get_running_loop()
            connecting = self._connecting = loop.create_task(self._connect(loop))
            connecting.add_done_callback(self._connect_done)
        try:
            async with asyncio.timeout_at(deadline):
                return await asyncio.shield(connecting)
        except TimeoutError:
            raise RedisTimeoutError(f"no connection to the event store within {self.timeout:g} s") from None
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if connecting.cancelled() and not (current is not None and current.cancelling()):
                raise NotSent("the connection to the event store was closed while it was being made") from None
            raise

    def _connect_done(self, connecting: asyncio.Task[_Protocol]) -> None:
        if self._connecting is not connecting:
            return  # close() took the attempt, and closed what it made
        self._connecting = None  # the next connection starts afresh, whatever became of this
        if not connecting.cancelled() and connecting.exception() is None:
            self._protocol = connecting.result()

    async def _connect(self, loop: asyncio.AbstractEventLoop) -> _Protocol:
        options = self.options
        protocol = _Protocol(loop, self.timeout, self.in_flight)
        kind = options.get("connection_class")
        deadline = loop.time() + self.timeout
        found: list[Any] = []
        rows: Any = None
        try:
            async with asyncio.timeout_at(deadline):
                if kind is UnixDomainSocketConnection:
                    await loop.create_unix_connection(lambda: protocol, options["path"])
                else:
                    host, port = options.get("host", "localhost"), options.get("port", 6379)
                    await loop.create_connection(lambda: protocol, host, port, ssl=self._tls)
                handshake = []
                if options.get("password") is not None:
                    credentials = [options["username"]] if options.get("username") else []
                    handshake.append(protocol.send(("AUTH", *credentials, options["password"]), deadline))
                if options.get("db"):
                    handshake.append(protocol.send(("SELECT", options["db"]), deadline))
                # In the same write: is it a cluster's node, and has it replicas? (An error
                # here, say INFO refused by an ACL, means: a single server without.)
                probes = (
                    [protocol.send(("INFO", "cluster"), deadline), protocol.send(("INFO", "replication"), deadline)]
                    if self._detect
                    else []
                )
                probing = asyncio.gather(*probes, return_exceptions=True)
                await asyncio.gather(*handshake)
                found = await probing
                if found and _info(found[0]).get("cluster_enabled") == "1":
                    rows = await protocol.send(("CLUSTER", "SLOTS"), deadline)
        except TimeoutError:
            protocol.abort(RedisTimeoutError("closed"))
            raise RedisTimeoutError(f"no connection to the event store within {self.timeout:g} s") from None
        except asyncio.CancelledError:  # the connection was closed (`close`) while being made
            protocol.abort(RedisConnectionError("closed"))
            raise
        except RedisError as error:  # an error reply to AUTH or SELECT
            protocol.abort(RedisConnectionError("closed"))
            raise RedisConnectionError(f"the event store refused the connection: {error}") from None
        except OSError as error:
            raise RedisConnectionError(f"no connection to the event store: {error}") from None
        for answer in found:
            if isinstance(answer, RedisConnectionError):  # NOAUTH, no room for a client: said as it is
                protocol.abort(RedisConnectionError("closed"))
                raise answer
        if found:
            self.replicas = int(_info(found[1]).get("connected_slaves", 0))
        self._single_wait = self._wait_command(self.replicas > 0)
        if rows is not None:
            cluster = _Cluster(self, str(options.get("host", "localhost")))
            cluster.learn(rows)
            self._cluster = cluster
            # Commands go to the nodes' own connections from now on.
            protocol.abort(RedisConnectionError("the event store is a cluster: its nodes are reached directly"))
        return protocol


class _Cluster:
    """A Redis Cluster seen from one process: a pipelined connection per node and the map
    of which primary serves each slot, read with CLUSTER SLOTS when the first connection
    finds a cluster and again, in the background and at most every REFRESH_PAUSE, after
    anything that says the map changed.

    A command goes to its slot's primary (events/slots.py computes the slot); a keyless
    one to any primary. `MOVED` (the slot has a new owner) updates that slot at once and
    sends the command there; `ASK` (the slot is being migrated, and the key is already on
    the other node) sends `ASKING` and the command together to that node, once;
    `TRYAGAIN` (a multi-key command during a migration) is tried again after a brief
    pause while the command's deadline allows. Neither was done by the node that refused,
    so resending is safe. A connection error, a timeout or `CLUSTERDOWN` (a primary was
    lost and no replica was promoted yet) is the caller's to see at once (the service's
    503): it also has the map read again, so that once a replica is promoted the next
    commands find it. A script the new primary lacks is sent by its source (NOSCRIPT)."""

    def __init__(self, seed: PipelinedConnection, host: str) -> None:
        self.seed = seed
        self.host = host  # for a node the map names without an address
        self.nodes: dict[tuple[str, int], PipelinedConnection] = {}
        self.slots: list[PipelinedConnection | None] = [None] * SLOTS
        self.replicated = bytearray(SLOTS)  # 1 where the slot's primary has a replica
        self._refreshing: asyncio.Task[None] | None = None
        self._refreshed_at = float("-inf")

    def node(self, host: str, port: int) -> PipelinedConnection:
        host = host or self.host
        node = self.nodes.get((host, port))
        if node is None:
            node = self.nodes[host, port] = self.seed.node(host, port)
        return node

    def learn(self, rows: list[Any]) -> None:
        """Take the map from a CLUSTER SLOTS reply: rows of first slot, last slot, the
        primary's [host, port, id, ...], then each replica's."""
        slots: list[PipelinedConnection | None] = [None] * SLOTS
        replicated = bytearray(SLOTS)
        for row in rows:
            first, last, primary, *replicas = row
            node = self.node(_text(primary[0]), int(primary[1]))
            slots[first : last + 1] = [node] * (last - first + 1)
            if replicas:
                replicated[first : last + 1] = b"\1" * (last - first + 1)
            for replica in replicas:
                self.node(_text(replica[0]), int(replica[1]))  # known, to be asked for the map
        self.slots = slots
        self.replicated = replicated
        self._refreshed_at = asyncio.get_running_loop().time()

    def primary(self, slot: int | None) -> PipelinedConnection:
        node = self.slots[slot] if slot is not None else next((n for n in self.slots if n is not None), None)
        if node is None:
            self.refresh_soon()
            raise ClusterDownError(f"no node of the cluster serves slot {slot} (as far as we know)")
        return node

    async def execute(self, command: Command, *, repeatable: bool, replicated: bool) -> Any:
        slot = slot_of_command(command)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.seed.timeout
        asked: PipelinedConnection | None = None
        redirects = 0
        while True:
            node = asked or self.primary(slot)
            has_replicas = slot is not None and self.replicated[slot] == 1
            try:
                return await node._request(command, repeatable, replicated, has_replicas, asked is not None)
            except MovedError as moved:
                redirects += 1
                if slot is not None:
                    self.slots[moved.slot_id] = self.node(moved.host, moved.port)
                asked = None
                self.refresh_soon()
            except AskError as ask:
                redirects += 1
                asked = self.node(ask.host, ask.port)
            except TryAgainError:
                if loop.time() + TRY_AGAIN_PAUSE >= deadline:
                    raise  # a manual migration under way: the keys are split between two nodes
                await asyncio.sleep(TRY_AGAIN_PAUSE)
                asked = None
                redirects = 0  # the deadline bounds these tries, not the count of redirections
            except (RedisConnectionError, RedisTimeoutError, ClusterDownError, ReadOnlyError, NotReplicated):
                self.refresh_soon()  # a primary lost, or a replica promoted: read the map again
                raise
            if redirects > MAX_REDIRECTS:
                raise ClusterDownError(f"the cluster redirected a command more than {MAX_REDIRECTS} times")

    def refresh_soon(self) -> None:
        """Read the map again, in the background, unless a reading is under way."""
        if self._refreshing is None or self._refreshing.done():
            self._refreshing = asyncio.get_running_loop().create_task(self._refresh_after_pause())

    async def _refresh_after_pause(self) -> None:
        pause = self._refreshed_at + REFRESH_PAUSE - asyncio.get_running_loop().time()
        if pause > 0:
            await asyncio.sleep(pause)
        await self.refresh()

    async def refresh(self) -> bool:
        """Read the map from the first node that answers, primaries first; whether one did."""
        primaries = list(dict.fromkeys(node for node in self.slots if node is not None))
        for node in [*primaries, *(node for node in self.nodes.values() if node not in primaries)]:
            try:
                rows = await node.execute("CLUSTER", "SLOTS", repeatable=True)
            except (RedisError, OSError):
                continue
            if rows:
                self.learn(rows)
                return True
        self._refreshed_at = asyncio.get_running_loop().time()
        return False

    async def close(self) -> None:
        if self._refreshing is not None:
            self._refreshing.cancel()
            await asyncio.gather(self._refreshing, return_exceptions=True)
        for node in self.nodes.values():
            await node.close()


ASKING: Command = ("ASKING",)


def _pack(command: Command) -> bytes:
    # hiredis's stub declares a one-element tuple; it packs a command of any length.
    return hiredis.pack_command(command)  # type: ignore[arg-type]


@lru_cache(maxsize=16)
def _packed_wait(mode: Replication, ms: int) -> bytes:
    """The wait for one replica's acknowledgement, packed once."""
    return _pack(("WAITAOF", 0, 1, ms) if mode is Replication.AOF else ("WAIT", 1, ms))


def _retrieve(future: asyncio.Future[Any]) -> None:
    """Mark a reply nobody awaits as seen (its error, if any, is its command's too)."""
    if not future.cancelled():
        future.exception()


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _info(reply: Any) -> dict[str, str]:
    """The fields of an INFO reply (an error reply: none)."""
    if not isinstance(reply, bytes | str):
        return {}
    lines = _text(reply).splitlines()
    return dict(line.split(":", 1) for line in lines if ":" in line and not line.startswith("#"))


__all__ = ["NotReplicated", "NotSent", "PipelinedConnection", "Replication", "error_reply"]
