"""What a worker bounds at the ASGI level (service/guards.py), through the real application
on the real store: a body that does not arrive in time is 408, requests under way beyond the
worker's cap 503 and beyond a client address's 429, a connection that would take its client
address past its share of those kept open is closed after its answer, and a live stream
ends whole when the server begins to stop. Each request runs as bare ASGI on the test client's own loop, so that
several can be under way at once and a body can be held back for as long as a test needs."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import msgspec
import pytest
from litestar.testing import AsyncTestClient

from service import guards
from service.app import create_app
from service.settings import Settings
from tests.service.api import http_scope
from tests.service.conftest import SettingsOf
from tests.service.listened import Listened
from tests.waiting import until_async

pytestmark = pytest.mark.anyio

PLAYERS = {"players": [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}]}


class Uploading:
    """A POST whose body arrives in part and then never more, until the test lets it go."""

    def __init__(self, client: AsyncTestClient, *, address: str = "127.0.0.1") -> None:
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.body = b""
        self.answered = threading.Event()
        self.left = threading.Event()  # the client hangs up
        self.told_gone = False  # the app was told the client left
        headers = {"content-type": "application/x-ndjson", "content-length": "1000"}
        scope = http_scope("POST", "/v1/replays", headers, client=(address, 50_000))
        self._parts = 0
        self.done = client.blocking_portal.start_task_soon(client.app, scope, self._receive, self._send)

    async def _receive(self) -> dict[str, Any]:
        self._parts += 1
        if self._parts == 1:
            return {"type": "http.request", "body": b'{"version": 1', "more_body": True}
        while not self.left.is_set():
            await anyio.sleep(0.01)
        return {"type": "http.disconnect"}

    async def _send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = {k.decode(): v.decode() for k, v in message["headers"]}
        elif message["type"] == "http.response.body":
            self.body += message.get("body", b"")
            if not message.get("more_body", False):
                self.answered.set()

    async def under_way(self) -> None:
        """Until the app has read the first part (and waits for the rest)."""
        await until_async(lambda: self._parts >= 2 or self.answered.is_set(), what="the body to be read")

    async def close(self) -> None:
        self.left.set()
        await until_async(self.done.done, what="the request to be over")
        self.done.result()


@pytest.fixture
def settings(settings_of: SettingsOf) -> Settings:
    return settings_of(body_timeout=0.5, max_connections=3, client_connections=2, trusted_proxies="10.5.0.1")


async def test_a_body_that_does_not_arrive_within_its_deadline_is_408_and_the_connection_closed(client):
    upload = Uploading(client)
    try:
        await until_async(upload.answered.is_set, deadline=10, what="the late body answered")
        assert upload.status == 408
        assert upload.headers["content-type"] == "application/problem+json"
        assert upload.headers["connection"] == "close"
        assert upload.headers["x-request-id"]
        problem = msgspec.json.decode(upload.body)
        assert (problem["code"], problem["status"]) == ("request_timeout", 408)
        assert "0.5 s" in problem["detail"]
        await until_async(upload.done.done, what="the handler to give up the body")
    finally:
        await upload.close()


async def test_bodies_late_one_after_another_are_each_408_while_a_move_in_between_is_answered(client):
    first = Uploading(client)
    try:
        await first.under_way()
        second = Uploading(client, address="127.0.0.2")
        try:
            await second.under_way()
            created = await client.post("/v1/games", json=PLAYERS)  # a whole body, in time
            assert created.status_code == 201
            for upload in (first, second):
                await until_async(upload.answered.is_set, deadline=10, what="each late body answered")
                assert upload.status == 408
        finally:
            await second.close()
    finally:
        await first.close()


async def test_a_late_body_is_408_on_a_loop_begun_after_the_last_one_ended_with_its_timer_armed(settings):
    app = create_app(settings)  # one application, served on one loop and then on another
    async with AsyncTestClient(app) as first:
        upload = Uploading(first)
        await upload.under_way()
        await upload.close()  # gone before its deadline: the deadlines' timer is still armed
    async with AsyncTestClient(app) as second:
        upload = Uploading(second)
        try:
            await until_async(upload.answered.is_set, deadline=10, what="the late body answered")
            assert upload.status == 408
        finally:
            await upload.close()


async def test_requests_under_way_beyond_a_workers_cap_are_503_and_the_worker_comes_back(client, settings):
    uploads = [Uploading(client, address=f"10.6.0.{n}") for n in range(settings.max_connections)]
    try:
        for upload in uploads:
            await upload.under_way()
        refused = await client.get("/health", headers={"X-Request-Id": "over-the-cap"})
        assert refused.status_code == 503
        assert refused.headers["retry-after"] == "1"
        assert refused.headers["connection"] == "close"
        assert refused.headers["x-request-id"] == "over-the-cap"  # a refusal of the guard is a request too
        # It says when to retry in the body too, as every other refusal of a limit does.
        assert (refused.json()["code"], refused.json()["retry_after"]) == ("too_many_connections", 1)
    finally:
        for upload in uploads:
            await upload.close()
    assert (await client.get("/health")).status_code == 200


async def test_a_client_address_over_its_cap_of_requests_under_way_is_429_while_another_gets_in(client, settings):
    uploads = [Uploading(client, address="10.7.0.1") for _ in range(settings.client_connections)]
    try:
        for upload in uploads:
            await upload.under_way()
        over = Uploading(client, address="10.7.0.1")
        uploads.append(over)
        await until_async(over.answered.is_set, what="the request beyond the address's cap answered")
        assert (over.status, over.headers["retry-after"]) == (429, "1")
        problem = msgspec.json.decode(over.body)
        assert (problem["code"], problem["retry_after"]) == ("too_many_client_connections", 1)
        assert "2 requests under way" in problem["detail"]
        other = Uploading(client, address="10.7.0.2")
        uploads.append(other)
        await other.under_way()
        assert other.status is None, "another address's request is under way, not refused"
    finally:
        for upload in uploads:
            await upload.close()


async def test_a_trusted_proxys_own_requests_are_not_capped_as_one_clients(client, settings):
    uploads = [Uploading(client, address="10.5.0.1") for _ in range(settings.client_connections + 1)]
    try:
        for upload in uploads:
            await upload.under_way()
        assert all(upload.status is None for upload in uploads), "none refused"
    finally:
        for upload in uploads:
            await upload.close()


async def test_a_live_stream_ends_whole_and_its_handler_stops_when_the_server_begins_to_stop(client, monkeypatch):
    monkeypatch.setattr(guards.SHUTDOWN, "begun", False)  # restored after: this process goes on
    game = (await client.post("/v1/games", json=PLAYERS)).json()
    stream = Listened(client, f"/v1/games/{game['game_id']}/events/stream")
    try:
        assert await stream.opened() == 200
        await until_async(lambda: "id: 2" in stream.text, what="the deal streamed")
        assert not stream.ended.is_set()
        client.blocking_portal.call(guards.SHUTDOWN.begin)
        await until_async(stream.ended.is_set, deadline=10, what="the stream ended as a whole answer ends")
        await until_async(stream.done.done, deadline=10, what="the stream's handler to stop")
    finally:
        await stream.close()


async def answer_of(
    client: AsyncTestClient, peer: tuple[str, int], headers: dict[str, str] | None = None
) -> dict[str, str]:
    """/health asked as bare ASGI from `peer` (address, port: a connection of its own): the
    answer's headers, once it is whole (200 or the test fails)."""
    started: dict[str, Any] = {}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            started.update(message)

    done = client.blocking_portal.start_task_soon(
        client.app, http_scope("GET", "/health", headers, client=peer), receive, send
    )
    await until_async(done.done, what="/health answered")
    done.result()
    assert started["status"] == 200
    return {name.decode(): value.decode() for name, value in started["headers"]}


def closes(headers: dict[str, str]) -> bool:
    return headers.get("connection") == "close"


async def test_a_trusted_proxys_connections_count_for_the_client_each_carried_and_beyond_its_share_are_closed(
    client, settings
):
    share = settings.client_connections
    forwarding = {"X-Forwarded-For": "10.9.0.1"}
    kept = [await answer_of(client, ("10.5.0.1", 40_000 + n), forwarding) for n in range(share)]
    assert not any(closes(headers) for headers in kept), "the client's share of the proxy's connections kept"
    beyond = await answer_of(client, ("10.5.0.1", 40_100), forwarding)
    assert closes(beyond), "a proxy's connection beyond its client's share closed after its answer"
    # The same proxy's connections for another client, and its own, are none of that client's.
    assert not closes(await answer_of(client, ("10.5.0.1", 40_200), {"X-Forwarded-For": "10.9.0.2"}))
    own = [await answer_of(client, ("10.5.0.1", 40_300 + n)) for n in range(share + 1)]
    assert not any(closes(headers) for headers in own)
    # A connection that carried the client is kept for it when it carries it again.
    assert not closes(await answer_of(client, ("10.5.0.1", 40_000), forwarding))


async def test_a_client_that_opens_a_connection_per_request_is_answered_every_time_beyond_its_share_too(
    client, settings
):
    answers = [await answer_of(client, ("10.8.0.1", 41_000 + n)) for n in range(settings.client_connections + 3)]
    assert [closes(headers) for headers in answers[settings.client_connections :]] == [True] * 3, "answered, and closed"


async def test_an_addresss_connections_idle_past_the_heads_deadline_no_longer_count_against_its_share(
    settings_of: SettingsOf,
):
    settings = settings_of(header_timeout=0.2, client_connections=1)
    async with AsyncTestClient(create_app(settings)) as client:
        assert not closes(await answer_of(client, ("10.8.1.1", 42_000)))
        ports = iter(range(42_001, 43_000))

        async def kept_again() -> bool:
            # Each answered one beyond the share is closed, so it leaves nothing behind.
            return not closes(await answer_of(client, ("10.8.1.1", next(ports))))

        assert closes(await answer_of(client, ("10.8.1.1", next(ports)))), "within the deadline: beyond the share"
        await until_async(kept_again, deadline=10, what="the first connection to have aged out")
