"""The HTTP/1.1 protocol of `poison serve`'s workers: uvicorn's httptools protocol, plus
what uvicorn (0.54) lacks against slow and broken clients. It is subclassed, not copied:
a few hooks are overridden, each around uvicorn's own code.

- **A deadline for a request's head**, `header_timeout` from the opening of the connection
  (a client that connects and says nothing) or from the first byte of the request, and
  **for its body**, `body_timeout` from the end of the head. The body's is a total, so a
  body trickled a byte at a time is dropped too. Past either, the client gets 408
  `request_timeout` (if no answer has begun on the connection) and the connection is
  closed; a handler waiting for that body sees the client disconnect. Uvicorn has only a
  keep-alive timeout between requests: a half-sent request held its connection, and its
  handler's task, for ever.
- **A cap on a worker's open connections**, `max_connections`: a request on a connection
  beyond it is answered 503 `too_many_connections` (with `Retry-After: 1`) and its
  connection closed. Uvicorn's `limit_concurrency` makes the same check, but answers
  text/plain and counts running tasks too.
- **A cap on each client address's connections**, `client_connections`: a connection
  opened while its peer's address already holds that many is answered 429
  `too_many_client_connections` at its first request (with `Retry-After: 1`) and closed, so
  one client cannot take the worker's `max_connections` from everyone else. A trusted
  proxy's own connections (`trusted_proxies`) are not counted: its clients' streams are
  capped by their forwarded address instead (service/clients.py keeps the counts).
- **Malformed HTTP** is answered 400 `invalid_request` as problem+json, as every other
  error of the API, not uvicorn's text/plain; so is a head over 64 KiB (uvicorn reads one
  without a bound).

- **A streamed answer ends at shutdown**: on SIGTERM or Ctrl-C uvicorn lets every request
  under way finish, and a live stream never does, so `poison serve` waited for ever. Its
  chunked body is ended as a whole one ends (an EventSource then reconnects, with
  Last-Event-ID, to whichever instance serves) and its handler sees the client gone.

After a 408 or a 400 the connection is closed gracefully: the answer is written, our side
shut, and what the client still sends is read and dropped for at most a second, so that
closing with unread data does not reset the connection under the answer.

- **An answer's head and body leave in one write** (`_OneWriteCycle`): uvicorn writes the
  head when the application starts its answer and the body when it sends it, two system
  calls and two TCP segments for every JSON answer, and a client that wakes for the head
  only to wait for the body. The head of an answer with a Content-Length is held until its
  first body part (a streamed answer's goes at once, so a live stream's client sees it open).

Every answer of this module carries `X-Request-Id` as the application's do (service/
observed.py), and is counted by its problem's code (service/metrics.py).

A timer is armed only when a read leaves a head or a body incomplete, so a request that
arrives whole in one read costs none. WebSocket upgrades are off (`ws="none"`: the API has
none), so every connection stays with this protocol.
"""

from __future__ import annotations

import functools
from asyncio import TimerHandle, Transport
from typing import Any

from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol, RequestResponseCycle

from service import metrics
from service.clients import Held, Proxies, client_of, too_many_client_connections, too_many_connections
from service.problems import MEDIA_TYPE, ApiError, problem_body, send_problem
from service.request_ids import HEADER as REQUEST_ID
from service.request_ids import new_request_id, request_id_of
from service.responses import WORKER_HEADER, worker
from service.settings import Settings

MAX_HEAD_BYTES = 65_536
LINGER = 1.0  # seconds: how long a refused client's remaining bytes are read and dropped
PROBLEM = MEDIA_TYPE.encode()


@functools.cache
def _settings() -> Settings:
    return Settings.from_environment()


@functools.cache
def _proxies() -> Proxies:
    return Proxies(_settings().trusted_proxies)


#: This worker's open connections, by peer address (a trusted proxy's left out).
_CONNECTIONS = Held()


def _problem(status: int, code: str, detail: str) -> bytes:
    """The body of a refusal of this module, by the service's one renderer (service.problems)."""
    return problem_body(ApiError(status, code, detail))


async def _too_many_connections(scope: Any, receive: Any, send: Any) -> None:
    """The answer to a request beyond the cap (an ASGI app, in place of the API's)."""
    refusal = too_many_connections(_settings().max_connections)
    await send_problem(send, refusal, (REQUEST_ID, request_id_of(scope)), (b"connection", b"close"))


async def _too_many_client_connections(scope: Any, receive: Any, send: Any) -> None:
    """The answer to a request on a connection beyond its client address's cap."""
    refusal = too_many_client_connections(_settings().client_connections)
    await send_problem(send, refusal, (REQUEST_ID, request_id_of(scope)), (b"connection", b"close"))


class _Held:
    """A transport that keeps what is written until `release`, then writes it in one go."""

    __slots__ = ("parts", "transport")

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.parts: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.parts.append(data)

    def release(self) -> Transport:
        if self.parts:
            self.transport.write(b"".join(self.parts))
            self.parts.clear()
        return self.transport

    def close(self) -> None:
        self.release().close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


class _OneWriteCycle(RequestResponseCycle):
    """uvicorn's request-response cycle, whose answer's head waits for its first body part
    (unless the answer is streamed) so that both leave in one write. The cycle refers to
    its held transport only while it holds something: no reference cycle is made."""

    async def send(self, message: Any) -> None:
        if message["type"] == "http.response.start" and not self.response_started:
            held = _Held(self.transport)
            self.transport = held  # type: ignore[assignment]
            try:
                await super().send(message)
            finally:
                if self.chunked_encoding or not self.response_started:
                    self.transport = held.release()
            return
        try:
            await super().send(message)
        finally:
            if isinstance(self.transport, _Held):
                self.transport = self.transport.release()


class HttpProtocol(HttpToolsProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        settings = _settings()
        self._header_timeout, self._body_timeout = settings.header_timeout, settings.body_timeout
        self._max_connections = settings.max_connections
        self._peer: str | None = None  # the address its connection is counted under, if it is
        self._over_client_cap = False  # opened while its address held all it may
        self._in_head = True  # awaiting or reading a head (from the connection's opening)
        self._in_body = False  # the head is in, the body is not
        self._head_bytes = 0
        self._timer: TimerHandle | None = None  # the head's or the body's deadline
        self._refused = False  # answered 408 or 400: reading and dropping until closed

    # The connection

    def connection_made(self, transport: Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        peer = self.client[0] if self.client else None  # None over a Unix socket: not counted
        if peer is not None and not _proxies().trusts(peer):
            self._peer = client_of(peer)
            self._over_client_cap = _CONNECTIONS.take(self._peer) > _settings().client_connections
        self._arm(self._header_timeout, "head")

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._peer is not None:
            _CONNECTIONS.give_back(self._peer)
            self._peer = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        in_head = self._in_head
        super().data_received(data)
        if self._refused or self.transport.is_closing():
            self._disarm()
        elif self._in_head:
            if in_head:
                self._head_bytes += len(data)
                if self._head_bytes > MAX_HEAD_BYTES:
                    self.send_400_response(f"the request's head is over {MAX_HEAD_BYTES:,} bytes")
                    return
            if self._timer is None:
                self._arm(self._header_timeout, "head")
        elif self._in_body and self._timer is None:
            self._arm(self._body_timeout, "body")

    # The parser's callbacks

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head = True

    def on_headers_complete(self) -> None:
        self._in_head, self._in_body, self._head_bytes = False, True, 0
        self._disarm()
        refuse = (
            _too_many_connections
            if len(self.connections) > self._max_connections
            else _too_many_client_connections
            if self._over_client_cap
            else None
        )
        if refuse is not None:
            self.app = refuse  # for this request only
            try:
                super().on_headers_complete()
            finally:
                self.app = self.config.loaded_app
        else:
            super().on_headers_complete()
        cycle = self.cycle
        if cycle is not None and type(cycle) is RequestResponseCycle:
            # Its task has not run yet: its first send will be the subclass's.
            cycle.__class__ = _OneWriteCycle

    def on_message_complete(self) -> None:
        self._in_body = False
        self._disarm()
        super().on_message_complete()

    def shutdown(self) -> None:
        """The server stops: a streamed answer under way (chunked: a live stream) ends now;
        anything else finishes as uvicorn lets it."""
        cycle = self.cycle
        if cycle is not None and cycle.response_started and not cycle.response_complete and cycle.chunked_encoding:
            cycle.disconnected = True  # the handler's next send is dropped, its next receive a disconnect
            cycle.message_event.set()
            self.transport.write(b"0\r\n\r\n")  # the last chunk: the answer is whole
            self.transport.close()
        else:
            super().shutdown()

    # Refusals

    def send_400_response(self, msg: str) -> None:
        """Malformed HTTP (uvicorn's message is generic), or a head too large."""
        if msg == "Invalid HTTP request received.":
            msg = "the request is not valid HTTP/1.1"
        self._refuse(400, "invalid_request", msg)

    def _arm(self, seconds: float, part: str) -> None:
        self._disarm()
        self._timer = self.loop.call_later(seconds, self._late, part)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _late(self, part: str) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        seconds = self._header_timeout if part == "head" else self._body_timeout
        detail = f"the request's {part} did not arrive within {seconds:g} s"
        cycle = self.cycle
        # An answer may be written unless one (to an earlier request, for a late head) is under way.
        if cycle is None or (cycle.response_complete if part == "head" else not cycle.response_started):
            self._refuse(408, "request_timeout", detail)
        else:
            self._refused = True
            self._abandon_cycle()
            self.transport.close()

    def _abandon_cycle(self) -> None:
        """The handler of the request under way, if any, sees the client gone."""
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True
            cycle.message_event.set()
        self.pipeline.clear()

    def _refuse(self, status: int, code: str, detail: str) -> None:
        """Answer a problem, shut our side, drop what the client still sends, close."""
        self._refused = True
        self._disarm()
        self._abandon_cycle()
        body = _problem(status, code, detail)
        metrics.PROBLEMS.labels(code).inc()
        head = [STATUS_LINE[status]]
        # The request's own id is not read: its head may be incomplete or malformed.
        ours = [(WORKER_HEADER.encode(), worker), (REQUEST_ID, new_request_id())]
        for name, value in [*self.server_state.default_headers, *ours]:
            head += [name, b": ", value, b"\r\n"]
        head += [b"content-type: ", PROBLEM, b"\r\ncontent-length: ", str(len(body)).encode(), b"\r\n"]
        head += [b"connection: close\r\n\r\n", body]
        self.transport.write(b"".join(head))
        if self.transport.can_write_eof():
            self.transport.write_eof()
            self.loop.call_later(LINGER, self.transport.close)
        else:
            self.transport.close()
