"""The service's settings, from `POISON_*` environment variables and `poison serve` flags,
in one typed object. Every setting is read here, and bounded here: a value out of bounds
is refused at start (`poison serve` exits 2 naming it)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

import msgspec

Seconds = Annotated[float, msgspec.Meta(gt=0, le=3600)]


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
