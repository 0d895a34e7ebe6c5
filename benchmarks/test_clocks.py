"""Speed of firing a deadline (group `clocks`), on the real embedded server: Games.expire of
a clocked game whose seat to move is past its deadline, against a plain move through
Games.play of the same game at the same point, in the same run (benchmarks.ratios prints
expire ÷ play).

Each round is a fresh game of four persons under a clock, made untimed (pedantic's setup),
so both cases start from the same state: the game just created, in the Games' cache. The
firing loads the game (the store asked what is new), reads its deadline from its summary
row, judges seat_timed_out and the away bot's move, and appends them in one step with the
next person's deadline, which it writes in the index; the move judges a person's card and
appends it with the same deadline's writes. Each asserts its result: the fired game's seat
timed out and its bot moved, the moved game moved, each at the version it was at, and each
names the next person's deadline.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from events.codec import Clock, SeatTimedOut
from events.games import Games
from events.play import LoggedGame
from events.poison.schema import CardPlayed, Player
from events.store import EventStore

#: A clock no round outlasts: the firing is told the time (`now`), not made to wait for it.
CLOCK = Clock(seconds_per_move=3600)
#: Later than any deadline the benchmark makes, in ms: the time the firing is judged at.
FAR_FUTURE_MS = 2**53
ROUNDS = 300
PERSONS = tuple(Player(seat=seat, name=f"person{seat}") for seat in range(4))


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


@pytest.fixture
def games(loop: asyncio.AbstractEventLoop, redis_url: str, namespace: str) -> Iterator[Games]:
    store = EventStore.from_url(redis_url, namespace=namespace)
    games = Games(store)
    yield games
    games.close()
    loop.run_until_complete(store.close())


def fresh_games(loop: asyncio.AbstractEventLoop, games: Games) -> Callable[[], LoggedGame]:
    """A function that creates a new clocked game of four persons each time it is called."""
    numbers = itertools.count()

    def create() -> LoggedGame:
        game_id = f"clocked{next(numbers)}"
        _, logged = loop.run_until_complete(
            games.create(game_id, PERSONS, seed=7, token_hashes={}, created_ms=1, options={"rounds": 2}, clock=CLOCK)
        )
        assert logged.deadline_ms is not None
        return logged

    return create


def ran(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, create: Callable[[], LoggedGame], step: Any
) -> list[tuple[LoggedGame, Any]]:
    """`step(game)` timed on a fresh game each round; every game with what its step returned."""
    done: list[tuple[LoggedGame, Any]] = []
    pending: list[LoggedGame] = []

    def setup() -> tuple[tuple[LoggedGame], dict[str, Any]]:
        pending.append(create())
        return (pending[-1],), {}

    def timed(game: LoggedGame) -> None:
        done.append((game, loop.run_until_complete(step(game))))

    benchmark.pedantic(timed, setup=setup, rounds=ROUNDS, iterations=1, warmup_rounds=5)
    return done


@pytest.mark.benchmark(group="clocks")
def test_expire_a_due_game(benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, games: Games) -> None:
    fired = ran(benchmark, loop, fresh_games(loop, games), lambda g: games.expire(g.created.game_id, FAR_FUTURE_MS))
    assert fired != []
    for before, next_deadline in fired:
        after = loop.run_until_complete(games.load(before.created.game_id))
        caused = [event for _, event in loop.run_until_complete(games.read(before.created.game_id, before.version))]
        assert caused[0] == SeatTimedOut(seat=before.game.turn, bot=games.away_bot)
        assert isinstance(caused[1], CardPlayed)
        assert caused[1].seat == before.game.turn
        assert after.game.turn != before.game.turn
        assert after.deadline_ms is not None
        assert next_deadline == after.deadline_ms


@pytest.mark.benchmark(group="clocks")
def test_play_a_move(benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, games: Games) -> None:
    def step(game: LoggedGame) -> Any:
        return games.play(game.created.game_id, game.game.turn, *game.game.legal_moves()[0])

    moved = ran(benchmark, loop, fresh_games(loop, games), step)
    assert moved != []
    for before, (appended, after) in moved:
        assert appended.first_version == before.version + 1
        assert appended.version == after.version
        caused = [event for _, event in loop.run_until_complete(games.read(before.created.game_id, before.version))]
        assert isinstance(caused[0], CardPlayed)
        assert caused[0].seat == before.game.turn
        assert after.game.turn != before.game.turn
        assert after.deadline_ms is not None
