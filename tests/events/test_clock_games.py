"""The games' clocks in the store (events/games.py, events/clocks.py): the deadline is the
store's word, so a worker that did not write it reads it right; a seat going away or coming
back leaves the seat to move its time; a deadline fires once however often it is asked; a
rematch's clock runs from its first deal; and a return or a leave, which no bot answers, costs
no search."""

from __future__ import annotations

import asyncio
import time

import pytest

from core.errors import MoveConflict
from events.codec import Clock, Player
from events.games import Games
from events.limits import Rate, RateLimits, SearchBudgetSpent
from events.play import LoggedGame
from events.store import EventStore
from tests.waiting import wall_clock_past

pytestmark = pytest.mark.anyio

OPTIONS = {"poison": {"rounds": 1, "cauldrons": "dynamic"}, "pot": {}}
EVERY = pytest.mark.parametrize("ruleset", list(OPTIONS))
#: Two people, two bots after them.
TABLE = (
    Player(seat=0, name="ann"),
    Player(seat=1, name="bea"),
    Player(seat=2, name="cal"),
    Player(seat=3, name="robo", bot="random"),
)
MINUTE = 60


def now_ms() -> int:
    return int(time.time() * 1000)


async def clocked(
    games: Games, ruleset: str, game_id: str = "g", *, table: tuple[Player, ...] = TABLE, seconds: int = MINUTE
) -> LoggedGame:
    _, logged = await games.create(
        game_id,
        table,
        seed=11,
        token_hashes={},
        created_ms=now_ms(),
        ruleset=ruleset,
        options=OPTIONS[ruleset],
        clock=Clock(seconds_per_move=seconds),
    )
    return logged


async def move(games: Games, game_id: str) -> LoggedGame:
    logged = await games.load(game_id)
    _, after = await games.play(game_id, logged.game.turn, *logged.game.legal_moves()[0])
    return after


@EVERY
async def test_a_deadline_one_worker_wrote_is_the_one_another_worker_reads(store: EventStore, ruleset: str) -> None:
    one, two = Games(store), Games(store)  # as if in two processes on one store
    made = await clocked(one, ruleset)
    assert made.deadline_ms is not None
    assert (await two.load("g")).deadline_ms == made.deadline_ms  # a load from nothing
    for _ in range(3):
        moved = await move(one, "g")
        read = await two.load("g")  # a load from its cache, newer events read
        assert read.version == moved.version
        assert read.deadline_ms == moved.deadline_ms
        assert read.deadline_ms is not None
        assert await store.deadline("g") == (moved.version, moved.deadline_ms)
    # And the other way round, the cache of the first worker behind.
    moved = await move(two, "g")
    assert (await one.load("g")).deadline_ms == moved.deadline_ms


@EVERY
async def test_another_seats_resign_or_return_leaves_the_seat_to_move_its_deadline(
    store: EventStore, ruleset: str
) -> None:
    one, two = Games(store), Games(store)
    made = await clocked(one, ruleset)
    first = made.game.turn
    after_out = now_ms()
    assert await one.expire("g", made.deadline_ms + 1) is not None  # `first` is away
    timed = await two.load("g")
    to_move, deadline = timed.game.turn, timed.deadline_ms
    assert deadline is not None
    assert deadline >= after_out + MINUTE * 1000
    bystander = next(s for s in range(3) if s not in (first, to_move))
    _, back = await two.come_back("g", first)
    assert (back.game.turn, back.deadline_ms) == (to_move, deadline)
    assert (await one.load("g")).deadline_ms == deadline
    _, resigned = await one.resign("g", bystander)
    assert (resigned.game.turn, resigned.deadline_ms) == (to_move, deadline)
    assert (await two.load("g")).deadline_ms == deadline
    assert await store.deadlines.score("g") == deadline


@EVERY
async def test_a_deadline_fires_once_however_often_and_by_however_many_it_is_asked(
    store: EventStore, ruleset: str
) -> None:
    workers = [Games(store) for _ in range(4)]
    made = await clocked(workers[0], ruleset)
    deadline = made.deadline_ms
    assert deadline is not None
    assert await workers[1].expire("g", deadline - 1) == deadline  # early: nothing to do
    assert await store.version("g") == made.version
    await wall_clock_past(deadline + 1 - MINUTE * 1000)
    fired = await asyncio.gather(*(games.expire("g", deadline + 1) for games in workers for _ in range(3)))
    log = await store.read("g")
    assert [type(event).__name__ for _, event in log].count("SeatTimedOut") == 1
    after = await workers[0].load("g")
    assert set(fired) == {after.deadline_ms}  # every caller is told the next deadline
    assert after.deadline_ms is not None
    assert after.deadline_ms > deadline + 1
    assert await workers[2].expire("g", deadline + 1) == after.deadline_ms
    assert await store.version("g") == after.version
    assert await workers[3].expire("nothing-here", deadline) is None


@EVERY
async def test_the_timekeeper_fires_what_is_due_and_settles_it_at_the_next_deadline(
    store: EventStore, ruleset: str
) -> None:
    games = Games(store)
    made = await clocked(games, ruleset)
    keeper = games.timekeeper()
    assert made.deadline_ms is not None
    assert await store.deadlines.score("g") == made.deadline_ms
    assert await keeper.tick(made.deadline_ms - 1) == 0
    assert await keeper.tick(made.deadline_ms + 1) == 1
    after = await games.load("g")
    assert after.away is not None
    assert after.away.bot_of(made.game.turn) == "greedy"
    assert await store.deadlines.score("g") == after.deadline_ms
    # Nobody left: abandoned, and out of the index.
    now = after.deadline_ms
    while not (await games.load("g")).over:
        now = (await games.load("g")).deadline_ms
        assert now is not None
        await keeper.tick(now + 1)
    assert (await games.load("g")).status == "abandoned"
    assert await store.deadlines.score("g") is None


@EVERY
async def test_a_clocked_games_rematch_keeps_its_clock_and_starts_it(store: EventStore, ruleset: str) -> None:
    games = Games(store)
    table = (
        Player(seat=0, name="ann"),
        Player(seat=1, name="robo", bot="random"),
        Player(seat=2, name="cy", bot="greedy"),
    )
    await clocked(games, ruleset, table=table, seconds=90)
    while not (logged := await games.load("g")).finished:
        await move(games, "g")
    assert logged.deadline_ms is None
    before = now_ms()
    next_id, rematch = await games.rematch("g", "g2", seat=0, seed=5, token_hashes=dict, created_ms=before)
    assert rematch.clock == Clock(seconds_per_move=90)
    assert rematch.deadline_ms is not None
    assert before + 90_000 <= rematch.deadline_ms <= now_ms() + 90_000
    assert await store.deadlines.score(next_id) == rematch.deadline_ms
    assert (await Games(store).load(next_id)).deadline_ms == rematch.deadline_ms


@EVERY
async def test_a_waiting_games_deadline_holds_through_joins_and_fires_its_abandonment(
    store: EventStore, ruleset: str
) -> None:
    games = Games(store, waiting_ms=60_000)
    table = (Player(seat=0, name="ann"), Player(seat=1), Player(seat=2), Player(seat=3, name="robo", bot="random"))
    _, waiting = await games.create(
        "w", table, seed=1, token_hashes={}, created_ms=now_ms(), ruleset=ruleset, options=OPTIONS[ruleset]
    )
    deadline = waiting.deadline_ms
    assert deadline is not None
    _, joined = await games.join("w", 1, "bea", token_hash="h")
    assert joined.deadline_ms == deadline  # a join does not restart the wait
    assert (await Games(store).load("w")).deadline_ms == deadline
    assert await games.expire("w", deadline + 1) is None
    ended = await games.load("w")
    assert ended.status == "abandoned"
    with pytest.raises(MoveConflict) as refused:
        await games.join("w", 2, "cal", token_hash="h2")
    assert refused.value.code == "game_started"
    assert [type(e).__name__ for _, e in await store.read("w")][-1] == "GameAbandoned"


async def spend_search_budget(games: Games, client: str) -> None:
    """Games created by `client` whose search bot moves first, until its budget is spent."""
    spender = (Player(seat=0, name="m", bot="mcts", playouts=1), Player(seat=1, name="ann"))
    for number in range(4):
        try:
            await games.create(
                f"spend{number}",
                spender,
                seed=number,
                token_hashes={},
                created_ms=now_ms(),
                ruleset="pot",
                client=client,
            )
        except SearchBudgetSpent:
            return
    raise AssertionError("the search budget was never spent")


@EVERY
async def test_a_return_costs_no_search_at_a_table_with_a_search_bot(store: EventStore, ruleset: str) -> None:
    # A search bot sits at the table, but a seat coming back never makes a bot move: the
    # return is answered even when its client's search budget is spent.
    games = Games(store, limits=RateLimits(search=Rate(1 / 3600, 1)))
    table = (Player(seat=0, name="ann"), Player(seat=1, name="bea"), Player(seat=2, name="m", bot="mcts", playouts=1))
    made = await clocked(games, ruleset, table=table)
    first = made.game.turn
    await games.expire("g", made.deadline_ms + 1)
    await spend_search_budget(games, "10.0.0.9")
    _, back = await games.come_back("g", first, client="10.0.0.9")
    assert back.away is not None
    assert back.away.bot_of(first) is None


@EVERY
async def test_a_leave_costs_no_search_at_a_table_with_a_search_bot(store: EventStore, ruleset: str) -> None:
    games = Games(store, limits=RateLimits(search=Rate(1 / 3600, 1)))
    table = (Player(seat=0, name="ann"), Player(seat=1), Player(seat=2, name="m", bot="mcts", playouts=1))
    await games.create(
        "w", table, seed=1, token_hashes={0: "h"}, created_ms=now_ms(), ruleset=ruleset, options=OPTIONS[ruleset]
    )
    await spend_search_budget(games, "10.0.0.9")
    _, left = await games.leave("w", 0, token_hash="h", client="10.0.0.9")
    assert left.status == "abandoned"  # every person left it


@EVERY
async def test_a_load_that_could_not_learn_its_deadline_is_not_kept_for_the_next(
    store: EventStore, ruleset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = Games(store), Games(store)
    made = await clocked(one, ruleset)
    moved = await move(one, "g")
    assert moved.deadline_ms is not None
    # As when every read of the summary row finds appends ahead of the log read before it.
    monkeypatch.setattr("events.games.DEADLINE_READS", 0)
    assert (await two.load("g")).deadline_ms is None  # unknown, not "none pending"
    monkeypatch.undo()
    assert (await two.load("g")).deadline_ms == moved.deadline_ms != made.deadline_ms


@EVERY
async def test_a_firing_that_lost_every_race_keeps_the_deadline_the_summary_row_names(
    store: EventStore, ruleset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = await clocked(Games(store), ruleset)
    # As when every judgement loses to a move, and no load learns the deadline.
    monkeypatch.setattr("events.games.LOBBY_RETRIES", 0)
    monkeypatch.setattr("events.games.DEADLINE_READS", 0)
    assert await Games(store).expire("g", made.deadline_ms + 1) == made.deadline_ms


@EVERY
async def test_a_resign_on_a_load_that_could_not_learn_its_deadline_leaves_the_seat_to_move_its_time(
    store: EventStore, ruleset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = await clocked(Games(store), ruleset)
    bystander = next(seat for seat in range(3) if seat != made.game.turn)
    await wall_clock_past(made.deadline_ms - MINUTE * 1000)  # a new turn's deadline now differs
    # The resign's load finds appends ahead of every read of the summary row.
    monkeypatch.setattr("events.games.DEADLINE_READS", 0)
    _, resigned = await Games(store).resign("g", bystander)
    assert (resigned.game.turn, resigned.deadline_ms) == (made.game.turn, made.deadline_ms)
    assert await store.deadline("g") == (resigned.version, made.deadline_ms)


@EVERY
async def test_a_join_on_a_load_that_could_not_learn_its_deadline_keeps_the_waiting_limit(
    store: EventStore, ruleset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = (Player(seat=0, name="ann"), Player(seat=1), Player(seat=2), Player(seat=3, name="robo", bot="random"))
    _, waiting = await Games(store, waiting_ms=60_000).create(
        "w", table, seed=1, token_hashes={}, created_ms=now_ms(), ruleset=ruleset, options=OPTIONS[ruleset]
    )
    assert waiting.deadline_ms is not None
    monkeypatch.setattr("events.games.DEADLINE_READS", 0)
    _, joined = await Games(store, waiting_ms=60_000).join("w", 1, "bea", token_hash="h")
    assert joined.deadline_ms == waiting.deadline_ms
    assert await store.deadline("w") == (joined.version, waiting.deadline_ms)
