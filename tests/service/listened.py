"""A request of the app under test as bare ASGI, under way while the test goes on: the
async test client answers one request at a time and reads an answer whole, which a live
stream never is until it ends. `Listened` runs the request on the test client's own event
loop (its portal, where the app's lifespan opened the store), and keeps its status, headers
and each body part with the time it was sent, as the app sent them."""

from __future__ import annotations

import threading
import time
from typing import Any

import anyio
import msgspec
from litestar.testing import AsyncTestClient

from tests.service.api import http_scope, parse_stream
from tests.waiting import until_async


class Listened:
    """One request of the app as bare ASGI, under way in the test client's portal: its
    status, headers and each body part with the time it was sent."""

    def __init__(
        self, client: AsyncTestClient, path: str, *, address: str = "127.0.0.1", headers: dict[str, str] | None = None
    ) -> None:
        self.status: int | None = None
        self.started_at = 0.0
        self.headers: dict[str, str] = {}
        self.parts: list[tuple[float, bytes]] = []
        self.started = threading.Event()
        self.ended = threading.Event()
        self._gone = False
        scope = http_scope("GET", path, headers, client=(address, 50_000))
        self._asked = False
        self.done = client.blocking_portal.start_task_soon(client.app, scope, self._receive, self._send)

    async def _receive(self) -> dict[str, Any]:
        if not self._asked:
            self._asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        while not self._gone and not self.ended.is_set():  # the client stays until it leaves
            await anyio.sleep(0.01)
        return {"type": "http.disconnect"}

    async def _send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.started_at = time.monotonic()
            self.headers = {k.decode(): v.decode() for k, v in message.get("headers", [])}
            self.started.set()
        elif message["type"] == "http.response.body":
            self.parts.append((time.monotonic(), message.get("body", b"")))
            if not message.get("more_body", False):
                self.ended.set()

    @property
    def text(self) -> str:
        return b"".join(part for _, part in self.parts).decode()

    def messages(self) -> list[tuple[int, str, dict]]:
        return parse_stream(self.text.replace("\r\n", "\n"))

    def problem(self) -> dict:
        return msgspec.json.decode(self.text)

    async def opened(self) -> int:
        await until_async(self.started.is_set, what="the answer to start")
        assert self.status is not None
        return self.status

    async def close(self) -> None:
        """The client leaves (if the answer has not ended): the request's task is done after."""
        self._gone = True
        await until_async(self.done.done, what="the request to be over")
        self.done.result()
