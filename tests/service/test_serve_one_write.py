"""What a worker's answers must be, however the server writes them, over a raw keep-alive
connection to a real `poison serve`: answers of every kind arrive whole and in order
(a JSON body, an error, a HEAD's head without a body, an OPTIONS without one, two requests
sent in one write), and a live stream's head arrives before any event does."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import msgspec
import pytest

from tests.service.served import serving

pytestmark = pytest.mark.subprocess


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    with serving(Path(tmp_path_factory.mktemp("one-write"))) as base:
        yield urlsplit(base).port or 0


def connect(port: int) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port), timeout=10)
    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return connection


def request(method: str, path: str) -> bytes:
    return f"{method} {path} HTTP/1.1\r\nHost: test\r\n\r\n".encode()


class Answers:
    """Answers read off one connection, one at a time, by their Content-Length."""

    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection
        self.buffer = b""

    def _more(self) -> None:
        data = self.connection.recv(65536)
        assert data, "the connection closed before the answer was whole"
        self.buffer += data

    def next(self, *, body: bool = True) -> tuple[int, dict[str, str], bytes]:
        while b"\r\n\r\n" not in self.buffer:
            self._more()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        status_line, *lines = head.decode("latin-1").split("\r\n")
        headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
        length = int(headers.get("content-length", "0")) if body else 0
        while len(self.buffer) < length:
            self._more()
        answer, self.buffer = self.buffer[:length], self.buffer[length:]
        return int(status_line.split()[1]), headers, answer


def test_answers_of_every_kind_arrive_whole_and_in_order_on_one_connection(port: int) -> None:
    with connect(port) as connection:
        answers = Answers(connection)
        connection.sendall(request("GET", "/health"))
        status, headers, body = answers.next()
        assert (status, body) == (200, b'{"status":"ok"}\n')
        assert headers["content-type"] == "application/json"
        connection.sendall(request("GET", "/v1/games/no-such-game"))
        status, headers, body = answers.next()
        assert status == 404
        assert headers["content-type"] == "application/problem+json"
        assert b'"game_not_found"' in body
        connection.sendall(request("HEAD", "/health"))
        status, headers, body = answers.next(body=False)  # a HEAD's answer has a length and no body
        assert (status, headers["content-length"]) == (200, "16")
        connection.sendall(request("OPTIONS", "/health"))
        status, headers, body = answers.next()
        assert (status, body) == (204, b"")
        assert "GET" in headers["allow"]
        connection.sendall(request("GET", "/health") + request("GET", "/health/live"))  # pipelined
        assert [answers.next()[0], answers.next()[0]] == [200, 200]
        assert answers.buffer == b""


def test_a_live_stream_s_head_arrives_before_any_event_does(port: int) -> None:
    with connect(port) as connection:
        answers = Answers(connection)
        body = b'{"players":[{"name":"ana"},{"name":"bob"},{"name":"cy"}]}'
        connection.sendall(
            b"POST /v1/games HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        status, _, created = answers.next()
        assert status == 201
        game = msgspec.json.decode(created)
    game_id, version = game["game_id"], game["game"]["version"]
    with connect(port) as connection:
        # From the game's version on, nothing is sent until someone moves: the head alone must
        # come (a held head would never leave, and recv would time out).
        connection.sendall(request("GET", f"/v1/games/{game_id}/events/stream?after={version}"))
        received = b""
        while b"\r\n\r\n" not in received:
            received += connection.recv(65536)
        head, rest = received.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 200")
        assert b"text/event-stream" in head
        assert b"event:" not in rest
