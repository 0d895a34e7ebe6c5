"""A TCP relay in front of `poison serve`, on a loopback port, for the browser tests' network
faults: `drop()` cuts every connection at once (a network drop), `hold(part)` stops passing
on the answers to requests whose head holds `part` (a stream stuck on a bad network) until
`release()`, and `sent` is every byte the browser sent (to read its request heads)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from urllib.parse import urlsplit

CHUNK = 65536


@dataclass
class Link:
    client: socket.socket
    upstream: socket.socket
    held: bool = False
    waiting: list[bytes] = field(default_factory=list)


class Proxy:
    def __init__(self, target: str) -> None:
        where = urlsplit(target)
        self.upstream = (where.hostname or "127.0.0.1", where.port or 80)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.base = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.links: list[Link] = []
        self.sent = bytearray()
        self.holding: str | None = None
        self.lock = threading.Lock()
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
                upstream = socket.create_connection(self.upstream, timeout=5)
                upstream.settimeout(None)
            except OSError:
                continue
            link = Link(client, upstream)
            with self.lock:
                self.links.append(link)
            threading.Thread(target=self._ask, args=(link,), daemon=True).start()
            threading.Thread(target=self._answer, args=(link,), daemon=True).start()

    def _ask(self, link: Link) -> None:
        """Browser to service: recorded, and marks a link held when its request is one to hold."""
        try:
            while chunk := link.client.recv(CHUNK):
                with self.lock:
                    self.sent += chunk
                    if self.holding and self.holding.encode() in chunk:
                        link.held = True
                link.upstream.sendall(chunk)
        except OSError:
            pass
        self._close(link)

    def _answer(self, link: Link) -> None:
        try:
            while chunk := link.upstream.recv(CHUNK):
                with self.lock:
                    if link.held:
                        link.waiting.append(chunk)
                        continue
                link.client.sendall(chunk)
        except OSError:
            pass
        self._close(link)

    @staticmethod
    def _close(link: Link) -> None:
        for end in (link.client, link.upstream):
            with suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()

    def drop(self) -> None:
        """Cut every open connection, as a network that goes away does."""
        with self.lock:
            links, self.links = self.links, []
        for link in links:
            self._close(link)

    def hold(self, part: str) -> None:
        self.holding = part

    def release(self) -> None:
        """Pass on everything held, and hold nothing more."""
        with self.lock:
            self.holding = None
            for link in self.links:
                link.held = False
                for chunk in link.waiting:
                    try:
                        link.client.sendall(chunk)
                    except OSError:
                        break
                link.waiting.clear()

    def close(self) -> None:
        self.closed = True
        self.listener.close()
        self.drop()

    def heads(self) -> str:
        return self.sent.decode("latin-1")


@contextmanager
def relay(target: str) -> Iterator[Proxy]:
    proxy = Proxy(target)
    try:
        yield proxy
    finally:
        proxy.close()
