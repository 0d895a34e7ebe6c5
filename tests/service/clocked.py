"""Clocked games over HTTP whose persons never move, for the tests of deadlines on a real
`poison serve` (tests/service/test_clocks_served.py, tests/reliability/test_clock_faults.py,
tests/cluster/test_clocks_on_cluster.py): made, waited for until every one is abandoned, and
held to the clocks' word: every person's deadline fired exactly once."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from tests.waiting import until

#: The persons at each table: each times out once, and the last one's time-out abandons it.
PERSONS = 3


@dataclass(frozen=True)
class Clocked:
    game_id: str
    tokens: dict[int, str]


def create_clocked(http: httpx.Client, seconds: int, seed: int) -> Clocked:
    """A game of PERSONS persons, each with `seconds` a move."""
    body = {
        "players": [{"name": f"p{seat}"} for seat in range(PERSONS)],
        "clock": {"seconds_per_move": seconds},
        "seed": seed,
    }
    created = http.post("/v1/games", json=body)
    assert created.status_code == 201, created.text
    game = created.json()
    return Clocked(game["game_id"], {player["seat"]: player["token"] for player in game["players"]})


def logged(http: httpx.Client, game_id: str) -> list[dict]:
    """The game's events as /events gives them."""
    answer = http.get(f"/v1/games/{game_id}/events")
    assert answer.status_code == 200, answer.text
    return answer.json()["events"]


def timed_out(events: list[dict]) -> list[int]:
    """The seats that timed out, in order."""
    return [event["data"]["seat"] for event in events if event["type"] == "seat_timed_out"]


def abandoned(http: httpx.Client, game_ids: list[str], seconds: float = 60) -> None:
    """Until every one of the games is abandoned (each asked as often as it takes, through
    503s and lost connections while a fault lasts)."""
    left = set(game_ids)

    def all_over() -> bool:
        for game_id in list(left):
            try:
                answer = http.get(f"/v1/games/{game_id}")
            except httpx.TransportError:  # a connection to a worker just killed: ask again
                return False
            if answer.status_code == 200 and answer.json()["status"] == "abandoned":
                left.discard(game_id)
        return not left

    until(all_over, deadline=seconds, interval=0.2, what=f"games abandoned, {len(left)} not: {sorted(left)[:3]}")


def each_timed_out_once(http: httpx.Client, game_ids: list[str]) -> None:
    """Every person of every game timed out exactly once, then the game was abandoned, and
    nothing came after it."""
    for game_id in game_ids:
        events = logged(http, game_id)
        assert sorted(timed_out(events)) == list(range(PERSONS)), f"{game_id}: {timed_out(events)}"
        assert [event["version"] for event in events] == list(range(1, len(events) + 1))
        assert events[-1]["type"] == "game_abandoned", game_id
        assert [event["type"] for event in events].count("game_abandoned") == 1
