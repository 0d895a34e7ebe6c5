"""The load benchmarks' client: a few lines of HTTP/1.1 on an asyncio protocol, run on
uvloop, each connection kept alive, one request at a time; the tally of what a phase of
clients measured; and whole four-seat games played through it (a GET of the seat to move,
then its POST). benchmarks/load.py, benchmarks/clocked.py, benchmarks/servers.py and
benchmarks/instructions.py drive it. Not httpx: a heavier client would eat the CPU the
servers share with it (two cores) and flatter the ratios.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

import msgspec

HOST = "127.0.0.1"
T = TypeVar("T")


class Connection(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection, one request at a time. A protocol rather than
    asyncio's streams: an answer is parsed once when its last byte arrives, and its awaiter
    woken once (streams woke it for every header line). With uvloop (`run`), the clients
    take less of the CPU the servers share with them (figures: docs/performance.md)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.transport: asyncio.Transport | None = None
        self.buffer = b""
        self.answer: asyncio.Future[tuple[int, bytes]] | None = None
        self.lost: Exception | None = None

    async def request(self, method: str, path: str, body: bytes = b"", token: str | None = None) -> tuple[int, bytes]:
        loop = asyncio.get_running_loop()
        if self.transport is None or self.lost is not None:
            self.buffer, self.lost = b"", None
            await loop.create_connection(lambda: self, HOST, self.port)
        assert self.transport is not None
        head = f"{method} {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Length: {len(body)}\r\n"
        if body:
            head += "Content-Type: application/json\r\n"
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        self.answer = loop.create_future()
        self.transport.write(head.encode() + b"\r\n" + body)
        return await self.answer

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0 or self.answer is None or self.answer.done():
            return
        head = self.buffer[:end].lower()
        at = head.find(b"\r\ncontent-length:")
        length = 0
        if at >= 0:  # 17: the length of "\r\ncontent-length:"
            stop = head.find(b"\r\n", at + 17)
            length = int(head[at + 17 : stop if stop >= 0 else None])
        if len(self.buffer) < end + 4 + length:
            return
        status = int(head[9:12])
        body, self.buffer = self.buffer[end + 4 : end + 4 + length], self.buffer[end + 4 + length :]
        self.answer.set_result((status, body))

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = exc or ConnectionResetError("the server closed the connection")
        if self.answer is not None and not self.answer.done():
            self.answer.set_exception(self.lost)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()
            self.transport = None


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    moves: int = 0
    cpu: float = 0.0  # the clients' process's CPU seconds

    def absorb(self, other: Tally) -> None:
        self.latencies += other.latencies
        self.errors += other.errors
        self.moves += other.moves
        self.cpu += other.cpu

    async def timed(
        self, connection: Connection, method: str, path: str, body: bytes = b"", token: str | None = None
    ) -> tuple[int, bytes]:
        started = time.perf_counter()
        try:
            status, body = await connection.request(method, path, body, token)
        except (OSError, ValueError) as error:
            self.errors.append(repr(error))
            connection.close()
            return 0, b""
        self.latencies.append(time.perf_counter() - started)
        if status >= 400:
            self.errors.append(f"{status} {body[:200]!r}")
        return status, body


NEW_GAME = msgspec.json.encode({"players": [{"name": n} for n in ("ana", "bob", "cy", "di")]})


async def play_games(
    port: int, moves: int, tally: Tally, rng: random.Random, stop: asyncio.Event | None = None
) -> None:
    """Play whole games until `moves` moves are made, or `stop` is set."""
    connection = Connection(port)
    made = 0
    try:
        while made < moves and not (stop is not None and stop.is_set()):
            status, body = await tally.timed(connection, "POST", "/v1/games", NEW_GAME)
            if status != 201:
                return
            created = msgspec.json.decode(body)
            game_id, turn = created["game_id"], created["game"]["turn"]
            tokens = {p["seat"]: p["token"] for p in created["players"]}
            while turn is not None and made < moves and not (stop is not None and stop.is_set()):
                status, body = await tally.timed(connection, "GET", f"/v1/games/{game_id}", token=tokens[turn])
                if status != 200:
                    return
                move = rng.choice(msgspec.json.decode(body)["you"]["legal_moves"])
                status, body = await tally.timed(
                    connection, "POST", f"/v1/games/{game_id}/moves", msgspec.json.encode(move), token=tokens[turn]
                )
                if status != 201:
                    return
                turn = msgspec.json.decode(body)["game"]["turn"]
                made += 1
                tally.moves += 1
    finally:
        connection.close()


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run the clients on uvloop, the loop the servers run on, if it is installed
    (uvicorn[standard] brings it); else on asyncio's."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)
