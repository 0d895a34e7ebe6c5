"""The store's password through the service: a wrong one is the store's 503, and no answer,
refusal or error message ever shows it."""

from __future__ import annotations

import pytest
from litestar.testing import AsyncTestClient

from events.connect import connect
from events.server import EmbeddedServer
from service.app import create_app
from service.settings import Settings

pytestmark = pytest.mark.anyio

WRONG = "not-the-cauldron-password"


async def test_a_store_refusing_the_password_is_503_and_no_answer_shows_the_password(redis_server, namespace):
    refused = Settings(
        redis_url=f"redis://:{WRONG}@127.0.0.1:{redis_server.port}/0", namespace=namespace, store_timeout=1.0
    )
    async with AsyncTestClient(create_app(refused)) as client:
        for path in ("/health", "/health/ready", "/v1/games/abc", "/v1/games"):
            response = await client.get(path)
            assert response.status_code == 503, response.text
            assert response.json()["code"] == "store_unavailable"
            assert WRONG not in response.text
            assert redis_server.password not in response.text
        assert "refused the connection" in (await client.get("/health")).json()["detail"]


def test_a_url_of_the_wrong_scheme_is_refused_without_showing_its_password():
    with pytest.raises(ValueError, match=r"not 'http://poison:\*\*\*@store.example:6379/0'") as refused:
        Settings.from_environment({"POISON_REDIS_URL": f"http://poison:{WRONG}@store.example:6379/0"})
    assert WRONG not in str(refused.value)


async def test_connect_refuses_a_url_of_the_wrong_scheme_without_showing_its_password():
    with pytest.raises(ValueError, match=r"not 'valkey://:\*\*\*@store.example/0'") as refused:
        async with connect(f"valkey://:{WRONG}@store.example/0"):
            pass
    assert WRONG not in str(refused.value)


def test_a_server_that_quotes_its_configuration_as_it_fails_is_quoted_without_the_password(tmp_path):
    from events.server import ServerFailed

    complaining = tmp_path / "complaining-server"  # says back what it was given, and gives up
    complaining.write_text('#!/bin/sh\necho "Bad directive in:" >&2\ncat >&2\nexit 1\n')
    complaining.chmod(0o700)
    server = EmbeddedServer(tmp_path / "data", binary=complaining)
    with pytest.raises(ServerFailed, match=r"Bad directive in:\s+requirepass \*\*\*\s+masterauth \*\*\*") as failed:
        server.start(timeout=10)
    assert server.password not in str(failed.value)


def test_the_settings_as_a_traceback_shows_them_hold_no_store_password():
    settings = Settings(redis_url="redis://:s3cret-store-pass@127.0.0.1:6390/0")
    shown = repr(settings)
    assert "s3cret-store-pass" not in shown
    assert "redis://:***@127.0.0.1:6390/0" in shown
    assert settings.redis_url == "redis://:s3cret-store-pass@127.0.0.1:6390/0"  # only its showing changes
