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
connection. The next command connects afresh, and a command that finds its connection
lost is tried once more on a new one.
"""

from __future__ import annotations

import asyncio
import ssl
from collections import deque
from typing import Any

import hiredis
from redis.asyncio.connection import SSLConnection, UnixDomainSocketConnection, parse_url
from redis.exceptions import BusyLoadingError, NoScriptError, ResponseError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

Command = tuple[str | bytes | int | float, ...]


def reply_error(error: hiredis.ReplyError) -> ResponseError:
    """A Redis error reply as the redis-py exception that names it."""
    message = str(error)
    if message.startswith("NOSCRIPT"):
        return NoScriptError(message)
    if message.startswith("LOADING"):
        return BusyLoadingError(message)
    return ResponseError(message)


class _Protocol(asyncio.Protocol):
    """The connection's state: commands waiting to be written, and futures waiting for
    their replies, oldest first."""

    def __init__(self, loop: asyncio.AbstractEventLoop, timeout: float) -> None:
        self.loop = loop
        self.timeout = timeout
        self.closed = False
        self._transport: Any = None  # an asyncio.Transport (uvloop's are not subclasses)
        self._parser = hiredis.Reader()
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
                future, _ = waiting.popleft()
                if future.done():
                    continue  # its caller gave up waiting
                if isinstance(reply, hiredis.ReplyError):
                    future.set_exception(reply_error(reply))
                else:
                    future.set_result(reply)
        except (hiredis.ProtocolError, IndexError) as error:  # garbage, or a reply nobody asked for
            self.abort(RedisConnectionError(f"the event store's reply cannot be read: {error!r}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(RedisConnectionError(f"the connection to the event store was lost: {exc or 'closed'}"))

    # -- commands -------------------------------------------------------------------------

    def send(self, command: Command) -> asyncio.Future[Any]:
        if self.closed:
            raise RedisConnectionError("the connection to the event store is closed")
        if not self._outgoing:
            self.loop.call_soon(self._flush)
        self._outgoing.append(hiredis.pack_command(command))
        future = self.loop.create_future()
        deadline = self.loop.time() + self.timeout
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
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._outgoing.clear()
        while self._waiting:
            future, _ = self._waiting.popleft()
            if not future.done():
                future.set_exception(error)


def tls_context(options: dict[str, Any]) -> ssl.SSLContext:
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

    async def execute(self, *command: str | bytes | int | float) -> Any:
        """Send one command; its reply (bytes, int, list, None). An error reply raises
        the redis-py exception for it; no reply in time or no connection raises
        redis-py's TimeoutError or ConnectionError."""
        protocol = self._protocol
        if protocol is None or protocol.closed:
            return await (await self._connected()).send(command)
        try:
            return await protocol.send(command)
        except RedisConnectionError:
            # A connection the server dropped (say, it restarted) is only noticed on use:
            # one more try on a new connection, as redis-py's one retry would do.
            return await (await self._connected()).send(command)

    async def script(self, sha: str, source: str, keys: list[str], args: list[Any]) -> Any:
        """Run a Lua script by its SHA1, sending its source once if the server lacks it."""
        try:
            return await self.execute("EVALSHA", sha, len(keys), *keys, *args)
        except NoScriptError:
            return await self.execute("EVAL", source, len(keys), *keys, *args)

    async def close(self) -> None:
        if self._protocol is not None and not self._protocol.closed:
            self._protocol.abort(RedisConnectionError("the connection to the event store was closed"))
        self._protocol = None

    async def _connected(self) -> _Protocol:
        # Concurrent first commands share one connection attempt.
        loop = asyncio.get_running_loop()
        connecting = self._connecting
        if connecting is None:
            connecting = self._connecting = loop.create_task(self._connect(loop))
            # Its failure reaches every waiter; this only keeps asyncio from calling it
            # unretrieved when all of them were cancelled.
            connecting.add_done_callback(lambda task: task.cancelled() or task.exception())
        try:
            protocol = self._protocol = await asyncio.shield(connecting)
        finally:
            if self._connecting is connecting and connecting.done():
                self._connecting = None
        return protocol

    async def _connect(self, loop: asyncio.AbstractEventLoop) -> _Protocol:
        options = self.options
        protocol = _Protocol(loop, self.timeout)
        kind = options.get("connection_class")
        try:
            async with asyncio.timeout(self.timeout):
                if kind is UnixDomainSocketConnection:
                    await loop.create_unix_connection(lambda: protocol, options["path"])
                else:
                    host, port = options.get("host", "localhost"), options.get("port", 6379)
                    await loop.create_connection(lambda: protocol, host, port, ssl=self._tls)
                handshake = []
                if options.get("password") is not None:
                    credentials = [options["username"]] if options.get("username") else []
                    handshake.append(protocol.send(("AUTH", *credentials, options["password"])))
                if options.get("db"):
                    handshake.append(protocol.send(("SELECT", options["db"])))
                await asyncio.gather(*handshake)
        except TimeoutError:
            protocol.abort(RedisTimeoutError("closed"))
            raise RedisTimeoutError(f"no connection to the event store within {self.timeout:g} s") from None
        except ResponseError as error:
            protocol.abort(RedisConnectionError("closed"))
            raise RedisConnectionError(f"the event store refused the connection: {error}") from None
        except OSError as error:
            raise RedisConnectionError(f"no connection to the event store: {error}") from None
        return protocol


__all__ = ["PipelinedConnection", "reply_error"]
