"""Who a client is, and what each client address holds open, so that one client cannot
take a worker's connections or live streams from everyone else.

- **The client's address** is the peer's, unless the peer is a proxy the service is told
  to trust (`trusted_proxies`): then it is the address that proxy forwards in
  `X-Forwarded-For` (the nearest address in it that is not itself a trusted proxy's), read
  around the whole application (`Proxies.around`). An untrusted peer's `X-Forwarded-For`
  is ignored, so a client cannot pose as another address to escape its limits.
- **Open things per address** (`Held`): the count of each client address's requests under
  way (kept by service/guards.py) or live streams (kept here), in this worker's memory.
  They are per worker, as the connections they count are: a worker's sockets are its own.
- **Connections kept open between requests** (`KeptOpen`): the application never sees a
  connection, only its requests, each with the peer's (address, port); so it keeps, per
  client address, the connections whose last answer ended less than a head's deadline ago
  (the server closes one idle that long). service/guards.py closes, after its answer, a
  connection that would take its address past its share: an address cannot hold a
  worker's connections idle between requests, which the server would count against
  everyone until their deadline.
- **Live streams** (`Streams`): a client address may hold `client_streams` of them in a
  worker (429 `too_many_streams` beyond), and all of a worker's streams together at most
  `stream_share` of its `max_connections` (503 `streams_full` beyond), so that reads and
  moves, and /health, always find a connection. A stream's place is taken before its
  answer starts and given back when it ends, however it ends (`StreamPlace`).
"""

from __future__ import annotations

import ipaddress
from collections import OrderedDict
from typing import TYPE_CHECKING

from service.problems import ApiError
from service.settings import trusted_networks

if TYPE_CHECKING:
    from litestar.types import ASGIApp, Receive, Scope, Send

    from service.settings import Settings

#: Seconds a client refused a stream is told to wait (Retry-After): a place frees when one
#: of the streams holding it ends, which nothing here can foresee.
STREAM_RETRY = 5
#: And one refused a connection: a connection of an ordinary request is soon closed.
CONNECTION_RETRY = 1
#: The scope's record of the peer (address, port) a trusted proxy's request came from,
#: its client being the forwarded one: the connection it came on (`KeptOpen`).
PEER_KEY = "poison.peer"


class Proxies:
    """The proxies whose forwarded address is trusted (`trusted_proxies`)."""

    def __init__(self, setting: str | None) -> None:
        named = trusted_networks(setting)
        # A socket of both families (listening on "::") sees an IPv4 peer as ::ffff:a.b.c.d:
        # each IPv4 network is trusted in that spelling too, or its proxy would be a stranger.
        mapped = [
            ipaddress.IPv6Network(f"::ffff:{network.network_address}/{96 + network.prefixlen}")
            for network in named
            if isinstance(network, ipaddress.IPv4Network)
        ]
        self.networks = (*named, *mapped)

    def trusts(self, host: str | None) -> bool:
        """Whether `host` (a peer's address: asked once per connection) is a trusted proxy's."""
        if not self.networks or host is None:
            return False
        try:
            address = ipaddress.ip_address(host)
        except ValueError:  # not an IP address: nothing to trust
            return False
        return any(address in network for network in self.networks)

    def forwarded(self, header: bytes) -> str:
        """The client an `X-Forwarded-For` of a trusted peer names: each proxy appends the
        address it was reached from, so the nearest entry not itself a trusted proxy's is
        the client; if all are, the farthest."""
        hosts = [host.strip() for host in header.decode("latin-1").split(",") if host.strip()]
        for host in reversed(hosts):
            if not self.trusts(host):
                return host
        return hosts[0] if hosts else ""

    def around(self, app: ASGIApp) -> ASGIApp:
        """`app`, its scope's client made the forwarded one (and its scheme the forwarded
        `X-Forwarded-Proto`) when the peer is trusted; `app` itself when no proxy is trusted
        (nothing to do on any request)."""
        if not self.networks:
            return app

        async def forwarded_client(scope: Scope, receive: Receive, send: Send) -> None:
            client = scope.get("client")
            if scope["type"] in ("http", "websocket") and client and self.trusts(client[0]):
                for name, value in scope["headers"]:
                    if name == b"x-forwarded-for":
                        host = self.forwarded(value)
                        if host:
                            scope[PEER_KEY] = client  # type: ignore[literal-required]
                            scope["client"] = (host, 0)
                    elif name == b"x-forwarded-proto":
                        proto = value.decode("latin-1").strip().lower()
                        if proto in ("http", "https"):
                            scope["scheme"] = proto
            await app(scope, receive, send)

        return forwarded_client


#: The bits of an IPv6 address that name its client: the block one subscriber (a home, a
#: host) is given, in which it may pick as many addresses as it likes.
IPV6_CLIENT_PREFIX = 64


def client_of(host: str) -> str:
    """The client a peer's address is counted as, by every limit kept per client: an IPv4
    address itself (also as an IPv6 socket shows it, `::ffff:a.b.c.d`), an IPv6 address
    its /64, so that one subscriber cannot take a limit per address of its block."""
    if ":" not in host:
        return host  # IPv4 (or no address at all): most peers, at the cost of one test
    try:
        address = ipaddress.IPv6Address(host)
    except ValueError:  # not an address (a name a proxy forwarded): counted as written
        return host
    if address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(ipaddress.IPv6Network((address, IPV6_CLIENT_PREFIX), strict=False))


class Held:
    """How many of something each address holds open in this worker (and in all)."""

    __slots__ = ("_by_address", "total")

    def __init__(self) -> None:
        self._by_address: dict[str, int] = {}
        self.total = 0

    def __getitem__(self, address: str) -> int:
        return self._by_address.get(address, 0)

    def take(self, address: str) -> int:
        """One more for `address`; how many it holds now."""
        held = self._by_address[address] = self._by_address.get(address, 0) + 1
        self.total += 1
        return held

    def give_back(self, address: str) -> None:
        held = self._by_address.get(address, 0) - 1
        if held > 0:
            self._by_address[address] = held
        else:
            self._by_address.pop(address, None)  # an address gone leaves nothing behind
        self.total -= 1


#: A connection as a request names it: its peer's (address, port).
Connection = tuple[str, int]


class KeptOpen:
    """The connections each client address has kept open between requests in this worker,
    as far as the application can tell (see the module's words): one counts from the end of
    an answer on it until it carries another request (then it is under way, counted as
    that) or the server's head deadline has passed since (then the server has closed it).
    A connection its client closed first is counted until then: that costs its address
    keep-alive at most, never a request.

    Each request costs a dict operation or two; the oldest entries are dropped as later
    ones come, or when an address seems past its share (`prune`), and the table never holds
    more entries than the worker takes connections."""

    __slots__ = ("_by_address", "_idle", "_lifetime", "_most")

    def __init__(self, *, lifetime: float, most: int) -> None:
        self._lifetime = lifetime  # the server's head deadline: an idle connection's life
        self._most = most
        self._idle: OrderedDict[Connection, tuple[str, float]] = OrderedDict()  # its client, its end
        self._by_address: dict[str, int] = {}

    def __getitem__(self, address: str) -> int:
        """How many connections `address` keeps open idle."""
        return self._by_address.get(address, 0)

    def busy(self, connection: Connection) -> None:
        """`connection` carries a request: it is no longer idle."""
        entry = self._idle.pop(connection, None)
        if entry is not None:
            self._forget(entry[0])

    def idle(self, connection: Connection, address: str, now: float) -> None:
        """`connection`, of client `address`, has ended an answer (at loop time `now`) and
        stays open."""
        idle = self._idle
        self.busy(connection)  # (a proxy's connection may have carried another client's)
        idle[connection] = (address, now + self._lifetime)
        self._by_address[address] = self._by_address.get(address, 0) + 1
        self.prune(now)

    def prune(self, now: float) -> None:
        """Forget the connections the server has closed by loop time `now` (and the oldest,
        past the bound): all live one deadline, so they are the oldest."""
        idle = self._idle
        while idle:
            _, (oldest, ends) = next(iter(idle.items()))
            if ends > now and len(idle) <= self._most:
                break
            idle.popitem(last=False)
            self._forget(oldest)

    def _forget(self, address: str) -> None:
        kept = self._by_address[address] - 1
        if kept:
            self._by_address[address] = kept
        else:
            del self._by_address[address]  # an address gone leaves nothing behind


class StreamPlace:
    """One live stream's place, given back once: when its stream ends, or, should its answer
    never start (the client gone first), when the place is dropped."""

    __slots__ = ("_address", "_streams")

    def __init__(self, streams: Streams, address: str) -> None:
        self._streams: Streams | None = streams
        self._address = address

    def give_back(self) -> None:
        streams, self._streams = self._streams, None
        if streams is not None:
            streams.held.give_back(self._address)

    async def given_back(self) -> None:
        """`give_back`, as the stream's answer runs it once it is over (a background task):
        a stream the client left between two events is dropped without being closed, and
        would otherwise hold its place until the collector finds it."""
        self.give_back()

    def __del__(self) -> None:
        self.give_back()


class Streams:
    """The live streams of one worker, and the limits on them."""

    def __init__(self, *, per_client: int, most: int, idle: float) -> None:
        self.per_client = per_client
        self.most = most
        self.idle = idle  # seconds a stream may go without an event before it ends
        self.held = Held()

    @classmethod
    def of(cls, settings: Settings) -> Streams:
        most = max(1, int(settings.max_connections * settings.stream_share))
        return cls(per_client=settings.client_streams, most=most, idle=settings.stream_idle)

    def take(self, address: str | None) -> StreamPlace:
        """A place for a new stream of `address` (None: over a Unix socket, the worker's own
        limit alone), or the refusal that says which limit is reached."""
        if self.held.total >= self.most:
            raise streams_full(self.most)
        key = "" if address is None else address
        if address is not None and self.held[key] >= self.per_client:
            raise too_many_streams(self.per_client)
        self.held.take(key)
        return StreamPlace(self, key)


# ---- the refusals, each made here alone (service/documented.py shows them as examples) ----


def streams_full(most: int) -> ApiError:
    detail = (
        f"this worker holds {most:,} live streams, as many as it may (its other connections are kept for "
        f"requests); retry in {STREAM_RETRY} s"
    )
    return ApiError(503, "streams_full", detail, headers={"Retry-After": str(STREAM_RETRY)}, retry_after=STREAM_RETRY)


def too_many_streams(cap: int) -> ApiError:
    detail = f"this client address holds {cap:,} live streams, as many as it may; end one, or retry in {STREAM_RETRY} s"
    return ApiError(
        429, "too_many_streams", detail, headers={"Retry-After": str(STREAM_RETRY)}, retry_after=STREAM_RETRY
    )


def too_many_connections(cap: int) -> ApiError:
    """Answered by service/guards.py, to a request beyond the worker's cap."""
    detail = f"this worker has {cap:,} requests under way, as many as it may; retry"
    retry = CONNECTION_RETRY
    return ApiError(503, "too_many_connections", detail, headers={"Retry-After": str(retry)}, retry_after=retry)


def too_many_client_connections(cap: int) -> ApiError:
    """Answered by service/guards.py, to a request beyond its client address's cap."""
    detail = (
        f"this client address has {cap:,} requests under way in this worker (live streams included), as many as "
        "it may; end one, or retry"
    )
    retry = CONNECTION_RETRY
    return ApiError(429, "too_many_client_connections", detail, headers={"Retry-After": str(retry)}, retry_after=retry)


__all__ = [
    "CONNECTION_RETRY",
    "IPV6_CLIENT_PREFIX",
    "PEER_KEY",
    "STREAM_RETRY",
    "Connection",
    "Held",
    "KeptOpen",
    "Proxies",
    "StreamPlace",
    "Streams",
    "client_of",
    "streams_full",
    "too_many_client_connections",
    "too_many_connections",
    "too_many_streams",
]
