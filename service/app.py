"""The Litestar application: `create_app(settings)`, with no side effect at import.

The event store is opened in the lifespan (an embedded server when no Redis URL is set)
and handed to handlers as `games`. Every error leaves as problem+json with a stable code.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from litestar import Litestar
from litestar.datastructures import ResponseHeader
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import ScalarRenderPlugin, SwaggerRenderPlugin

from events.connect import connect
from events.games import Games
from service import openapi, responses
from service.controllers import health
from service.controllers.games import GamesController
from service.controllers.replays import replay_log
from service.problems import internal_error, plugin
from service.settings import Settings


def create_app(settings: Settings | None = None) -> Litestar:
    settings = settings or Settings.from_environment()

    @asynccontextmanager
    async def store(app: Litestar) -> AsyncIterator[None]:
        async with connect(
            settings.redis_url,
            data_dir=settings.data_dir,
            namespace=settings.namespace,
            timeout=settings.store_timeout,
        ) as opened:
            app.state.games = Games(opened, limits=settings.rate_limits())
            yield

    app = Litestar(
        route_handlers=[GamesController, replay_log, *health.routes],
        # A static header, not an after_request hook: the hook doubled the framework's cost
        # per request. (The hot routes' own responses carry it too.)
        response_headers=[ResponseHeader(name=responses.WORKER_HEADER, value=responses.worker.decode())],
        lifespan=[store],
        plugins=[plugin],
        exception_handlers={Exception: internal_error},
        request_max_body_size=settings.max_body_bytes,
        openapi_config=OpenAPIConfig(
            title="Poison",
            version="1.0.0",
            description="The reference service for Reiner Knizia's Poison (http-api.md). Request bodies are "
            f"limited to {settings.max_body_bytes:,} bytes (413 payload_too_large beyond).",
            path="/schema",
            render_plugins=[openapi.DocumentedJson(), SwaggerRenderPlugin(), ScalarRenderPlugin()],
        ),
        debug=False,
    )
    return app


def create_app_from_environment() -> Litestar:
    """The factory `poison serve` hands to uvicorn: every worker reads the same settings."""
    return create_app(Settings.from_environment())
