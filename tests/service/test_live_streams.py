"""A thousand live streams on one worker of a real `poison serve` (issue 11, defect 2):
waiting for new events costs no store connection per stream, so ordinary requests are
still answered 200 and every stream sees the next move."""

from __future__ import annotations

import asyncio
import resource
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.service.served import serving
from tests.waiting import blocked, metric, until_async

pytestmark = pytest.mark.subprocess

STREAMS = 1000


@pytest.fixture
def one_worker(tmp_path: Path, redis_url: str, namespace: str) -> Iterator[tuple[str, str]]:
    """The service's base URL and its store's: the session's, so that the test can ask the
    store what the worker's connections are doing."""
    # Every stream comes from this one address: its caps are raised to let them all in.
    caps = {"POISON_CLIENT_STREAMS": str(STREAMS), "POISON_CLIENT_CONNECTIONS": str(STREAMS + 100)}
    with serving(tmp_path, POISON_REDIS_URL=redis_url, POISON_NAMESPACE=namespace, **caps) as base:
        yield base, redis_url


async def _open_stream(port: int, path: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nLast-Event-ID: 2\r\n\r\n".encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head[:200]
    return reader, writer


async def _next_id(reader: asyncio.StreamReader) -> str:
    while True:
        line = await reader.readline()
        if not line:
            return "closed"
        if line.startswith(b"id: "):
            return line[4:].strip().decode()


async def _thousand_streams(base: str, store: str) -> None:
    port = int(base.rsplit(":", 1)[1])
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        created = (await http.post("/v1/games", json={"players": [{"name": n} for n in "abc"], "seed": 3})).json()
        game_id = created["game_id"]
        token = created["players"][1]["token"]
        path = f"/v1/games/{game_id}/events/stream"
        streams: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        for start in range(0, STREAMS, 100):  # opened 100 at a time, each answered 200
            batch = [_open_stream(port, path) for _ in range(start, min(start + 100, STREAMS))]
            try:
                streams += await asyncio.wait_for(asyncio.gather(*batch), 30)
            except TimeoutError:
                pytest.fail(f"streams {start} to {start + 99} were not all answered within 30 s")
        try:
            # Every stream is open (the worker counts it once its head is sent) and waits for
            # the next event on the worker's one blocking read, which the store shows blocked.
            def waiting() -> bool:
                return metric(base, "poison_live_streams") == STREAMS and bool(blocked(store, "xread"))

            await until_async(waiting, what=f"{STREAMS} streams waiting on a blocked read")
            for route in ("/v1/games", f"/v1/games/{game_id}", f"/v1/games/{game_id}/events", "/health"):
                for _ in range(5):
                    response = await http.get(route)
                    assert response.status_code == 200, (route, response.text)
            mine = (await http.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"})).json()
            move = mine["you"]["legal_moves"][0]
            started = time.monotonic()
            played = await http.post(
                f"/v1/games/{game_id}/moves", json=move, headers={"Authorization": f"Bearer {token}"}
            )
            assert played.status_code == 201, played.text
            pending = [asyncio.ensure_future(_next_id(reader)) for reader, _ in streams]
            done, _ = await asyncio.wait(pending, timeout=30)
            seen = [task.result() if task in done else "nothing within 30 s" for task in pending]
            took = time.monotonic() - started
            assert seen == ["3"] * STREAMS, {answer: seen.count(answer) for answer in set(seen)}
            print(f"{STREAMS} streams saw the move {took:.2f} s after it was played")
            assert (await http.get("/v1/games")).status_code == 200
        finally:
            for _, writer in streams:
                writer.close()


def test_a_thousand_open_streams_on_one_worker_leave_the_store_to_everyone_else(one_worker):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 4 * STREAMS:  # this process holds a socket per stream
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8 * STREAMS), hard))
    asyncio.run(asyncio.wait_for(_thousand_streams(*one_worker), 120))
