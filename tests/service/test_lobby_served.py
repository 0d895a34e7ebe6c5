"""The lobby through a real `poison serve` with two workers: two other clients join a 4-seat
game's open seats (each sees only its own hand), one leaves and joins again, sixteen clients
race for the last seat (one 201, fifteen 409, one deal), and every person claims the rematch.
Two workers, so a token joined or left on one worker is honoured or refused on the other.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.service.served import serving

pytestmark = pytest.mark.subprocess

DEALS = {"round_started", "cards_dealt"}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(Path(tmp_path_factory.mktemp("lobby-served")), workers=2) as url:
        yield url


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    """One client for every request (and thread): a new connection per request costs 0.15 s."""
    with httpx.Client(timeout=10, limits=httpx.Limits(max_connections=32)) as client:
        yield client


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def join(http: httpx.Client, base: str, game_id: str, seat: int, name: str) -> httpx.Response:
    return http.post(f"{base}/v1/games/{game_id}/seats/{seat}", json={"name": name})


def log_of(http: httpx.Client, base: str, game_id: str, token: str | None = None) -> list[dict]:
    headers = bearer(token) if token else {}
    return http.get(f"{base}/v1/games/{game_id}/events", headers=headers).json()["events"]


@pytest.mark.parametrize("ruleset", ["poison", "pot"])
def test_two_clients_join_leave_rejoin_race_and_claim_the_rematch_on_a_real_server(
    base: str, http: httpx.Client, ruleset: str
) -> None:
    options = {"rounds": 1} if ruleset == "poison" else {}
    body = {
        "ruleset": ruleset,
        **options,
        "players": [{"name": "ann"}, {"open": True}, {"open": True}, {"name": "ben"}],
    }
    created = http.post(f"{base}/v1/games", json=body).json()
    game_id = created["game_id"]
    tokens = {p["seat"]: p["token"] for p in created["players"] if "token" in p}
    assert sorted(tokens) == [0, 3]

    bea = join(http, base, game_id, 1, "bea").json()
    assert http.delete(f"{base}/v1/games/{game_id}/seats/1", headers=bearer(bea["token"])).status_code == 204
    # The dead token is refused by every worker (two reads: each worker answers one in turn, or both the same).
    for _ in range(4):
        assert http.get(f"{base}/v1/games/{game_id}", headers=bearer(bea["token"])).status_code == 401
    bea = join(http, base, game_id, 1, "bea").json()
    tokens[1] = bea["token"]
    assert http.get(f"{base}/v1/games/{game_id}", headers=bearer(tokens[1])).status_code == 200

    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(lambda n: join(http, base, game_id, 2, f"racer{n}"), range(16)))
    assert sorted(a.status_code for a in answers) == [201] + [409] * 15
    winner = next(a.json() for a in answers if a.status_code == 201)
    tokens[2] = winner["token"]
    kinds = [event["type"] for event in log_of(http, base, game_id)]
    assert sum(kind in DEALS for kind in kinds) == 1
    assert kinds.count("game_started") == 1

    # Each seat sees only its own hand.
    for seat, token in tokens.items():
        dealt = next(e for e in log_of(http, base, game_id, token) if e["type"] in DEALS)["data"]["hands"]
        assert [hand is not None for hand in dealt] == [s == seat for s in range(4)]
        you = http.get(f"{base}/v1/games/{game_id}", headers=bearer(token)).json()["you"]
        assert sorted(you["hand"]) == sorted(dealt[seat])

    # Play to the end, then every person claims the rematch, in their own order.
    while (seen := http.get(f"{base}/v1/games/{game_id}").json())["status"] == "active":
        token = tokens[seen["turn"]]
        mine = http.get(f"{base}/v1/games/{game_id}", headers=bearer(token)).json()
        move = mine["you"]["legal_moves"][0]
        assert http.post(f"{base}/v1/games/{game_id}/moves", json=move, headers=bearer(token)).status_code == 201
    with ThreadPoolExecutor(4) as pool:
        claims = list(
            pool.map(
                lambda s: http.post(f"{base}/v1/games/{game_id}/rematch", headers=bearer(tokens[s])),
                (2, 0, 3, 1),
            )
        )
    assert [c.status_code for c in claims] == [201] * 4
    assert len({c.json()["game"]["game_id"] for c in claims}) == 1
    assert len({c.json()["token"] for c in claims}) == 4
    next_id = claims[0].json()["game"]["game_id"]
    assert http.get(f"{base}/v1/games/{game_id}").json()["next_game"] == next_id
    names = [p["name"] for p in http.get(f"{base}/v1/games/{next_id}").json()["players"]]
    assert names == ["ann", "bea", winner["name"], "ben"]
