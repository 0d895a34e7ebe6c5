"""The real Litestar app on the session's real store, one key namespace per test."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from litestar.testing import AsyncTestClient

from service.app import create_app
from service.settings import Settings


@pytest.fixture
def settings(redis_url: str, namespace: str) -> Settings:
    return Settings(redis_url=redis_url, namespace=namespace, max_body_bytes=262_144)


@pytest.fixture
async def client(settings: Settings) -> AsyncIterator[AsyncTestClient]:
    async with AsyncTestClient(create_app(settings)) as client:
        yield client
