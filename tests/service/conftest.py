"""The real Litestar app on the session's real store, one key namespace per test."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from litestar.testing import AsyncTestClient

from service.app import create_app
from service.settings import Settings

#: Makes the service's settings from the fields a test changes (`settings_of`).
SettingsOf = Callable[..., Settings]


@pytest.fixture
def settings_of(redis_url: str, namespace: str, tmp_path: Path) -> SettingsOf:
    """Settings on this test's store and key namespace, its archive in the test's own folder,
    with the fields given changed."""
    return functools.partial(Settings, redis_url=redis_url, namespace=namespace, archive_url=str(tmp_path / "archive"))


@pytest.fixture
def settings(settings_of: SettingsOf) -> Settings:
    return settings_of(max_body_bytes=262_144)


@pytest.fixture
async def client(settings: Settings) -> AsyncIterator[AsyncTestClient]:
    async with AsyncTestClient(create_app(settings)) as client:
        yield client
