"""One pipelined connection to Redis for the store's hot path.

Every command issued in one turn of the event loop leaves in one write, and replies are
matched to their commands in order as they arrive, so many requests in flight share one
connection, one send and one receive. redis-py's asyncio client has no such mode (its
issue #3767): it takes a pooled connection per command, which costs about 40 µs of CPU a
command on the machines we measure; this costs a few. redis-py stays the client for
everything else, and hiredis (redis-py's own parser) packs and parses here.

Never send a blocking command (XREAD BLOCK, BLPOP, ...) here: every command queued behind
it would wait with it.

A reply that does not come within `timeout` seconds closes the connection (the replies
after it could no longer be matched) and fails every command in flight; so does a lost
connection. The next command connects afresh. A command that finds its connection lost
is sent once more on a new one if it never left, or if it is a read (`repeatable`); a
write that left may have been done, so its caller is told so rather than it being redone.
"""

from __future__ import annotations

import asyncio
import ssl
from collections import deque
from collections.abc import Mapping
from typing import Any

import hiredis
from redis._parsers.base import BaseParser
from redis.asyncio.connection import SSLConnection, UnixDomainSocketConnection, parse_url
from redis.exceptions import BusyLoadingError, InvalidResponse, NoScriptError, RedisError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

#: One word of a command: hiredis packs each as its bulk string.
Argument = str | bytes | memoryview | int | float
Command = tuple[Argument, ...]


class NotSent(RedisConnectionError):
    """The connection was lost before the command was written: it can be sent again."""


class _Protocol(asyncio.Protocol):
    """The connection's state: commands waiting to be written, and futures waiting for
    their replies, oldest first."""

    def __init__(self, loop: asyncio.AbstractEventLoop, timeout: float) -> None:
        self.loop = loop
        self.timeout = timeout
        self.closed = False
        self.reason: Exception | None = None  # why it closed
        self._transport: Any = None  # an asyncio.Transport (uvloop's are not subclasses)
        # Error replies become the redis-py exceptions that name them (NOSCRIPT, LOADING,
        # NOAUTH, READONLY, ...), by redis-py's own table, as its hiredis parser does.
        self._parser = hiredis.Reader(protocolError=InvalidResponse, replyError=BaseParser.parse_error)
        self._outgoing: list[bytes] = []
        self._waiting: deque[tuple[asyncio.Future[Any], float]] = deque()
        self._timer: asyncio.TimerHandle | None = None

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

    def _flush(self) -> None:
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
    connected on first use and again after it was lost. Like redis-py's asyncio clients,
    it belongs to the event loop that first uses it."""

    def __init__(self, url: str, *, timeout: float = 2.0) -> None:
        self.options = parse_url(url)
        self.timeout = timeout
        # Made now, so that a wrong TLS option fails at start, not at the first request.
        self._tls = tls_context(self.options) if self.options.get("connection_class") is SSLConnection else None
        self._protocol: _Protocol | None = None
        self._connecting: asyncio.Task[_Protocol] | None = None

    async def execute(self, *command: Argument, repeatable: bool = False) -> Any:
        """Send one command; its reply (bytes, int, list, None), within `timeout`. An
        error reply raises the redis-py exception for it; no reply in time or no
        connection raises redis-py's TimeoutError or ConnectionError.

        A connection the server dropped (say, it restarted) is only noticed on use: a
        command that never left is sent once more on a new connection, and so is one that
        did when it is `repeatable` (a read); any other's outcome is unknown, and said so."""
        protocol = self._protocol
        if protocol is not None and not protocol.closed:
            deadline = protocol.loop.time() + self.timeout
            try:
                return await protocol.send(command, deadline)
            except RedisConnectionError as error:
                if not protocol.closed or not (repeatable or isinstance(error, NotSent)):
                    raise
        else:
            deadline = asyncio.get_running_loop().time() + self.timeout
        return await (await self._connected(deadline)).send(command, deadline)

    async def script(
        self, sha: str, source: str | bytes | memoryview, keys: list[str], args: list[Any], *, repeatable: bool = False
    ) -> Any:
        """Run a Lua script by its SHA1, sending its source once if the server lacks it."""
        try:
            return await self.execute("EVALSHA", sha, len(keys), *keys, *args, repeatable=repeatable)
        except NoScriptError:
            return await self.execute("EVAL", source, len(keys), *keys, *args, repeatable=repeatable)

    async def close(self) -> None:
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

    def _connect_done(self, connecting: asyncio.Task[_Protocol]) -> None:
        if self._connecting is connecting:
            self._connecting = None  # the next connection starts afresh, whatever became of this
        if not connecting.cancelled() and connecting.exception() is None:
            self._protocol = connecting.result()

    async def _connect(self, loop: asyncio.AbstractEventLoop) -> _Protocol:
        options = self.options
        protocol = _Protocol(loop, self.timeout)
        kind = options.get("connection_class")
        deadline = loop.time() + self.timeout
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
                await asyncio.gather(*handshake)
        except TimeoutError:
            protocol.abort(RedisTimeoutError("closed"))
            raise RedisTimeoutError(f"no connection to the event store within {self.timeout:g} s") from None
        except RedisError as error:  # an error reply to AUTH or SELECT
            protocol.abort(RedisConnectionError("closed"))
            raise RedisConnectionError(f"the event store refused the connection: {error}") from None
        except OSError as error:
            raise RedisConnectionError(f"no connection to the event store: {error}") from None
        return protocol


__all__ = ["NotSent", "PipelinedConnection"]
