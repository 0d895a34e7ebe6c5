"""What one client address may hold of a real `poison serve` (issue 27, item 3), over real
sockets: requests under way per client address (service/guards.py), live streams per
client address, and whose X-Forwarded-For names the client (a trusted proxy's alone)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import msgspec
import pytest

from tests.service.served import serving
from tests.waiting import until

pytestmark = pytest.mark.subprocess

PLAYERS = {"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}
ONE_GAME = {"POISON_CREATE_BURST": "1", "POISON_CREATE_RATE": "0.001"}  # a second new game is 429


def port_of(base: str) -> int:
    return int(base.rsplit(":", 1)[1])


def from_address(address: str) -> httpx.Client:
    """A client whose connections leave from `address` (any of 127.0.0.0/8 reaches the service)."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=10)


def head_of(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """An answer's status, headers and what of its body came with them."""
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = sock.recv(65536)
        if not chunk:
            break
        received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    while len(body) < int(headers.get("content-length", 0)):  # a whole answer: all of it
        body += sock.recv(65536)
    return int(lines[0].split()[1]), headers, body


@pytest.fixture
def sockets() -> Iterator[list[socket.socket]]:
    opened: list[socket.socket] = []
    yield opened
    for sock in opened:
        sock.close()


def stream(port: int, path: str, opened: list[socket.socket], **headers: str) -> tuple[int, dict[str, str], bytes]:
    """A live stream asked on a connection of its own, left open: its answer's head."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    opened.append(sock)
    lines = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{lines}\r\n".encode())
    return head_of(sock)


def test_an_untrusted_peers_x_forwarded_for_is_ignored_so_it_cannot_pose_as_another_client(tmp_path: Path):
    with serving(tmp_path, **ONE_GAME) as base, httpx.Client(base_url=base, timeout=10) as http:
        assert http.post("/v1/games", json=PLAYERS).status_code == 201
        posing = http.post("/v1/games", json=PLAYERS, headers={"X-Forwarded-For": "10.9.9.9"})
        assert posing.status_code == 429, "the peer's own bucket, whatever it says it forwards"
        assert posing.json()["code"] == "rate_limited"


def test_a_trusted_proxys_clients_are_each_their_forwarded_address_and_its_own_connections_are_not_capped(
    tmp_path: Path, sockets: list[socket.socket]
):
    settings = {
        **ONE_GAME,
        "POISON_TRUSTED_PROXIES": "127.0.0.1",
        "POISON_CLIENT_CONNECTIONS": "2",
        "POISON_CLIENT_STREAMS": "1",
    }
    with serving(tmp_path, **settings) as base, httpx.Client(base_url=base, timeout=10) as http:
        created = http.post("/v1/games", json=PLAYERS, headers={"X-Forwarded-For": "10.9.9.1"})
        assert created.status_code == 201
        assert http.post("/v1/games", json=PLAYERS, headers={"X-Forwarded-For": "10.9.9.1"}).status_code == 429
        assert http.post("/v1/games", json=PLAYERS, headers={"X-Forwarded-For": "10.9.9.2"}).status_code == 201
        # Four connections from the proxy, past its two as a client: its streams are capped by
        # the address each forwards, one each.
        path = f"/v1/games/{created.json()['game_id']}/events/stream"
        port = port_of(base)
        assert stream(port, path, sockets, **{"X-Forwarded-For": "10.9.9.1"})[0] == 200
        assert stream(port, path, sockets, **{"X-Forwarded-For": "10.9.9.2"})[0] == 200
        status, headers, body = stream(port, path, sockets, **{"X-Forwarded-For": "198.51.100.7, 10.9.9.1"})
        assert (status, headers["retry-after"]) == (429, "5")
        assert msgspec.json.decode(body)["code"] == "too_many_streams"
        assert stream(port, path, sockets, **{"X-Forwarded-For": "10.9.9.3"})[0] == 200
        assert http.get("/health").status_code == 200


def test_a_client_address_over_its_connection_cap_is_429_while_another_address_and_health_get_in(
    tmp_path: Path, sockets: list[socket.socket]
):
    settings = {"POISON_CLIENT_CONNECTIONS": "3", "POISON_BODY_TIMEOUT": "30"}
    with serving(tmp_path, **settings) as base:
        port = port_of(base)
        for _ in range(3):  # three requests held under way, their bodies never ending
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(b"POST /v1/replays HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{")
            sockets.append(sock)

        def refused() -> httpx.Response | None:
            # Until the worker has read the three holders' heads, a fourth still fits (and,
            # answered, leaves): asking again is harmless.
            with from_address("127.0.0.1") as http:
                answer = http.get(f"{base}/health")
            return answer if answer.status_code == 429 else None

        answer = until(refused, deadline=20, what="a connection beyond the address's cap refused")
        assert answer.headers["content-type"] == "application/problem+json"
        assert answer.headers["retry-after"] == "1"
        assert answer.headers["connection"] == "close"
        body = answer.json()
        assert (body["code"], body["status"], body["retry_after"]) == ("too_many_client_connections", 429, 1)
        assert "3 requests" in body["detail"]
        with from_address("127.0.0.2") as other:
            assert other.get(f"{base}/health").status_code == 200  # another address gets in
        for sock in sockets:
            sock.close()
        sockets.clear()

        def answered() -> bool:
            with from_address("127.0.0.1") as http:
                return http.get(f"{base}/health").status_code == 200

        until(answered, deadline=20, what="the address answered again once its connections closed")


def test_a_trusted_proxy_is_trusted_on_a_socket_of_both_families_where_its_address_is_ipv4_mapped(tmp_path: Path):
    # Listening on "::" takes IPv4 connections too, their peers as ::ffff:a.b.c.d: the proxy
    # named 127.0.0.1 must still be known, or its clients are all one client (its own).
    settings = {**ONE_GAME, "POISON_HOST": "::", "POISON_TRUSTED_PROXIES": "127.0.0.1"}
    with serving(tmp_path, **settings) as base, httpx.Client(base_url=base, timeout=10) as http:
        assert http.post("/v1/games", json=PLAYERS, headers={"X-Forwarded-For": "10.9.9.1"}).status_code == 201
        assert http.post("/v1/games", json=PLAYERS, headers={"X-Forwarded-For": "10.9.9.1"}).status_code == 429
        other = http.post("/v1/games", json=PLAYERS, headers={"X-Forwarded-For": "10.9.9.2"})
        assert other.status_code == 201, "another forwarded client has a bucket of its own"


def asked(sock: socket.socket) -> dict[str, str]:
    """/health asked on a kept connection: its answer's headers (200 or the test fails)."""
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    status, headers, _ = head_of(sock)
    assert status == 200
    return headers


def closed_by_the_server(sock: socket.socket) -> bool:
    """Whether the server has closed `sock` (nothing more comes, within the socket's timeout)."""
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False


def test_one_address_keeps_at_most_its_share_of_a_workers_connections_open_so_another_gets_in(
    tmp_path: Path, sockets: list[socket.socket]
):
    # A worker takes eight connections at once; one address's keep-alive connections beyond
    # its three are closed after their answer, so its eight cannot hold the worker until the
    # head's deadline (long here, so that waiting for it cannot pass for getting in).
    share, most = 3, 8
    settings = {
        "POISON_MAX_CONNECTIONS": str(most),
        "POISON_CLIENT_CONNECTIONS": str(share),
        "POISON_HEADER_TIMEOUT": "60",
    }
    with serving(tmp_path, **settings) as base:
        port = port_of(base)
        for _ in range(most):  # from an address of its own (the start's probes came from 127.0.0.1)
            sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.3", 0))
            sockets.append(sock)
            asked(sock)
        for sock in sockets[:share]:  # each kept one is used again, and kept again
            assert asked(sock).get("connection") != "close"
        beyond = sockets[share:]
        for sock in beyond:
            sock.settimeout(10)
        assert all(closed_by_the_server(sock) for sock in beyond), "each connection beyond the share closed"

        def fresh_answered() -> bool:
            try:
                with from_address("127.0.0.2") as http:
                    return http.get(f"{base}/health", timeout=2).status_code == 200
            except httpx.TimeoutException:
                return False

        until(fresh_answered, deadline=10, what="another address answered, far within the head's deadline")
        for sock in sockets[:share]:  # the address's kept connections are all still held, and answer
            assert asked(sock).get("connection") != "close"
