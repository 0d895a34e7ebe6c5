"""The answers of the hot routes (read a game, play a card) as bare ASGI responses.

Those two routes carry nearly all of a game's traffic. Litestar's Response goes through
its response handler, a header multidict and its serializer: about 7 µs a request, a
tenth of what a whole request costs the framework. These routes encode their body
themselves (msgspec, the same bytes) and hand Litestar an ASGI app that sends it, which
Litestar supports as a handler's return value; their OpenAPI entries name the body's type
explicitly. Errors still leave as problem+json through the application's handlers.
"""

from __future__ import annotations

import os

from litestar.types import Receive, Scope, Send

WORKER_HEADER = "x-poison-worker"


def _worker() -> bytes:
    return str(os.getpid()).encode()


#: Which process answered: lets tests and operators see the load spread across workers.
worker: bytes = _worker()
os.register_at_fork(after_in_child=lambda: globals().update(worker=_worker()))


class JSONBytes:
    """An encoded JSON body and its status, sent as one response."""

    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, body: bytes, *, media_type: bytes = b"application/json") -> None:
        self.status = status
        self.body = body
        self.headers = [
            (b"content-type", media_type),
            (b"content-length", str(len(body)).encode()),
            (WORKER_HEADER.encode(), worker),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status, "headers": self.headers})
        await send({"type": "http.response.body", "body": self.body})


def header(scope: Scope, name: bytes) -> str | None:
    """The first value of a request header (`name` in lower case), without building
    Litestar's header multidict."""
    for key, value in scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return None
