"""How the service's answers are sent: the hot routes' bare ASGI responses, and the
newline that ends every JSON answer.

The hot routes (read a game, play a card) carry nearly all of a game's traffic. Litestar's
Response goes through its response handler, a header multidict and its serializer, a
noticeable share of what a whole request costs the framework (figures:
docs/performance.md). These routes encode their body themselves (msgspec, the same bytes)
and hand Litestar an ASGI app that sends it (`JSONBytes`), which Litestar supports as a
handler's return value; their OpenAPI entries name the body's type explicitly. Errors still
leave as problem+json through the application's handlers (service.problems).

Every JSON answer ends with a newline, so that answers printed one after the other (curl in
a terminal) do not run together: JSONBytes adds it once, when it is made, and `Response`,
the application's response class, after Litestar has encoded a body.
"""

from __future__ import annotations

import os
from typing import Any, Final, TypeVar

from litestar import Response as LitestarResponse
from litestar.enums import ScopeType
from litestar.serialization import default_serializer
from litestar.types import HTTPResponseBodyEvent, HTTPResponseStartEvent, Receive, Scope, Send, Serializer

WORKER_HEADER = "x-poison-worker"
#: An HTTP request's scope type, Litestar's member bound once: the wrappers around the router
#: test every request against it, and `ScopeType.HTTP` costs an Enum's lookup on each test.
HTTP: Final = ScopeType.HTTP
#: Where GuardedRequest keeps a request's body in its scope's state (service.dependencies),
#: for the wording of a refusal that names a value of it (service.problems).
BODY_KEY = "poison.body"
T = TypeVar("T")


def _worker() -> bytes:
    return str(os.getpid()).encode()


#: Which process answered: lets tests and operators see the load spread across workers.
worker: bytes = _worker()
os.register_at_fork(after_in_child=lambda: globals().update(worker=_worker()))


def is_json(media_type: str) -> bool:
    """application/json and its kin (application/problem+json), not NDJSON."""
    kind = media_type.split(";", 1)[0].strip().lower()
    return kind == "application/json" or kind.endswith("+json")


class JSONBytes:
    """An encoded JSON body (without its final newline) and its status, sent as one response."""

    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, body: bytes, *, media_type: bytes = b"application/json") -> None:
        self.status = status
        self.body = body = body + b"\n"
        self.headers: list[tuple[bytes, bytes]] = [
            (b"content-type", media_type),
            (b"content-length", str(len(body)).encode()),
            (WORKER_HEADER.encode(), worker),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        start: HTTPResponseStartEvent = {"type": "http.response.start", "status": self.status, "headers": self.headers}
        body: HTTPResponseBodyEvent = {"type": "http.response.body", "body": self.body, "more_body": False}
        await send(start)
        await send(body)


def header(scope: Scope, name: bytes) -> str | None:
    """The first value of a request header (`name` in lower case), without building
    Litestar's header multidict."""
    for key, value in scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return None


class Response(LitestarResponse[T]):
    """Litestar's Response, with a newline after a JSON body: the application's
    `response_class`, and what a handler returns when it builds its own response."""

    def to_asgi_response(self, app: Any, request: Any, **kwargs: Any) -> Any:
        # A handler annotated `-> ASGIApp` gets Litestar's pass-through for its JSONBytes, but
        # Litestar picks that by the identity of the resolved annotation; once, in a long test
        # session with pytest-xdist, a hot route got the data handler instead, which wrapped its
        # JSONBytes in this class and failed to encode it (a 500 on a good move). Whatever picks
        # the handler, a JSONBytes is already the whole answer: send it as it is.
        if isinstance(self.content, JSONBytes):
            return self.content
        return super().to_asgi_response(app, request, **kwargs)

    def render(self, content: Any, media_type: str, enc_hook: Serializer = default_serializer) -> bytes:
        body = super().render(content, media_type, enc_hook)
        return body + b"\n" if is_json(media_type) and not body.endswith(b"\n") else body
