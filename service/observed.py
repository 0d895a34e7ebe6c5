"""What every request leaves behind: its id in the answer's `X-Request-Id` (service/
request_ids.py), its observation in the metrics (service/metrics.py), the live streams
open, and, when the access log is on in JSON (service/logs.py), its line.

One ASGI wrapper around the whole application, outside Litestar's middleware: it costs a
closure, two clock readings, one header appended and one histogram observation a request
(no Request object, no header multidict), so the hot routes stay hot.
"""

from __future__ import annotations

import logging
from time import perf_counter

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from service import metrics, request_ids
from service.logs import ACCESS_LOGGER, FIELDS
from service.request_ids import HEADER, SCOPE_KEY, request_id_of

STREAM = b"text/event-stream"
_access = logging.getLogger(ACCESS_LOGGER)


def observed(handler: ASGIApp, *, access_log: bool) -> ASGIApp:
    """`handler`, each of whose HTTP requests gets an id, is measured, and (`access_log`) logged."""

    async def observe(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await handler(scope, receive, send)
            return
        request_id = request_id_of(scope)
        scope[SCOPE_KEY] = request_id  # type: ignore[literal-required]
        request_ids.current.set(request_id)  # this request's task: its log lines name it
        status = 500  # if nothing is answered, the server answers 500
        streaming = False
        started = perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status, streaming
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = message["headers"]
                for name, value in headers:
                    if name == b"content-type" and value.startswith(STREAM):
                        streaming = True
                        metrics.LIVE_STREAMS.inc()
                message["headers"] = [*headers, (HEADER, request_id)]
            await send(message)

        try:
            await handler(scope, receive, send_with_id)
        finally:
            seconds = perf_counter() - started
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
                _access.info("%s %s %d", scope["method"], scope["path"], status, extra={FIELDS: fields})

    return observe
