"""What every request leaves behind: its id in the answer's `X-Request-Id` (service/
request_ids.py), its observation in the metrics (service/metrics.py), the live streams
open, and, when the access log is on in JSON (service/logs.py), its line.

A client that leaves before its answer begins (an upload abandoned mid-body, a move whose
client hung up) gets nothing: its request is counted and logged under CLIENT_LEFT, never as
the 500 the handler may still have tried to answer, which no one received.

One ASGI wrapper around the whole application, outside Litestar's middleware: it costs a
closure, two clock readings, one header appended and one histogram observation a request
(no Request object, no header multidict), so the hot routes stay hot.
"""

from __future__ import annotations

import logging
from time import perf_counter

from litestar.types import ASGIApp, Message, Receive, ReceiveMessage, Scope, Send

from service import metrics, request_ids
from service.logs import ACCESS_LOGGER, FIELDS
from service.request_ids import HEADER, SCOPE_KEY, request_id_of
from service.responses import HTTP

STREAM = b"text/event-stream"
#: The status a request is counted and logged under when its client left before its answer
#: began: nginx's "client closed request", which no server sends but every log reader knows.
CLIENT_LEFT = 499
#: The scope's mark that the client has left (service/problems.py then answers no problem).
LEFT_KEY = "poison.client_left"
_access = logging.getLogger(ACCESS_LOGGER)


#: The methods answered by `observed`'s `head_and_options` rather than its `handler`.
HEAD_AND_OPTIONS = frozenset({"HEAD", "OPTIONS"})


def observed(handler: ASGIApp, *, access_log: bool, head_and_options: ASGIApp | None = None) -> ASGIApp:
    """`handler`, each of whose HTTP requests gets an id, is measured, and (`access_log`) logged;
    a HEAD or an OPTIONS given to `head_and_options` when there is one. (One wrapper choosing
    where each request goes, rather than one more around the router that every request passes
    through to reach it.)"""

    async def observe(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != HTTP:
            await handler(scope, receive, send)
            return
        answer = head_and_options if head_and_options is not None and scope["method"] in HEAD_AND_OPTIONS else handler
        request_id = request_id_of(scope)
        scope[SCOPE_KEY] = request_id  # type: ignore[literal-required]
        request_ids.current.set(request_id)  # this request's task: its log lines name it
        status = 500  # if nothing is answered, the server answers 500
        streaming = False
        answering = False
        left = False  # the client left before its answer began
        started = perf_counter()

        async def receive_until_left() -> ReceiveMessage:
            nonlocal left
            message = await receive()
            if message["type"] == "http.disconnect" and not answering:
                left = True
                scope[LEFT_KEY] = True  # type: ignore[literal-required]
            return message

        async def send_with_id(message: Message) -> None:
            nonlocal status, streaming, answering
            if message["type"] == "http.response.start":
                answering = True
                status = message["status"]
                headers = message["headers"]
                for name, value in headers:
                    if name == b"content-type" and value.startswith(STREAM):
                        streaming = True
                        metrics.LIVE_STREAMS.inc()
                message["headers"] = [*headers, (HEADER, request_id)]
            await send(message)

        try:
            await answer(scope, receive_until_left, send_with_id)
        finally:
            seconds = perf_counter() - started
            if left:
                status = CLIENT_LEFT
            if streaming:
                metrics.LIVE_STREAMS.dec()
            route = scope.get("path_template") or metrics.UNMATCHED
            metrics.observe(scope["method"], route, status, seconds)
            if access_log:
                client = scope.get("client")
                fields = {
                    "method": scope["method"],
                    "route": route,
                    "path": scope["path"],
                    "status": status,
                    "duration_ms": round(seconds * 1000, 3),
                    "client": f"{client[0]}:{client[1]}" if client else None,
                }
                if left:
                    fields["disconnected"] = True
                _access.info("%s %s %d", scope["method"], scope["path"], status, extra={FIELDS: fields})

    return observe
