"""Slow and broken clients against a real `poison serve`: a connection whose head does not
arrive in time is closed by the server, a request whose body does not is answered 408 and
its connection closed, connections beyond the cap of a worker wait until one is free,
malformed HTTP is refused by the server without a 5xx, and the service answers everyone
else all along. Traffic goes to 127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import msgspec
import pytest

from events.server import free_port
from tests.service.served import command, environment, stop, wait_until_up
from tests.waiting import until

pytestmark = pytest.mark.faults

TIMEOUT = 1.0  # POISON_HEADER_TIMEOUT and POISON_BODY_TIMEOUT in these tests
#: How much longer than TIMEOUT a slow connection may be held on a busy machine; without the
#: timeouts the server would hold it for ever.
SLACK = 5.0
CAP = 12  # POISON_MAX_CONNECTIONS in the test of the cap


def serve(data: Path, **settings: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    process = subprocess.Popen(
        command(port, data_dir=data), env=environment(**settings), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    wait_until_up(process, f"http://127.0.0.1:{port}/health")
    return process, port


@pytest.fixture(scope="module")
def impatient(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """`poison serve` with one worker and 1 s for a head or a body."""
    process, port = serve(
        tmp_path_factory.mktemp("slow"), POISON_HEADER_TIMEOUT=str(TIMEOUT), POISON_BODY_TIMEOUT=str(TIMEOUT)
    )
    yield port
    stop(process)


def opened(port: int, data: bytes) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    if data:
        sock.sendall(data)
    sock.setblocking(False)
    return sock


def read_until_closed(socks: list[socket.socket], seconds: float) -> tuple[dict[socket.socket, bytes], dict, list]:
    """Read every socket until the server closes it or `seconds` pass: what each received,
    when each was closed (seconds from now), and those still open."""
    started = time.monotonic()
    received = {sock: b"" for sock in socks}
    closed_after: dict[socket.socket, float] = {}
    with selectors.DefaultSelector() as selector:
        for sock in socks:
            selector.register(sock, selectors.EVENT_READ)
        while len(closed_after) < len(socks):
            left = started + seconds - time.monotonic()
            if left <= 0:
                break
            for key, _ in selector.select(left):
                sock = key.fileobj
                try:
                    chunk = sock.recv(65536)
                except ConnectionResetError:
                    chunk = b""
                if chunk:
                    received[sock] += chunk
                else:
                    closed_after[sock] = time.monotonic() - started
                    selector.unregister(sock)
    still_open = [sock for sock in socks if sock not in closed_after]
    return received, closed_after, still_open


def parse(response: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = response.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, body


def test_half_sent_heads_and_bodies_are_dropped_in_bounded_time_while_others_are_served(impatient):
    port = impatient
    silent = [opened(port, b"") for _ in range(10)]  # connect and say nothing
    heads = [opened(port, b"GET /v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ") for _ in range(20)]
    bodies = [
        opened(
            port,
            b"POST /v1/replays HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-ndjson\r\n"
            b'Content-Length: 1000\r\n\r\n{"version": 1',
        )
        for _ in range(20)
    ]
    socks = silent + heads + bodies
    try:
        # Meanwhile everyone else is answered (the client's timeout only guards against a hang).
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
            for _ in range(5):
                assert http.get("/health").status_code == 200
                assert http.get("/v1/games").status_code == 200
        window = TIMEOUT + 2 * SLACK
        received, closed_after, still_open = read_until_closed(socks, window)
        assert not still_open, f"{len(still_open)} of {len(socks)} slow connections still held after {window} s"
        held = max(closed_after.values())
        print(f"{len(socks)} slow connections, all closed after at most {held:.2f} s")
        assert held < TIMEOUT + SLACK
        # A late head is the server's to drop: it closes the connection and answers nothing.
        assert all(received[sock] == b"" for sock in silent + heads)
        for sock in bodies:
            status, headers, body = parse(received[sock])
            assert status == 408, received[sock]
            assert headers["content-type"] == "application/problem+json"
            assert headers["connection"] == "close"
            problem = msgspec.json.decode(body)
            assert problem["code"] == "request_timeout"
            assert problem["status"] == 408
    finally:
        for sock in socks:
            sock.close()


def test_a_body_that_keeps_trickling_is_still_dropped_at_its_deadline(impatient):
    head = b"POST /v1/replays HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-ndjson\r\n"
    sock = opened(impatient, head + b"Content-Length: 500\r\n\r\n")
    started = time.monotonic()
    received, answered, closed = b"", None, None
    try:
        while time.monotonic() - started < TIMEOUT + 2 * SLACK and closed is None:
            with contextlib.suppress(OSError):  # once the server has closed its side
                sock.send(b" ")  # a byte every 50 ms (or less often): never idle, never done (500)
            time.sleep(0.05)
            try:
                chunk = sock.recv(65536)
            except BlockingIOError:
                continue
            except ConnectionResetError:
                chunk = b""
            received += chunk
            if answered is None and b"\r\n\r\n" in received:
                answered = time.monotonic() - started
            if not chunk:
                closed = time.monotonic() - started
        assert received.startswith(b"HTTP/1.1 408 "), received
        assert answered is not None
        assert answered < TIMEOUT + SLACK, f"a trickling body was answered after {answered:.2f} s"
        assert closed is not None, "the connection is closed, however much the client still sends"
    finally:
        sock.close()


@pytest.mark.parametrize(
    ("garbage", "refused"),
    [
        (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 400),
        (b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n", 400),
        (b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 70_000, 431),  # and never ends
    ],
    ids=["tls-handshake", "negative-content-length", "head-over-64-KiB"],
)
def test_malformed_http_is_refused_by_the_server_without_a_5xx_and_the_connection_closed(impatient, garbage, refused):
    # The server answers these itself, before any request reaches the application: a status
    # and no body (docs/architecture.md says why it cannot be a problem+json).
    sock = opened(impatient, garbage)
    try:
        received, _, still_open = read_until_closed([sock], 5)
        assert not still_open, "the connection is closed after the answer"
        status, headers, body = parse(received[sock])
        assert status == refused, received[sock]
        assert headers["connection"] == "close"
        assert body == b""
    finally:
        sock.close()


def test_connections_beyond_the_cap_wait_until_one_is_free_and_are_served_then(tmp_path):
    process, port = serve(tmp_path / "data", POISON_MAX_CONNECTIONS=str(CAP), POISON_HEADER_TIMEOUT="30")
    holders: list[socket.socket] = []
    try:
        holders = [opened(port, b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n") for _ in range(CAP)]

        def held_back() -> bool:
            # Until the worker has taken every holder, a request still fits under the cap (and,
            # answered, leaves): asking again is harmless.
            try:
                with httpx.Client(timeout=1) as http:
                    http.get(f"http://127.0.0.1:{port}/health")
            except httpx.TimeoutException:
                return True
            return False

        # Within the holders' 30 s for a head, a connection beyond the cap is not taken.
        until(held_back, deadline=20, what="a connection beyond the cap held back")
        waiting: list[int] = []
        waiter = threading.Thread(
            target=lambda: waiting.append(httpx.get(f"http://127.0.0.1:{port}/health", timeout=30).status_code)
        )
        waiter.start()
        for sock in holders:
            sock.close()
        waiter.join(35)
        assert waiting == [200], "the waiting connection is served once the others are gone"
    finally:
        for sock in holders:
            sock.close()
        stop(process)


@pytest.mark.parametrize(
    "setting",
    ["POISON_HEADER_TIMEOUT=0", "POISON_BODY_TIMEOUT=-1", "POISON_MAX_CONNECTIONS=0", "POISON_STORE_RESTART_DELAY=61"],
)
def test_out_of_bounds_settings_stop_serve_before_it_starts(setting, tmp_path):
    name, value = setting.split("=")
    env = {k: v for k, v in os.environ.items() if not k.startswith("POISON_")} | {name: value}
    result = subprocess.run(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(free_port()), "--data-dir", str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert result.returncode == 2, result.stderr
    assert name.removeprefix("POISON_").lower() in result.stderr
