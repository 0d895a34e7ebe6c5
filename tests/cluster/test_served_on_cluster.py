"""Whole games of both rulesets through two `poison serve` processes on one cluster, each
given a different node's URL: moves alternate between them, and each sees the other's."""

from __future__ import annotations

import asyncio
import secrets
import time
import uuid
from collections.abc import Iterator

import httpx
import pytest

from events.cluster import LocalCluster
from events.slots import slot_of
from tests.cluster.test_connection import master_of
from tests.service.api import auth
from tests.service.served import serving
from tests.waiting import until_async

pytestmark = [pytest.mark.anyio, pytest.mark.cluster]


def play_through(services: list[str], body: dict) -> dict:
    """Create a game on the first service, then make each move through the next one in
    turn (the seat's first legal move); the finished game as the last service saw it."""
    with httpx.Client(timeout=10) as client:
        created = client.post(f"{services[0]}/v1/games", json=body)
        assert created.status_code == 201, created.text
        game = created.json()
        tokens = {player["seat"]: player["token"] for player in game["players"]}
        game_id, moves = game["game_id"], 0
        while True:
            base = services[moves % len(services)]
            seen = client.get(f"{base}/v1/games/{game_id}").json()
            if seen["status"] == "finished":
                return seen
            token = tokens[seen["turn"]]
            mine = client.get(f"{base}/v1/games/{game_id}", headers=auth(token)).json()
            assert mine["version"] == seen["version"]  # a move made through the other service is seen here
            move = client.post(
                f"{base}/v1/games/{game_id}/moves", json=mine["you"]["legal_moves"][0], headers=auth(token)
            )
            assert move.status_code == 201, move.text
            moves += 1


@pytest.fixture(scope="module")
def services(cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """Two services, one given a master's URL, the other a replica's, and one server key
    (nodes on one store must share it: each would otherwise refuse the other's tokens)."""
    key = {"POISON_SECRET_KEY": secrets.token_urlsafe(32)}
    with (
        serving(tmp_path_factory.mktemp("a"), POISON_REDIS_URL=cluster.nodes[0].url, **key) as first,
        serving(tmp_path_factory.mktemp("b"), POISON_REDIS_URL=cluster.nodes[-1].url, **key) as second,
    ):
        yield [first, second]


@pytest.mark.parametrize(
    "body",
    [
        {"players": [{"name": f"p{s}"} for s in range(3)], "rounds": 1, "seed": 13},
        {"players": [{"name": f"p{s}"} for s in range(2)], "ruleset": "pot", "seed": 14},
    ],
    ids=["poison", "pot"],
)
def test_a_whole_game_is_played_through_two_services_on_one_cluster(services: list[str], body: dict):
    first, second = services
    finished = play_through(services, body)
    assert finished["winners"]
    with httpx.Client(timeout=10) as client:
        events = client.get(f"{second}/v1/games/{finished['game_id']}/events").json()
        listed = client.get(f"{first}/v1/games", params={"status": "finished"}).json()
    assert len(events["events"]) == finished["version"]
    assert finished["game_id"] in [game["game_id"] for game in listed["games"]]


async def play_on(
    client: httpx.AsyncClient, services: list[str], game_id: str, tokens: dict[int, str], outages: list[float]
) -> list[tuple[int, str, int]]:
    """Play a game to its end through both services in turn, each move sent with its own
    Idempotency-Key and sent again (the same key, the same move) after a 503; every answer
    that is a 503 is timed. The moves acknowledged: (seat, card, cauldron)."""
    acknowledged: list[tuple[int, str, int]] = []
    turn = 0
    while True:
        base = services[turn % len(services)]
        turn += 1
        started = time.monotonic()
        seen = await client.get(f"{base}/v1/games/{game_id}")
        if seen.status_code == 503:
            outages.append(time.monotonic() - started)
            await asyncio.sleep(0.05)
            continue
        assert seen.status_code == 200, seen.text
        if seen.json()["status"] == "finished":
            return acknowledged
        seat = seen.json()["turn"]
        mine = await client.get(f"{base}/v1/games/{game_id}", headers=auth(tokens[seat]))
        if mine.status_code == 503:
            continue
        move = mine.json()["you"]["legal_moves"][0]
        headers = {**auth(tokens[seat]), "Idempotency-Key": uuid.uuid4().hex}
        while True:
            started = time.monotonic()
            answer = await client.post(f"{base}/v1/games/{game_id}/moves", json=move, headers=headers)
            if answer.status_code != 503:
                break
            outages.append(time.monotonic() - started)
            await asyncio.sleep(0.05)
        assert answer.status_code == 201, answer.text
        acknowledged.append((seat, move["card"], move["cauldron"]))


async def new_games(client: httpx.AsyncClient, services: list[str], seeds: range) -> list[tuple[str, dict[int, str]]]:
    """Three-seat games made through the services in turn: each one's id and seats' tokens."""
    games = []
    for seed in seeds:
        body = {"players": [{"name": f"p{s}"} for s in range(3)], "rounds": 1, "seed": seed}
        created = (await client.post(f"{services[seed % 2]}/v1/games", json=body)).json()
        games.append((created["game_id"], {p["seat"]: p["token"] for p in created["players"]}))
    return games


async def under_way(client: httpx.AsyncClient, service: str, game_id: str, moves: int) -> None:
    """Until the game has `moves` moves more than it had when this was called."""
    first = (await client.get(f"{service}/v1/games/{game_id}")).json()["version"]

    async def moved() -> bool:
        seen = await client.get(f"{service}/v1/games/{game_id}")
        return seen.status_code == 200 and seen.json()["version"] >= first + moves

    await until_async(moved, what=f"{moves} moves of game {game_id}")


async def logged_moves(client: httpx.AsyncClient, service: str, game_id: str) -> list[tuple[int, str, int]]:
    """The moves a game's log holds, as play_on gives them: (seat, card, cauldron)."""
    log = (await client.get(f"{service}/v1/games/{game_id}/events")).json()["events"]
    return [(e["data"]["seat"], e["data"]["card"], e["data"]["cauldron"]) for e in log if e["type"] == "card_played"]


async def test_a_master_killed_while_games_are_played_through_the_services_loses_and_doubles_no_move(
    cluster: LocalCluster, services: list[str]
):
    async with httpx.AsyncClient(timeout=10) as client:
        games = await new_games(client, services, range(100, 106))
        outages: list[float] = []
        playing = [asyncio.ensure_future(play_on(client, services, *game, outages)) for game in games]
        slot = slot_of(f"{{{games[0][0]}}}")  # every key of a game carries its id as the tag
        victim = cluster.node_on(master_of(cluster, slot))
        try:
            await under_way(client, services[0], games[0][0], 3)
            victim.kill()  # kill -9, mid-game
            acknowledged = await asyncio.wait_for(asyncio.gather(*playing), 60)
            for (game_id, _), moves in zip(games, acknowledged, strict=True):
                # Every acknowledged move once, in order, and no other.
                assert await logged_moves(client, services[0], game_id) == moves
            assert outages  # the lost master's games saw it
            # Each 503 within the store timeout (2 s), none hung (the client gives up at 10 s);
            # the rest is slack for a busy machine.
            assert max(outages) < 2.0 + 5.0
        finally:
            for task in playing:
                task.cancel()
            await asyncio.gather(*playing, return_exceptions=True)
            victim.start()  # back, as its promoted replica's replica
            cluster.wait_until_ok(30)


async def test_a_slot_moved_by_migrateslots_while_games_are_played_costs_no_error_and_no_move(
    cluster: LocalCluster, services: list[str]
):
    async with httpx.AsyncClient(timeout=10) as client:
        games = await new_games(client, services, range(200, 204))
        slot = slot_of(f"{{{games[0][0]}}}")
        source = master_of(cluster, slot)
        target = next(port for _, _, port, _ in cluster.slots() if port != source)
        with cluster.node_on(target).client() as client_of_target:
            target_id = client_of_target.execute_command("CLUSTER", "MYID").decode()
        outages: list[float] = []
        playing = [asyncio.ensure_future(play_on(client, services, *game, outages)) for game in games]
        try:
            await under_way(client, services[0], games[0][0], 2)
            with cluster.node_on(source).client() as client_of_source:
                client_of_source.execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", slot, slot, "NODE", target_id)
            # The slot moves while its game is played: moves are made after the command.
            at_migration = (await client.get(f"{services[0]}/v1/games/{games[0][0]}")).json()
            assert at_migration["status"] == "active"
            acknowledged = await asyncio.wait_for(asyncio.gather(*playing), 60)
        finally:
            for task in playing:
                task.cancel()
            await asyncio.gather(*playing, return_exceptions=True)
        assert master_of(cluster, slot) == target
        for (game_id, _), moves in zip(games, acknowledged, strict=True):
            assert await logged_moves(client, services[1], game_id) == moves
        final = (await client.get(f"{services[1]}/v1/games/{games[0][0]}")).json()
        assert final["version"] > at_migration["version"]  # moves made on the slot's new master
        assert outages == []  # the services saw MOVED only, followed it, and answered every request
