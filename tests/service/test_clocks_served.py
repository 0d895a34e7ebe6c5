"""Deadlines on a real `poison serve` with two workers, one-second clocks: every deadline of
many games whose persons never move fires exactly once, whichever worker claims it, and
the games end abandoned; a person who moves right at the deadline either moves or times
out, never both, and is told which."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from tests.service.api import auth
from tests.service.clocked import Clocked, abandoned, create_clocked, each_timed_out_once, logged
from tests.service.served import serving

pytestmark = pytest.mark.subprocess


@pytest.fixture(scope="module")
def http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    with (
        serving(Path(tmp_path_factory.mktemp("clocks-served")), workers=2) as base,
        httpx.Client(base_url=base, timeout=10) as client,
    ):
        yield client


def test_every_deadline_of_thirty_idle_games_fires_once_and_each_game_ends_abandoned(http: httpx.Client):
    games = [create_clocked(http, 1, seed).game_id for seed in range(30)]
    abandoned(http, games)
    each_timed_out_once(http, games)


def move_at_the_deadline(base: str, seed: int, late: float) -> tuple[Clocked, int, int, httpx.Response]:
    """A new game whose first seat moves `late` seconds after its deadline (before it, if
    < 0): the game, the seat, the version its move was judged at, the answer."""
    with httpx.Client(base_url=base, timeout=10) as http:
        game = create_clocked(http, 1, seed)
        seat = http.get(f"/v1/games/{game.game_id}").json()["turn"]
        seen = http.get(f"/v1/games/{game.game_id}", headers=auth(game.tokens[seat])).json()
        deadline = datetime.fromisoformat(seen["clock"]["deadline"]).timestamp()
        time.sleep(max(0.0, deadline + late - time.time()))
        move = seen["you"]["legal_moves"][0]
        return (
            game,
            seat,
            seen["version"],
            http.post(f"/v1/games/{game.game_id}/moves", json=move, headers=auth(game.tokens[seat])),
        )


def test_a_move_right_at_its_deadline_is_the_move_or_the_time_out_never_both(http: httpx.Client):
    # From a little before the deadline to past a tick of the clocks after it.
    lateness = [-0.1 + 0.03 * n for n in range(12)]
    with ThreadPoolExecutor(len(lateness)) as pool:
        raced = list(pool.map(move_at_the_deadline, [str(http.base_url)] * 12, range(100, 112), lateness))
    games = [game for game, *_ in raced]
    abandoned(http, [game.game_id for game in games])
    outcomes = set()
    for game, seat, version, answer in raced:
        events = logged(http, game.game_id)
        after = events[version]  # what the deadline at `version` became
        if answer.status_code == 201:
            assert (after["type"], after["data"]["seat"]) == ("card_played", seat)
            assert answer.json()["events"][0]["version"] == version + 1
        else:
            assert answer.status_code == 409, answer.text
            assert answer.json()["code"] in ("seat_away", "not_your_turn"), answer.text
            assert (after["type"], after["data"]["seat"]) == ("seat_timed_out", seat)
        outcomes.add(answer.status_code)
    each_timed_out_once(http, [game.game_id for game in games])
    print(f"moves at the deadline: {sorted(outcomes)}")
