"""`poison serve`: run the HTTP API.

Settings come from flags, else `POISON_*` environment variables, else defaults. Without a
Redis URL, this process starts the embedded server once and hands its URL to every worker,
so several workers share one store and no state lives in only one of them. It supervises
that server: one killed or crashed is started again on the same port and data (the
workers' connections recover by themselves), with back-off, and every step is a line on
stderr. Workers speak HTTP through service/protocol.py (timeouts for slow clients, a cap
on connections, malformed HTTP answered as problem+json).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from events.server import EmbeddedServer, ServerFailed, ServerNotFound
from service.settings import Settings


def serve(settings: Settings) -> int:
    import uvicorn

    server = None
    if settings.redis_url is None:
        server = EmbeddedServer(settings.data_dir)
        try:
            url = server.start()
        except (ServerNotFound, ServerFailed) as error:
            print(f"poison serve: {error}", file=sys.stderr)
            return 1
        print(f"poison serve: embedded store at {url}, data in {server.data_dir}", file=sys.stderr, flush=True)
        server.supervise(say, first_delay=settings.store_restart_delay)
    else:
        url = settings.redis_url
    _room_for_connections(settings.max_connections)
    # Workers read their settings from the environment: every one of them, flags included.
    os.environ.update(
        {
            "POISON_REDIS_URL": url,
            "POISON_NAMESPACE": settings.namespace,
            "POISON_STORE_TIMEOUT": str(settings.store_timeout),
            "POISON_MAX_BODY_BYTES": str(settings.max_body_bytes),
            "POISON_HEADER_TIMEOUT": str(settings.header_timeout),
            "POISON_BODY_TIMEOUT": str(settings.body_timeout),
            "POISON_MAX_CONNECTIONS": str(settings.max_connections),
        }
    )
    try:
        uvicorn.run(
            "service.app:create_app_from_environment",
            factory=True,
            host=settings.host,
            port=settings.port,
            workers=settings.workers,
            log_level=os.environ.get("POISON_LOG_LEVEL", "warning"),
            access_log=False,
            http="service.protocol:HttpProtocol",
            ws="none",  # the API has no WebSocket route
        )
    finally:
        if server is not None:
            server.stop()
    return 0


def say(line: str) -> None:
    print(f"poison serve: {line}", file=sys.stderr, flush=True)


def _room_for_connections(connections: int) -> None:
    """Raise the soft limit on open files (inherited by the workers) towards what
    `max_connections` needs, so the cap, not the kernel, refuses connections; never above
    the hard limit."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = connections + 512  # the store's connections, the log, the libraries
        if soft != resource.RLIM_INFINITY and soft < wanted:
            resource.setrlimit(
                resource.RLIMIT_NOFILE, (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard), hard)
            )
    except (ImportError, ValueError, OSError):
        pass


def add(commands: argparse._SubParsersAction) -> None:
    run = commands.add_parser("serve", help="run the HTTP API", description="Run the HTTP API v1 (http-api.md).")
    run.add_argument("--host", help="address to listen on (POISON_HOST, default 127.0.0.1)")
    run.add_argument("--port", type=int, help="port (POISON_PORT, default 8000)")
    run.add_argument("--workers", type=int, help="worker processes (POISON_WORKERS, default 1)")
    run.add_argument("--redis-url", help="redis://, rediss:// or unix:// (POISON_REDIS_URL); default: embedded")
    run.add_argument("--data-dir", type=Path, help="the embedded store's data (POISON_DATA_DIR, default ./poison-data)")


def run(args: argparse.Namespace) -> int:
    try:
        settings = Settings.from_environment(
            host=args.host, port=args.port, workers=args.workers, redis_url=args.redis_url, data_dir=args.data_dir
        )
    except ValueError as error:
        print(f"poison serve: {error}", file=sys.stderr)
        return 2
    if not 1 <= settings.workers <= 64 or not 0 <= settings.port <= 65535:
        print("poison serve: --workers is 1 to 64 and --port 0 to 65535", file=sys.stderr)
        return 2
    return serve(settings)
