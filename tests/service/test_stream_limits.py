"""Live streams a client cannot use to see what is not its own, or to shut others out
(issue 27, items 1 and 3), through the real app on the real store.

A stream with a token ends at its seat's seat_left, so a token given up never shows the
seat's next occupant's hand; an abandoned game's stream ends as a finished one's does; one
client address holds a bounded number of streams, and all streams together a bounded share
of a worker's connections, answered 429 or 503 with Retry-After; a stream with nothing to
send ends after its idle time, and one that sends is not idle.

Each stream is asked of the app as bare ASGI (tests/service/listened.py), so that every
message is seen as it is sent and at what time.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from service.app import create_app
from service.clients import client_of
from service.settings import Settings
from tests.service.api import auth, problem, view
from tests.service.conftest import SettingsOf
from tests.service.listened import Listened
from tests.waiting import until_async

pytestmark = pytest.mark.anyio

RULESETS = [{"rounds": 1}, {"ruleset": "pot"}]
DEALS = {"round_started", "cards_dealt"}


@pytest.fixture
def settings(settings_of: SettingsOf) -> Settings:
    return settings_of(
        client_streams=2,
        max_connections=10,
        stream_share=0.4,  # four streams in all
        stream_idle=120,  # beyond any test's wait: only the idle test waits for it
    )


@pytest.fixture
async def listen(client: AsyncTestClient) -> AsyncIterator[Callable[..., Listened]]:
    """Opens a stream of the app as Listened does; every one it opened is closed when the test ends."""
    opened: list[Listened] = []

    def listen(path: str, **asked: Any) -> Listened:
        opened.append(Listened(client, path, **asked))
        return opened[-1]

    yield listen
    for stream in opened:
        await stream.close()


async def open_table(client: AsyncTestClient, options: dict, players: list[dict]) -> tuple[str, dict[int, str]]:
    response = await client.post("/v1/games", json={"players": players, **options})
    assert response.status_code == 201, response.text
    created = response.json()
    return created["game_id"], {p["seat"]: p["token"] for p in created["players"] if "token" in p}


async def join(client: AsyncTestClient, game_id: str, seat: int, name: str) -> str:
    response = await client.post(f"/v1/games/{game_id}/seats/{seat}", json={"name": name})
    assert response.status_code == 201, response.text
    return response.json()["token"]


async def leave(client: AsyncTestClient, game_id: str, seat: int, token: str) -> None:
    response = await client.delete(f"/v1/games/{game_id}/seats/{seat}", headers=auth(token))
    assert response.status_code == 204, response.text


def stream_path(game_id: str, after: int | None = None) -> str:
    return f"/v1/games/{game_id}/events/stream" + ("" if after is None else f"?after={after}")


# ---- 1. a stream's seat changes hands ------------------------------------------------------


@pytest.mark.parametrize("options", RULESETS, ids=["poison", "pot"])
async def test_a_stream_opened_with_a_token_ends_at_its_seats_seat_left_and_never_shows_the_next_occupants_hand(
    client, options
):
    # ann sits at seat 0; seats 1 and 2 are open. A stranger joins seat 1 and follows the game
    # with that token, leaves (the token is dead), sits at seat 2; the victim takes seat 1.
    game_id, _ = await open_table(client, options, [{"name": "ann"}, {"open": True}, {"open": True}])
    stranger = await join(client, game_id, 1, "sly")
    followed = Listened(client, stream_path(game_id), headers=auth(stranger))
    try:
        assert await followed.opened() == 200
        await until_async(lambda: followed.messages(), what="the stream's first events")
        await leave(client, game_id, 1, stranger)
        left_at = (await view(client, game_id))["version"]
        await join(client, game_id, 2, "sly")
        victim = await join(client, game_id, 1, "vic")
        game = await view(client, game_id, victim)
        assert game["status"] == "active"
        assert game["you"]["hand"]

        def over() -> bool:  # ended, or it has gone on past the seat_left (the defect)
            return followed.ended.is_set() or any(version > left_at for version, _, _ in followed.messages())

        await until_async(over, what="the stream to end or to go on")
        messages = followed.messages()
        assert messages[-1][:2] == (left_at, "seat_left")
        assert messages[-1][2]["data"] == {"seat": 1}
        assert followed.ended.is_set(), "the stream ends with its seat's seat_left"
        assert not any(kind in DEALS for _, kind, _ in messages)
        # The stream the dead token asks again is refused: the client learns why.
        again = await client.get(stream_path(game_id), headers={**auth(stranger), "Last-Event-ID": str(left_at)})
        problem(again, 401, "unauthorized")
    finally:
        await followed.close()


async def test_a_seat_left_by_an_earlier_occupant_does_not_end_the_stream_of_the_seats_new_token(client):
    game_id, _ = await open_table(client, {"rounds": 1}, [{"name": "ann"}, {"open": True}, {"open": True}])
    stranger = await join(client, game_id, 1, "sly")
    await leave(client, game_id, 1, stranger)
    victim = await join(client, game_id, 1, "vic")
    followed = Listened(client, stream_path(game_id), headers=auth(victim))  # from event 1: the old seat_left too
    try:
        assert await followed.opened() == 200
        await join(client, game_id, 2, "cal")  # the game starts
        hand = (await view(client, game_id, victim))["you"]["hand"]
        await until_async(lambda: any(kind in DEALS for _, kind, _ in followed.messages()), what="the deal")
        dealt = next(data for _, kind, data in followed.messages() if kind in DEALS)["data"]["hands"]
        assert sorted(dealt[1]) == sorted(hand)  # the victim's own hand, on the victim's own stream
        assert [hand is not None for hand in dealt] == [False, True, False]
        assert not followed.ended.is_set()
    finally:
        await followed.close()


# ---- 3. an abandoned game's stream ends ----------------------------------------------------


@pytest.mark.parametrize("options", RULESETS, ids=["poison", "pot"])
async def test_the_stream_of_a_game_ends_when_its_last_person_leaves_and_the_game_is_abandoned(client, options):
    seats = [{"name": "ann"}, {"open": True}, {"name": "robo", "bot": "random"}]
    game_id, tokens = await open_table(client, options, seats)
    followed = Listened(client, stream_path(game_id))
    try:
        assert await followed.opened() == 200
        await until_async(lambda: followed.messages(), what="the stream's first event")
        await leave(client, game_id, 0, tokens[0])
        assert (await view(client, game_id))["status"] == "abandoned"
        await until_async(followed.ended.is_set, deadline=10, what="the abandoned game's stream to end")
        assert [kind for _, kind, _ in followed.messages()] == ["game_created", "seat_left"]
    finally:
        await followed.close()
    # Asked again once abandoned, it sends what is left and ends, as a finished game's does.
    for after, kinds in ((0, ["game_created", "seat_left"]), (2, [])):
        again = Listened(client, stream_path(game_id, after))
        try:
            await until_async(again.ended.is_set, deadline=10, what="the stream of an abandoned game to end")
            assert again.status == 200
            assert [kind for _, kind, _ in again.messages()] == kinds
        finally:
            await again.close()


async def test_a_leave_that_leaves_a_person_seated_does_not_end_the_games_stream(client):
    game_id, _ = await open_table(client, {"rounds": 1}, [{"name": "ann"}, {"open": True}, {"open": True}])
    bea = await join(client, game_id, 1, "bea")
    followed = Listened(client, stream_path(game_id))
    try:
        assert await followed.opened() == 200
        await leave(client, game_id, 1, bea)
        await join(client, game_id, 2, "cal")
        await until_async(lambda: len(followed.messages()) == 4, what="the join after the leave")
        assert not followed.ended.is_set()
    finally:
        await followed.close()


# ---- 3. streams per client address, and the worker's share ---------------------------------


async def test_a_client_over_its_stream_cap_is_429_with_retry_after_while_another_address_and_health_get_in(
    client, listen
):
    game_id, _ = await open_table(client, {}, [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}])
    held = [listen(stream_path(game_id), address="10.0.0.1") for _ in range(2)]
    assert [await stream.opened() for stream in held] == [200, 200]
    over = listen(stream_path(game_id), address="10.0.0.1")
    assert await over.opened() == 429
    assert over.headers["retry-after"] == "5"
    assert over.headers["content-type"].startswith("application/problem+json")
    refused = over.problem()
    assert (refused["code"], refused["status"], refused["retry_after"]) == ("too_many_streams", 429, 5)
    assert "2 live streams" in refused["detail"]
    elsewhere = listen(stream_path(game_id), address="10.0.0.2")
    assert await elsewhere.opened() == 200
    assert (await client.get("/health")).status_code == 200
    assert (await client.get(f"/v1/games/{game_id}")).status_code == 200
    # A stream that ends gives its place back.
    await held.pop().close()
    again = listen(stream_path(game_id), address="10.0.0.1")
    assert await again.opened() == 200


async def test_ipv6_addresses_of_one_64_block_are_one_client_and_another_block_is_another(client, listen):
    # One subscriber is given a /64 and may pick any address in it: a cap per address
    # would give it as many streams (and budgets, and rate limits) as it cares to pick.
    game_id, _ = await open_table(client, {}, [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}])
    held = [listen(stream_path(game_id), address=f"2001:db8:0:1::{n}") for n in (1, 2)]
    assert [await stream.opened() for stream in held] == [200, 200]
    same_block = listen(stream_path(game_id), address="2001:db8:0:1:ffff::3")
    assert await same_block.opened() == 429
    assert same_block.problem()["code"] == "too_many_streams"
    next_block = listen(stream_path(game_id), address="2001:db8:0:2::1")
    assert await next_block.opened() == 200


def test_a_client_is_its_ipv4_address_or_the_64_block_of_its_ipv6_one():
    assert client_of("192.0.2.7") == "192.0.2.7"
    assert client_of("::ffff:192.0.2.7") == "192.0.2.7"  # an IPv4 peer on a socket of both families
    assert client_of("2001:db8:0:1:abcd::9") == client_of("2001:db8:0:1::1") == "2001:db8:0:1::/64"
    assert client_of("::1") == "::/64"
    assert client_of("not-an-address") == "not-an-address"


async def test_streams_together_hold_at_most_their_share_of_a_workers_connections_and_the_rest_is_503(client, listen):
    game_id, _ = await open_table(client, {}, [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}])
    held = [listen(stream_path(game_id), address=f"10.0.1.{n}") for n in range(4)]  # 0.4 of 10
    assert [await stream.opened() for stream in held] == [200] * 4
    over = listen(stream_path(game_id), address="10.0.1.9")
    assert await over.opened() == 503
    assert over.headers["retry-after"] == "5"
    assert over.problem()["code"] == "streams_full"
    assert (await client.get("/health")).status_code == 200  # requests keep their connections


async def test_a_stream_whose_client_left_before_it_began_gives_its_place_back(client):
    game_id, _ = await open_table(client, {}, [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}])
    for _ in range(5):  # more than the two places of the test client's address
        assert (await client.head(stream_path(game_id))).status_code == 200
    finished = Listened(client, stream_path(game_id), address="testclient")
    try:
        assert await finished.opened() == 200
    finally:
        await finished.close()


# ---- 3. idle streams end -------------------------------------------------------------------


async def test_a_stream_with_nothing_to_send_ends_after_its_idle_time_and_one_that_sends_is_not_idle(
    settings_of: SettingsOf,
):
    idle = 1.0
    settings = settings_of(stream_idle=idle)
    async with AsyncTestClient(create_app(settings)) as client:
        created = (await client.post("/v1/games", json={"players": [{"name": n} for n in "abc"], "seed": 5})).json()
        game_id, tokens = created["game_id"], {p["seat"]: p["token"] for p in created["players"]}
        # Nothing to send: it ends, a whole answer with no event in it.
        quiet = Listened(client, stream_path(game_id, created["game"]["version"]))
        try:
            assert await quiet.opened() == 200
            await until_async(quiet.ended.is_set, what="the idle stream to end")
            assert "id:" not in quiet.text
            assert quiet.parts[-1][0] - quiet.started_at >= idle
        finally:
            await quiet.close()
        # An event sent starts its idle time again: it ends no sooner than that after its last.
        for _ in range(20):  # asked again only should the move come after the stream's idle time
            game = await view(client, game_id, tokens[0])
            seat = game["turn"]
            busy = Listened(client, stream_path(game_id, game["version"]))
            try:
                assert await busy.opened() == 200
                mine = await view(client, game_id, tokens[seat])
                played = await client.post(
                    f"/v1/games/{game_id}/moves", json=mine["you"]["legal_moves"][0], headers=auth(tokens[seat])
                )
                assert played.status_code == 201, played.text
                await until_async(busy.ended.is_set, what="the stream to end once idle")
            finally:
                await busy.close()
            sent = [when for when, part in busy.parts if b"id:" in part]
            if sent:
                assert busy.parts[-1][0] - sent[-1] >= idle
                assert busy.messages()[0][0] == game["version"] + 1
                break
        else:
            pytest.fail("no move reached a stream within its idle time")


# ---- the settings ---------------------------------------------------------------------------


def test_trusted_proxies_must_be_addresses_or_networks_and_an_entry_that_is_neither_is_named():
    trusted = Settings.from_environment({"POISON_TRUSTED_PROXIES": "10.0.0.5, 192.168.0.0/24,::1"})
    assert trusted.trusted_proxies == "10.0.0.5, 192.168.0.0/24,::1"
    for wrong, named in (("10.0.0.5,proxy.local", "'proxy.local'"), ("10.0.0.300", "'10.0.0.300'"), ("*", "'*'")):
        with pytest.raises(ValueError, match="POISON_TRUSTED_PROXIES") as refused:
            Settings.from_environment({"POISON_TRUSTED_PROXIES": wrong})
        assert named in str(refused.value)
    with pytest.raises(ValueError, match="POISON_STREAM_SHARE"):
        Settings.from_environment({"POISON_STREAM_SHARE": "1"})


# ---- a finished game longer than one read of its log ---------------------------------------


async def test_the_stream_of_a_finished_game_longer_than_one_read_of_its_log_sends_all_of_it(client):
    created = await client.post(
        "/v1/games",
        json={
            "players": [{"name": "ann"}, {"name": "b1", "bot": "greedy"}, {"name": "b2", "bot": "random"}],
            "rounds": 20,
            "seed": 8,
        },
    )
    game_id, token = created.json()["game_id"], created.json()["players"][0]["token"]
    while (game := await view(client, game_id, token))["status"] == "active":
        move = game["you"]["legal_moves"][0]
        played = await client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(token))
        assert played.status_code == 201, played.text
    assert game["version"] > 500  # beyond one read of the follower's (events/follow.py)
    whole = Listened(client, stream_path(game_id))
    try:
        await until_async(whole.ended.is_set, what="the finished game's stream to end")
        assert [version for version, _, _ in whole.messages()] == list(range(1, game["version"] + 1))
    finally:
        await whole.close()
