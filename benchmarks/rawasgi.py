"""The floor under the bare endpoint: benchmarks/bare.py's answer (`GET /bare`, 200,
`{"status":"ok"}` as JSON) from a raw ASGI app, no framework, served by uvicorn the same way.
What a request costs uvicorn, uvloop and the ASGI calls alone; benchmarks/instructions.py
counts it beside the bare Litestar endpoint and the game. Any other path is 404, so that a
client that asked for the wrong thing cannot be counted as served."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import msgspec

# ASGI's shapes, loosely (a framework's typed events would not cover the lifespan ones).
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

#: The bare endpoint's body, encoded once as Litestar encodes it (msgspec, compact).
BODY = msgspec.json.encode({"status": "ok"})
HEADERS = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(BODY))]
NOT_FOUND = [(b"content-length", b"0")]


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] != "http":
        return
    if scope["path"] != "/bare" or scope["method"] != "GET":
        await send({"type": "http.response.start", "status": 404, "headers": NOT_FOUND})
        await send({"type": "http.response.body", "body": b""})
        return
    await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
    await send({"type": "http.response.body", "body": BODY})
