"""Rate limits on new games and on moves (issue 11, defect 11): per client address, and for
moves per seat too, kept in the store; 429 rate_limited with Retry-After beyond them."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import msgspec
import pytest
from litestar.testing import AsyncTestClient

import events.games
from service.app import create_app
from service.settings import Settings
from tests.service.api import auth, create, view
from tests.service.served import serving

pytestmark = pytest.mark.anyio

PLAYERS = {"players": [{"name": n} for n in "abc"]}


def limited(response) -> dict:
    assert response.status_code == 429, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["code"] == "rate_limited"
    assert int(response.headers["retry-after"]) >= 1
    assert body["retry_after"] == int(response.headers["retry-after"])
    return body


def client_with(settings: Settings, **limits) -> AsyncTestClient:
    return AsyncTestClient(create_app(msgspec.structs.replace(settings, **limits)))


@pytest.fixture
async def slow_creation(settings: Settings) -> AsyncIterator[AsyncTestClient]:
    async with client_with(settings, create_rate=0.5, create_burst=3) as client:
        yield client


async def test_creating_games_beyond_the_burst_is_429_with_retry_after_and_creates_nothing(slow_creation):
    for _ in range(3):
        assert (await slow_creation.post("/v1/games", json=PLAYERS)).status_code == 201
    body = limited(await slow_creation.post("/v1/games", json=PLAYERS))
    assert body["retry_after"] == 2  # one game every 2 s
    assert "new games" in body["detail"]
    assert len((await slow_creation.get("/v1/games")).json()["games"]) == 3


async def test_a_six_bot_twenty_round_game_counts_against_the_limit_before_it_is_played(slow_creation, monkeypatch):
    # Each game computed is counted where the games layer computes it (the engine, called
    # through): a refusal must come before, not after the work. (Timing it could not tell:
    # the whole game takes a few milliseconds.)
    computed: list[str] = []

    def counted(ruleset, game_id, *args, **kwargs):
        computed.append(game_id)
        return create_game(ruleset, game_id, *args, **kwargs)

    create_game = events.games.create_game
    monkeypatch.setattr(events.games, "create_game", counted)
    bots = {"players": [{"name": str(n), "bot": "random"} for n in range(6)], "rounds": 20}
    for _ in range(3):
        assert (await slow_creation.post("/v1/games", json=bots)).status_code == 201
    assert len(computed) == 3
    limited(await slow_creation.post("/v1/games", json=bots))
    assert len(computed) == 3  # refused before its 1,331 events were computed


async def test_the_limit_refills_at_its_rate(settings):
    # One token a second: the refusal right after the burst needs the second request to come
    # within a second of the first, which no loaded machine misses (a faster rate did), and
    # the wait is the Retry-After the refusal names, so the refill is the rate's own.
    async with client_with(settings, create_rate=1, create_burst=1) as client:
        assert (await client.post("/v1/games", json=PLAYERS)).status_code == 201
        body = limited(await client.post("/v1/games", json=PLAYERS))
        assert body["retry_after"] == 1
        time.sleep(body["retry_after"])
        assert (await client.post("/v1/games", json=PLAYERS)).status_code == 201


async def test_moves_of_one_seat_beyond_its_burst_are_429_and_the_other_seats_play_on(settings):
    async with client_with(settings, seat_move_rate=0.2, seat_move_burst=2) as client:
        created, tokens = await create(client, 3, seed=40)
        game_id = created["game_id"]
        # Seat 1 is to move; seat 2 wastes its two tokens on refused moves.
        hand = (await view(client, game_id, tokens[2]))["you"]["hand"]
        for _ in range(2):
            early = await client.post(
                f"/v1/games/{game_id}/moves", json={"card": hand[0], "cauldron": 0}, headers=auth(tokens[2])
            )
            assert early.status_code == 409
        body = limited(
            await client.post(
                f"/v1/games/{game_id}/moves", json={"card": hand[0], "cauldron": 0}, headers=auth(tokens[2])
            )
        )
        assert body["retry_after"] == 5
        assert "moves" in body["detail"]
        for _ in range(2):  # seats 1 and then 2... seat 2 is still over its limit
            seat = (await view(client, game_id))["turn"]
            move = (await view(client, game_id, tokens[seat]))["you"]["legal_moves"][0]
            response = await client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(tokens[seat]))
            if seat == 2:
                limited(response)
                break
            assert response.status_code == 201, response.text
        assert (await view(client, game_id))["version"] == 3  # the throttled move changed nothing


async def test_a_throttled_move_with_an_idempotency_key_is_played_when_retried_later(settings):
    # One token a second, as in the refill test: the refusal must come within a second of
    # the spent token, and the retry waits the refusal's own Retry-After.
    async with client_with(settings, seat_move_rate=1, seat_move_burst=1) as client:
        created, tokens = await create(client, 3, seed=41)
        game_id = created["game_id"]
        held = set((await view(client, game_id, tokens[1]))["you"]["hand"])
        other = next(card for card in (await view(client, game_id, tokens[2]))["you"]["hand"] if card not in held)
        refused = await client.post(
            f"/v1/games/{game_id}/moves", json={"card": other, "cauldron": 0}, headers=auth(tokens[1])
        )
        assert refused.status_code == 422  # card_not_in_hand: the seat's one token is spent
        move = (await view(client, game_id, tokens[1]))["you"]["legal_moves"][0]
        headers = {**auth(tokens[1]), "Idempotency-Key": "later"}
        body = limited(await client.post(f"/v1/games/{game_id}/moves", json=move, headers=headers))
        time.sleep(body["retry_after"])
        played = await client.post(f"/v1/games/{game_id}/moves", json=move, headers=headers)
        assert played.status_code == 201, played.text  # the 429 was not recorded under the key
        again = await client.post(f"/v1/games/{game_id}/moves", json=move, headers=headers)
        assert (again.status_code, again.content) == (201, played.content)  # a retry takes no token


async def test_moves_from_one_client_address_are_limited_over_all_its_seats_and_games(settings):
    async with client_with(settings, move_rate=0.1, move_burst=3) as client:
        first, first_tokens = await create(client, 3, seed=42)
        second, second_tokens = await create(client, 3, seed=43)
        answers = []
        for game, tokens in ((first, first_tokens), (second, second_tokens), (first, first_tokens)):
            game_id = game["game_id"]
            seat = (await view(client, game_id))["turn"]
            move = (await view(client, game_id, tokens[seat]))["you"]["legal_moves"][0]
            answers.append(await client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(tokens[seat])))
        assert [a.status_code for a in answers] == [201, 201, 201]
        seat = (await view(client, second["game_id"]))["turn"]
        move = (await view(client, second["game_id"], second_tokens[seat]))["you"]["legal_moves"][0]
        response = await client.post(
            f"/v1/games/{second['game_id']}/moves", json=move, headers=auth(second_tokens[seat])
        )
        assert limited(response)["retry_after"] == 10


def test_rate_limit_settings_are_bounded():
    for name, value in [("move_rate", "0"), ("create_burst", "0"), ("seat_move_rate", "1e9"), ("create_rate", "x")]:
        with pytest.raises(ValueError, match=name):
            Settings.from_environment({f"POISON_{name.upper()}": value})
    assert Settings.from_environment({"POISON_CREATE_RATE": "2.5"}).rate_limits().create.rate == 2.5


# ---- across the workers of a real `poison serve` ---------------------------------------


@pytest.fixture
def two_workers_low_limits(tmp_path: Path) -> Iterator[str]:
    with serving(tmp_path, workers=2, POISON_CREATE_RATE="0.01", POISON_CREATE_BURST="6") as base:
        yield base


def one_client_per_worker(base: str) -> list[httpx.Client]:
    """Two keep-alive clients, each bound to a different worker: a connection stays with the
    worker that accepted it, and fresh connections are opened until both workers hold one
    (the kernel may hand many in a row to the same worker, so this is bounded in time)."""
    held: dict[str, httpx.Client] = {}
    deadline = time.monotonic() + 30
    while len(held) < 2 and time.monotonic() < deadline:
        client = httpx.Client(timeout=10)
        worker = client.get(f"{base}/health/live").headers["x-poison-worker"]
        if worker in held:
            client.close()
        else:
            held[worker] = client
    if len(held) < 2:
        for client in held.values():
            client.close()
        pytest.fail("only one worker accepted connections for 30 s")
    return list(held.values())


@pytest.mark.subprocess
@pytest.mark.anyio(False)
def test_the_limit_holds_across_workers_and_is_kept_per_client_address(two_workers_low_limits):
    base = two_workers_low_limits
    clients = one_client_per_worker(base)
    try:
        # Alternate the two workers: each sees only half the creations, yet the sixth is the
        # last the shared bucket allows.
        answers = [clients[n % 2].post(f"{base}/v1/games", json=PLAYERS).status_code for n in range(10)]
    finally:
        for client in clients:
            client.close()
    assert answers == [201] * 6 + [429] * 4
    # A client from another address (loopback has them all) has a bucket of its own.
    with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2"), timeout=10) as other:
        response = other.post(f"{base}/v1/games", json=PLAYERS)
    assert response.status_code == 201, response.text
