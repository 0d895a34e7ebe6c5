"""Whole games of both rulesets through two `poison serve` processes on one cluster, each
given a different node's URL: moves alternate between them, and each sees the other's."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from events.cluster import LocalCluster
from tests.service.api import auth
from tests.service.served import serving


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
    """Two services, one given a master's URL, the other a replica's."""
    with (
        serving(tmp_path_factory.mktemp("a"), POISON_REDIS_URL=cluster.nodes[0].url) as first,
        serving(tmp_path_factory.mktemp("b"), POISON_REDIS_URL=cluster.nodes[-1].url) as second,
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
