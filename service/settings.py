"""The service's settings, from `POISON_*` environment variables and `poison serve` flags,
in one typed object. Every setting is read here, and bounded here: a value out of bounds
is refused at start (`poison serve` exits 2 naming it)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

import msgspec

from events.limits import Rate, RateLimits

Seconds = Annotated[float, msgspec.Meta(gt=0, le=3600)]
PerSecond = Annotated[float, msgspec.Meta(gt=0, le=1_000_000)]
Burst = Annotated[int, msgspec.Meta(ge=1, le=1_000_000)]


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    redis_url: str | None = None  # None: an embedded server with data in data_dir
    data_dir: Path = Path("poison-data")
    namespace: str = "poison"  # prefix of every key this service writes
    store_timeout: float = 2.0  # seconds before a store call is StoreUnavailable
    max_body_bytes: int = 1_048_576  # larger request bodies get 413
    # Slow clients (service/protocol.py): a request's head must arrive within header_timeout
    # of the connection's opening or of its first byte, its body within body_timeout of the
    # end of its head, else 408 and the connection is closed; a worker answers a connection
    # beyond max_connections 503 (enough for 1,000 live streams a worker and more).
    header_timeout: Seconds = 10.0
    body_timeout: Seconds = 10.0
    max_connections: Annotated[int, msgspec.Meta(ge=1, le=100_000)] = 4096
    # The embedded store is restarted when it dies, first after this delay, then after twice
    # the delay before while it keeps dying or failing to start (up to 30 s).
    store_restart_delay: Annotated[float, msgspec.Meta(ge=0, le=60)] = 0.2
    # Rate limits (events/limits.py): token buckets kept in the store (so they hold across
    # workers), one per client address for new games and for moves, and one per seat (its
    # token) for moves; `*_rate` requests a second on average, `*_burst` at once. Over one,
    # a request is answered 429 rate_limited with Retry-After. The defaults leave `make load`
    # (16 clients on one address, about 4,000 moves/s) and the tests alone.
    create_rate: PerSecond = 50.0
    create_burst: Burst = 500
    move_rate: PerSecond = 20_000.0
    move_burst: Burst = 20_000
    seat_move_rate: PerSecond = 200.0
    seat_move_burst: Burst = 400

    def rate_limits(self) -> RateLimits:
        return RateLimits(
            create=Rate(self.create_rate, self.create_burst),
            move=Rate(self.move_rate, self.move_burst),
            seat_move=Rate(self.seat_move_rate, self.seat_move_burst),
        )

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        env = os.environ if environ is None else environ
        found: dict[str, object] = {}
        for field in msgspec.structs.fields(cls):
            value = env.get(f"POISON_{field.name.upper()}")
            if value not in (None, ""):
                found[field.name] = value
        found.update({name: value for name, value in overrides.items() if value is not None})
        try:
            return msgspec.convert(found, cls, strict=False, dec_hook=_decode)
        except msgspec.ValidationError as error:
            raise ValueError(f"invalid setting: {error}") from None


def _decode(kind: type, value: object) -> object:
    if kind is Path:
        return Path(str(value))
    raise NotImplementedError
