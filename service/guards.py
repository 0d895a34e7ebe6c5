"""What a worker bounds at the ASGI level, around the whole application, where the server
(granian, configured by service/commands/serve.py) does not: it sees requests, not
connections, so it counts what is under way and keeps every deadline a handler could
otherwise wait on for ever. It uses no private name of any library.

- **A deadline for a request's body**, `body_timeout` from the request's start, a total:
  a body trickled a byte at a time is dropped too. Past it the client gets 408
  `request_timeout` (if no answer has begun) with `Connection: close`, and the handler
  waiting for the body sees the client gone. The server's own deadline covers the head
  alone (`header_timeout`).
- **A cap on a worker's requests under way**, `max_connections`, live streams included:
  one beyond is 503 `too_many_connections` (with `Retry-After`). The server takes at most
  that many connections at once (the next waits in the listen queue), so over HTTP/1.1,
  one request at a time on a connection, this answers only what gets past the server's
  cap: it holds whatever the server's protocol.
- **A cap on each client address's requests under way**, `client_connections`, live
  streams included, by the client's address (a trusted proxy's forwarded one: this sits
  inside `Proxies.around`): one beyond is 429 `too_many_client_connections`, so one
  client cannot take a worker's `max_connections` from everyone else. A trusted proxy's
  own requests (with no forwarded client) are not counted.
- **A share of the connections kept open per client address**, `client_connections`
  too: the server holds a connection idle between two requests, counted against its cap
  of all, until the head's deadline. So an answer whose connection would leave its
  address holding more than its share (idle ones kept, service/clients.py's `KeptOpen`,
  and those under way) carries `Connection: close`, and the server closes that
  connection once it is sent. The request itself is answered as ever: a client that opens
  a connection per request only loses keep-alive. Behind a trusted proxy, its connections
  count for the client each last carried.
- **Live streams end at shutdown.** Told to stop (SIGTERM, or Ctrl-C), the server lets
  every answer under way finish, and a live stream never does. `end_streams_on_shutdown`,
  run in a worker once the server has set its own handlers of those signals, adds one
  that runs theirs too, and tells every guard: each stream's handler sees its client gone
  (its next wait for a disconnect returns one), and its answer is ended as a whole one
  ends, so an EventSource reconnects (with Last-Event-ID) to whichever instance serves.

Every refusal here is a problem as the application's are (service.problems), with the
request's `X-Request-Id`, and counted by its code (service/metrics.py).
"""

from __future__ import annotations

import asyncio
import signal
from typing import TYPE_CHECKING, Any

from service.clients import (
    PEER_KEY,
    Held,
    KeptOpen,
    Proxies,
    client_of,
    too_many_client_connections,
    too_many_connections,
)
from service.problems import ApiError, send_problem
from service.request_ids import HEADER as REQUEST_ID
from service.request_ids import SCOPE_KEY, request_id_of
from service.responses import HTTP

if TYPE_CHECKING:
    from collections.abc import Callable

    from litestar.types import ASGIApp, HTTPDisconnectEvent, Message, Receive, ReceiveMessage, Scope, Send

    from service.clients import Connection
    from service.settings import Settings

DISCONNECT: HTTPDisconnectEvent = {"type": "http.disconnect"}
CLOSE = (b"connection", b"close")
#: The signals on which the server stops gracefully.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Shutdown:
    """This process's news that the server is stopping, for every guard in it."""

    def __init__(self) -> None:
        self.begun = False
        self._waiting: set[asyncio.Future[None]] = set()

    def waiter(self) -> asyncio.Future[None]:
        """A future done when the shutdown begins (at once if it has); `forget` it after."""
        future = asyncio.get_running_loop().create_future()
        if self.begun:
            future.set_result(None)
        else:
            self._waiting.add(future)
        return future

    def forget(self, future: asyncio.Future[None]) -> None:
        self._waiting.discard(future)

    def begin(self) -> None:
        self.begun = True
        waiting, self._waiting = self._waiting, set()
        for future in waiting:
            if not future.done():
                future.set_result(None)


#: The one of this process (a worker serves one application).
SHUTDOWN = Shutdown()


async def end_streams_on_shutdown(*_: object) -> None:
    """A start-up hook of a served application: on SIGTERM or SIGINT, the handler the
    server set for it (granian sets its own before the application starts) runs as before,
    and `SHUTDOWN` begins. Signal handlers are chained through the `signal` module alone:
    the event loop's own handlers are registered there too."""
    loop = asyncio.get_running_loop()
    for number in STOP_SIGNALS:
        previous = signal.getsignal(number)
        signal.signal(number, _chained(loop, previous))


def _chained(loop: asyncio.AbstractEventLoop, previous: Any) -> Callable[[int, Any], None]:
    def stopping(number: int, frame: Any) -> None:
        if not loop.is_closed():
            loop.call_soon_threadsafe(SHUTDOWN.begin)
        if callable(previous):
            previous(number, frame)

    return stopping


class Guard:
    """The bounds of one worker's requests (see the module's words)."""

    def __init__(self, settings: Settings, shutdown: Shutdown = SHUTDOWN) -> None:
        self.body_timeout = settings.body_timeout
        self.most = settings.max_connections
        self.per_client = settings.client_connections
        self.proxies = Proxies(settings.trusted_proxies)
        self.shutdown = shutdown
        self.under_way = Held()  # requests by client address ("" for those not counted per client)
        self.kept_open = KeptOpen(lifetime=settings.header_timeout, most=settings.max_connections)
        # The requests waiting for a part of their body, watched by one timer for them all
        # (armed for the soonest deadline), not a timeout of their own each: every deadline
        # is a request's start plus the same `body_timeout`, so one timer seldom moves.
        self.awaiting: dict[_Request, None] = {}
        self.timer: asyncio.TimerHandle | None = None
        self.timer_at = 0.0  # the deadline it is armed for
        self.timer_loop: asyncio.AbstractEventLoop | None = None  # and on which loop (an app may outlive one)

    def around(self, app: ASGIApp) -> ASGIApp:
        async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != HTTP:
                await app(scope, receive, send)
                return
            client = scope.get("client")
            # Over a Unix socket (no client), or a trusted proxy's own: not counted per client.
            address = "" if not client or self.proxies.trusts(client[0]) else client_of(client[0])
            refusal = self._refusal(address)
            if refusal is not None:
                await send_problem(send, refusal, (REQUEST_ID, request_id_of(scope)), CLOSE)
                return
            request = _Request(self, scope, receive, send, address)
            # The connection it came on (a trusted proxy's, when the client is forwarded).
            connection: Connection | None = (scope.get(PEER_KEY) or client) if address else None  # type: ignore[assignment]
            if connection is not None:
                self.kept_open.busy(connection)
            self.under_way.take(address)
            try:
                await request.run(app)
            finally:
                self.under_way.give_back(address)
                if connection is not None and not request.closing:
                    self.kept_open.idle(connection, address, asyncio.get_running_loop().time())

        return guarded

    def wait_for_body(self, request: _Request) -> None:
        """`request` waits for a part of its body until its deadline."""
        self.awaiting[request] = None
        loop = asyncio.get_running_loop()
        if self.timer is None or request.deadline < self.timer_at or self.timer_loop is not loop:
            # None armed, or armed too late (a request that started earlier waits only now),
            # or on a loop that is not this one (which may be gone: its timer is left alone).
            if self.timer is not None and self.timer_loop is loop:
                self.timer.cancel()
            self._arm(loop, request.deadline)

    def _arm(self, loop: asyncio.AbstractEventLoop, deadline: float) -> None:
        self.timer, self.timer_at, self.timer_loop = loop.call_at(deadline, self._expire), deadline, loop

    def _expire(self) -> None:
        """Each request whose deadline has passed while it waits is told so (its waiting
        task cancelled, and the cancellation taken as the deadline's: `_Request.received`);
        the timer is armed again for the soonest deadline left."""
        self.timer = None
        loop = asyncio.get_running_loop()
        now = loop.time()
        for request in [request for request in self.awaiting if request.deadline <= now]:
            del self.awaiting[request]
            request.expire()
        if self.awaiting:
            self._arm(loop, min(request.deadline for request in self.awaiting))

    def beyond_share(self, address: str) -> bool:
        """Whether one more connection of `address` kept open (the one whose answer begins,
        counted under way) would take it past its share."""
        kept = self.kept_open
        if kept[address] + self.under_way[address] <= self.per_client:
            return False
        # Past it by the table, which is pruned as answers end: unless the server has closed
        # some of them since the last one ended.
        kept.prune(asyncio.get_running_loop().time())
        return kept[address] + self.under_way[address] > self.per_client

    def _refusal(self, address: str) -> ApiError | None:
        if self.under_way.total >= self.most:
            return too_many_connections(self.most)
        if address and self.under_way[address] >= self.per_client:
            return too_many_client_connections(self.per_client)
        return None


class _Request:
    """One request under a guard: its body's deadline, its answer's progress."""

    __slots__ = (
        "address",
        "answered",
        "body_done",
        "closing",
        "deadline",
        "ended",
        "expired",
        "guard",
        "receive",
        "scope",
        "send",
        "started",
        "waiting",
    )

    def __init__(self, guard: Guard, scope: Scope, receive: Receive, send: Send, address: str) -> None:
        self.guard, self.scope, self.receive, self.send = guard, scope, receive, send
        self.address = address  # its client's ("" when not counted per client)
        self.deadline = asyncio.get_running_loop().time() + guard.body_timeout
        self.body_done = False  # the body's last part has been received
        self.started = False  # the answer's head has gone
        self.answered = False  # the answer is whole (or refused here): the handler's sends are dropped
        self.ended = False  # the handler was told the client left: it ends without a last part
        self.closing = False  # its answer closes the connection
        self.waiting: asyncio.Task[Any] | None = None  # the task waiting for a part of the body
        self.expired = False  # the deadline passed while it waited: its cancellation is the deadline's

    async def run(self, app: ASGIApp) -> None:
        await app(self.scope, self.received, self.sent)
        if self.ended and self.started and not self.answered:
            # A stream ended at shutdown (its handler stopped at the news): its last part.
            self.answered = True
            await self.send({"type": "http.response.body", "body": b"", "more_body": False})

    async def received(self) -> ReceiveMessage:
        if self.ended:
            return DISCONNECT
        if self.body_done:
            return await self._disconnect_or_shutdown()
        task = self.waiting = asyncio.current_task()
        assert task is not None  # an ASGI application runs in a task
        cancelling = task.cancelling()
        self.guard.wait_for_body(self)
        try:
            message = await self.receive()
        except asyncio.CancelledError:
            # The deadline's own cancellation is taken back (as asyncio.timeout does); any
            # other (the server's, the handler's) goes on.
            if not self.expired or task.uncancel() > cancelling:
                raise
            await self._late()
            return DISCONNECT
        finally:
            self.guard.awaiting.pop(self, None)
            self.waiting = None
        if self.expired:  # the body came as the deadline passed: the deadline wins
            task.uncancel()
            await self._late()
            return DISCONNECT
        if message["type"] != "http.request" or not message.get("more_body", False):
            self.body_done = True
        return message

    def expire(self) -> None:
        """The body's deadline has passed while this request waits for a part of it."""
        if self.waiting is not None:
            self.expired = True
            self.waiting.cancel()

    async def sent(self, message: Message) -> None:
        if self.answered:
            return
        if message["type"] == "http.response.start":
            self.started = True
            if self.address and self.guard.beyond_share(self.address):
                # A copy: the application may send the same headers again (prebuilt ones).
                message = {**message, "headers": [*message.get("headers", ()), CLOSE]}
                self.closing = True
        elif message["type"] == "http.response.body" and not message.get("more_body", False):
            self.answered = True
        await self.send(message)

    async def _disconnect_or_shutdown(self) -> ReceiveMessage:
        """After the body, a handler waits only to learn that its client left (a live
        stream does, all along): it learns it of the shutdown too."""
        shutdown = self.guard.shutdown
        stopping = shutdown.waiter()
        left = asyncio.ensure_future(self.receive())
        try:
            await asyncio.wait((left, stopping), return_when=asyncio.FIRST_COMPLETED)
        except BaseException:  # the handler cancelled while it waited: nothing waits on for it
            left.cancel()
            raise
        finally:
            shutdown.forget(stopping)
        if left.done():
            stopping.cancel()
            return left.result()
        left.cancel()
        self.ended = True
        return DISCONNECT

    async def _late(self) -> None:
        """The body's deadline passed: 408 if no answer has begun; the handler sees the
        client gone either way."""
        self.ended = True
        if self.started:
            return
        self.answered = True
        self.closing = True
        seconds = self.guard.body_timeout
        refusal = ApiError(408, "request_timeout", f"the request's body did not arrive within {seconds:g} s")
        request_id = self.scope.get(SCOPE_KEY)
        if not isinstance(request_id, bytes):
            request_id = request_id_of(self.scope)
        await send_problem(self.send, refusal, (REQUEST_ID, request_id), CLOSE)


__all__ = ["SHUTDOWN", "Guard", "Shutdown", "end_streams_on_shutdown"]
