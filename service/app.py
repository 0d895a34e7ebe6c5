"""The Litestar application: `create_app(settings)`, with no side effect at import.

The event store is opened in the lifespan (an embedded server when no Redis URL is set)
and handed to handlers as `games`. Every error leaves as problem+json with a stable code
(service.problems), every JSON answer ends with a newline (service.responses).
Every body is checked (media type, nesting) before anything decodes it (service.
dependencies.GuardedRequest), and every GET route answers HEAD too, and OPTIONS names every method
(`answer_head_and_options`). Around it all, every request gets its id, its measure and,
in JSON with the access log on, its log line (service.observed); `GET /metrics` answers
Prometheus (service.metrics). A proxy named by `trusted_proxies` has its forwarded
client taken for the client, and the live streams' limits live in `app.state.streams`
(service.clients).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import msgspec
from litestar import Litestar
from litestar.datastructures import ResponseHeader
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from events.archive import Archive
from events.archiving import pass_every
from events.connect import connect
from events.games import Games, Searches
from events.pool import Pool
from service import metrics, openapi, problems, responses
from service.clients import Proxies, Streams
from service.controllers import health, table
from service.controllers.games import GamesController
from service.controllers.replays import replay_log
from service.controllers.seats import SeatsController
from service.dependencies import GuardedRequest
from service.guards import Guard
from service.hot import hot_routes
from service.observed import HEAD_AND_OPTIONS, observed
from service.responses import HTTP, WORKER_HEADER, worker
from service.serverkey import process_key, read_or_make
from service.settings import Settings
from service.tokens import ServerKey


def create_app(settings: Settings | None = None) -> Litestar:
    """The application of `settings` (the environment's by default). Without a server key
    in them, its tokens are derived from a key of this process alone (service/serverkey.py):
    the service proper is built by `create_app_from_environment`, which keeps its key."""
    settings = settings or Settings.from_environment()

    @asynccontextmanager
    async def store(app: Litestar) -> AsyncIterator[None]:
        async with connect(
            settings.redis_url,
            data_dir=settings.data_dir,
            namespace=settings.namespace,
            timeout=settings.store_timeout,
            wait=settings.redis_wait,
            archive=Archive(settings.archive_location()),
        ) as opened:
            app.state.games = Games(
                opened,
                limits=settings.rate_limits(),
                searches=Searches(settings.search_threads),
                kept_refusals=settings.kept_refusals,
                rebuilds=Pool(settings.rebuild_threads, "rebuild"),
                away_bot=settings.away_bot,
                waiting_ms=round(settings.waiting_limit * 1000),
            )
            app.state.open_seat_clock = settings.open_seat_clock
            # Every worker archives what is due; the shards' leases share the work out.
            archiver = app.state.games.archiver(after_ms=round(settings.archive_after * 1000))
            archiving = asyncio.create_task(archiver.run(pass_every(settings.archive_after)))
            # Every worker fires what deadlines are due; the claims share the work out.
            timing = asyncio.create_task(app.state.games.timekeeper().run())
            try:
                yield
            finally:
                for task in (archiving, timing):
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                app.state.games.close()
                metrics.worker_stopped()

    app = Litestar(
        route_handlers=[
            GamesController,
            SeatsController,
            replay_log,
            *health.routes,
            *table.routes,
            metrics.metrics,
        ],
        # A static header, not an after_request hook: the hook doubled the framework's cost
        # per request. (The hot routes' own responses carry it too.)
        response_headers=[ResponseHeader(name=responses.WORKER_HEADER, value=responses.worker.decode())],
        lifespan=[store],
        request_class=GuardedRequest,
        response_class=responses.Response,  # JSON bodies end with a newline
        exception_handlers=problems.HANDLERS,  # every error as problem+json, rendered in one place
        request_max_body_size=settings.max_body_bytes,
        openapi_config=openapi.config(settings),
        debug=False,
    )
    # Handlers read it from the app's state, as they read the games (service/dependencies.py).
    app.state.server_key = ServerKey(settings.secret_key) if settings.secret_key is not None else process_key()
    # The hot routes first (service/hot.py), where Litestar's own handler is called.
    app.asgi_handler = hot_routes(app.asgi_handler, settings.max_body_bytes)
    # Around Litestar's own handler (routing included), inside its entry point: a HEAD must
    # be turned into a GET before the router, which knows only the GET routes.
    # (A HEAD of a game is then served by the hot routes, as a GET whose body is not sent.)
    head_and_options = answer_head_and_options(app.asgi_handler, allowed_methods(app))
    # Outermost: the OPTIONS answered there get their request id and measure too; every other
    # request goes straight to the hot routes and Litestar's handler, not through that wrapper.
    app.asgi_handler = observed(
        app.asgi_handler,
        access_log=settings.access_log and settings.log_format == "json",
        head_and_options=head_and_options,
    )
    # The worker's bounds of requests (service/guards.py): inside the proxies' client, which
    # its cap per client address counts by.
    app.asgi_handler = Guard(settings).around(app.asgi_handler)
    # Around it all, a trusted proxy's client taken for the client (service/clients.py), so
    # that the log line, the rate limits and the streams' caps all see the same address.
    app.asgi_handler = Proxies(settings.trusted_proxies).around(app.asgi_handler)
    app.state.streams = Streams.of(settings)
    return app


def allowed_methods(app: Litestar) -> list[tuple[re.Pattern[str], str]]:
    """Each path of the app (as a pattern) and the methods it takes, HEAD beside GET, OPTIONS
    everywhere: the `Allow` of an OPTIONS. (Litestar's own OPTIONS answer names the methods of
    one of a path's handlers only: `OPTIONS /v1/games` said `OPTIONS, POST`.)"""
    methods: dict[str, set[str]] = {}
    for route in app.routes:
        methods.setdefault(route.path_format, set()).update(getattr(route, "methods", ()))
    table = []
    for path, taken in methods.items():
        if "GET" in taken:
            taken.add("HEAD")
        pattern = re.compile("^" + re.sub(r"\\\{[^/]*?\\\}", "[^/]+", re.escape(path)) + "/?$")
        table.append((pattern, ", ".join(sorted(taken | {"OPTIONS"}))))
    return table


def answer_head_and_options(handler: ASGIApp, allowed: list[tuple[re.Pattern[str], str]]) -> ASGIApp:
    """HEAD on every GET route, as RFC 9110 asks of a server that answers GET: the request
    is routed as a GET, and its answer's head sent as it is (status, Content-Type,
    Content-Length) with an empty body. Once the head has gone, the handler is told that the
    client left, so a streamed answer (the live stream) ends at once instead of being
    followed for nothing. A path without GET answers 405 with its `Allow`, as for any other
    method. (The server's own scope keeps `HEAD`.)

    OPTIONS on a path of the API is 204 with `Allow`, every method the path takes."""

    async def head_options_or_any(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != HTTP or scope["method"] not in HEAD_AND_OPTIONS:
            await handler(scope, receive, send)
            return
        if scope["method"] == "OPTIONS":
            methods = next((methods for pattern, methods in allowed if pattern.match(scope["path"])), None)
            if methods is not None:
                headers = [(b"allow", methods.encode()), (b"content-length", b"0"), (WORKER_HEADER.encode(), worker)]
                await send({"type": "http.response.start", "status": 204, "headers": headers})
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                return
            await handler(scope, receive, send)
            return
        done = False

        async def receive_until_head_sent() -> Message:
            return {"type": "http.disconnect"} if done else await receive()  # type: ignore[return-value]

        async def send_head_only(message: Message) -> None:
            nonlocal done
            if done:
                return
            if message["type"] == "http.response.start":
                await send(message)
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                done = True

        routed: dict[str, Any] = {**scope, "method": "GET"}
        await handler(routed, receive_until_head_sent, send_head_only)  # type: ignore[arg-type]
        if "path_template" in routed:  # the route's template, for the request's measure (service.observed)
            scope["path_template"] = routed["path_template"]

    return head_options_or_any


def create_app_from_environment() -> Litestar:
    """The factory `poison serve` hands to granian: every worker reads the same settings,
    and the same server key: POISON_SECRET_KEY, else the data directory's key file (made
    by the first to need it), so that tokens outlive every worker and every restart."""
    settings = Settings.from_environment()
    if settings.secret_key is None:
        key, _ = read_or_make(settings.data_dir)
        settings = msgspec.structs.replace(settings, secret_key=key)
    return create_app(settings)
