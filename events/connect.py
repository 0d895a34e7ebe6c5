"""Opening the event store from settings: a Redis URL, or else an embedded server.

`POISON_REDIS_URL` (or the `redis_url` argument) names a server: `redis://`, `rediss://`
or `unix://`. Without one, an embedded server is started with its data in `data_dir`
(default `./poison-data`) and stopped when the context ends.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from events.server import EmbeddedServer
from events.store import EventStore

SCHEMES = ("redis://", "rediss://", "unix://")
DEFAULT_DATA_DIR = Path("poison-data")


def redis_url_from_environment() -> str | None:
    return os.environ.get("POISON_REDIS_URL") or None


@asynccontextmanager
async def connect(
    redis_url: str | None = None,
    *,
    data_dir: Path | str | None = None,
    namespace: str = "poison",
    timeout: float = 2.0,
) -> AsyncIterator[EventStore]:
    url = redis_url or redis_url_from_environment()
    server = None
    if url is None:
        server = EmbeddedServer(Path(data_dir or os.environ.get("POISON_DATA_DIR") or DEFAULT_DATA_DIR))
        url = server.start()  # in this thread: the server dies with the thread that started it
    elif not url.startswith(SCHEMES):
        raise ValueError(f"POISON_REDIS_URL must start with redis://, rediss:// or unix://, not {url!r}")
    store = EventStore.from_url(url, namespace=namespace, timeout=timeout)
    try:
        yield store
    finally:
        await store.close()
        if server is not None:
            server.stop()
