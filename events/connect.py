"""Opening the event store from settings: a Redis URL, or else an embedded server.

`POISON_REDIS_URL` (or the `redis_url` argument) names a server: `redis://`, `rediss://`
or `unix://`, a single server or any node of a Redis Cluster (found out on connecting:
events/pipelined.py). Without one, an embedded server is started with its data in
`data_dir` (default `./poison-data`) and stopped when the context ends. With an `archive`,
finished games' logs are read from it once they have moved there (events/archiving.py).

`POISON_REDIS_WAIT` (or the `wait` argument) says when an append is acknowledged:
`auto` (the default): once a replica has it, where its primary has replicas; `replicas`:
once a replica has it in memory (WAIT 1), so that it survives the loss of the primary;
`aof`: once a replica has written it to its append-only file (WAITAOF 0 1); `none`: once
the primary has it. A wait that times out is a 503, never a silent success: the move may
have been recorded, and a retry with its Idempotency-Key says so.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from events.archive import Archive
from events.credentials import redacted
from events.pipelined import Replication
from events.recorder import RedisRecorder
from events.server import EmbeddedServer
from events.store import EventStore

SCHEMES = ("redis://", "rediss://", "unix://")
DEFAULT_DATA_DIR = Path("poison-data")
WAITS = tuple(mode.value for mode in Replication)


def redis_url_from_environment() -> str | None:
    return os.environ.get("POISON_REDIS_URL") or None


def replication(wait: str | Replication | None = None) -> Replication:
    """The acknowledgement asked for: `wait`, else POISON_REDIS_WAIT, else auto."""
    chosen = wait or os.environ.get("POISON_REDIS_WAIT") or Replication.AUTO.value
    try:
        return Replication(chosen)
    except ValueError:
        raise ValueError(f"POISON_REDIS_WAIT must be one of {', '.join(WAITS)}, not {chosen!r}") from None


@asynccontextmanager
async def connect(
    redis_url: str | None = None,
    *,
    data_dir: Path | str | None = None,
    namespace: str = "poison",
    timeout: float = 2.0,
    wait: str | Replication | None = None,
    archive: Archive | None = None,
) -> AsyncIterator[EventStore]:
    acknowledged = replication(wait)  # refused before any server starts
    url = redis_url or redis_url_from_environment()
    server = None
    if url is None:
        server = EmbeddedServer(Path(data_dir or os.environ.get("POISON_DATA_DIR") or DEFAULT_DATA_DIR))
        url = server.start()  # in this thread: the server dies with the thread that started it
    elif not url.startswith(SCHEMES):
        raise ValueError(f"POISON_REDIS_URL must start with redis://, rediss:// or unix://, not {redacted(url)!r}")
    recorder = RedisRecorder.from_url(url, namespace=namespace, timeout=timeout)
    recorder.wire.replication = acknowledged  # read when it first connects
    store = EventStore.on_redis(recorder, archive=archive)
    try:
        yield store
    finally:
        await store.close()
        if server is not None:
            server.stop()
