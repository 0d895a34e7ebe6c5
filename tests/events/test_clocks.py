"""The deadline index and its Timekeepers on the real store (events/clocks.py): claims share
due games out and end, settling never undoes an append's own index write, and no crash
between two steps of an append or of a firing loses a pending deadline or makes it late.

Every tick here is given the time it judges by (`Timekeeper.tick(now)`), so no test waits for
a clock to run out: a deadline is due because the tick says it is that late. A crash is a
step of our own code that raises (`Crashed`) instead of going on, so that the store is left
exactly as a process killed there leaves it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

from events.clocks import CLAIM_MS, LOOK_SLACK_MS, Claimed, Timekeeper
from events.codec import Clock, Player, SeatTimedOut
from events.games import Games
from events.listing import SHARDS, shard_of
from events.play import LoggedGame
from events.store import EventStore, StoreUnavailable
from tests.events.logs import players
from tests.waiting import until_async, wall_clock_past

pytestmark = pytest.mark.anyio

#: A clock long enough that no deadline comes due but the ones a test makes due.
SECONDS = 60
#: An hour: how long a lobby game may wait, in the tests of waiting games.
WAITING_MS = 3_600_000


class Crashed(Exception):
    """Where a test's process dies: nothing after this step is done."""


def crash(*args: object, **kwargs: object) -> None:
    raise Crashed


async def clocked(games: Games, game_id: str, table: tuple[Player, ...] = players(3)) -> LoggedGame:
    """A game of persons (and bots), each person with SECONDS a move."""
    _, logged = await games.create(
        game_id,
        table,
        options={"rounds": 1},
        seed=7,
        token_hashes={},
        created_ms=1,
        clock=Clock(seconds_per_move=SECONDS),
    )
    assert logged.deadline_ms is not None
    return logged


async def waiting(games: Games, game_id: str) -> LoggedGame:
    """A clocked game with one open seat (and a bot), which may wait WAITING_MS."""
    _, logged = await games.create(
        game_id,
        (Player(seat=0, name="ann"), Player(seat=1), Player(seat=2, name="robo", bot="random")),
        options={"rounds": 1},
        seed=7,
        token_hashes={0: "hash-ann"},
        created_ms=1,
        clock=Clock(seconds_per_move=SECONDS),
    )
    assert logged.waiting
    assert logged.deadline_ms is not None
    return logged


async def timed_out(store: EventStore, game_id: str) -> list[int]:
    """The seats that timed out in a game's log, in order."""
    return [event.seat for _, event in await store.read(game_id) if isinstance(event, SeatTimedOut)]


async def score(store: EventStore, game_id: str) -> float | None:
    """The game's score in the index, exactly (a claim's ends in a half ms)."""
    assert store.deadlines is not None
    key = store.deadlines.index_key(shard_of(game_id))
    found = await store.deadlines.execute("ZSCORE", key, game_id, repeatable=True)
    return None if found is None else float(found)


@pytest.fixture
async def other_store(redis_url: str, namespace: str) -> AsyncIterator[EventStore]:
    """The same store through a connection of its own: another worker's."""
    store = EventStore.from_url(redis_url, namespace=namespace)
    yield store
    await store.close()


async def test_a_claim_takes_only_the_due_entries_and_only_once(store):
    deadlines = store.deadlines
    for game_id, at in (("early", 1_000), ("due", 2_000), ("later", 3_000)):
        await deadlines.set(game_id, at)

    async def claim(now: int) -> set[str]:
        claims = await asyncio.gather(*(deadlines.claim(shard, now, now + CLAIM_MS) for shard in range(17)))
        return {game for claimed in claims for game in claimed.games}

    assert await claim(2_000) == {"early", "due"}
    assert await claim(2_000) == set()  # claimed: out of reach until the claim ends
    assert await score(store, "early") == 2_000 + CLAIM_MS + 0.5
    assert await score(store, "later") == 3_000
    assert await claim(2_000 + CLAIM_MS + 1) == {"early", "due", "later"}


async def test_two_timekeepers_racing_over_many_due_games_time_each_out_once(store, other_store):
    one, two = Games(store), Games(other_store)  # two workers, each with its own cache
    created = [await clocked(one if n % 2 else two, f"race-{n}") for n in range(30)]
    due = max(logged.deadline_ms or 0 for logged in created)  # each game's first deadline, none of the next
    await wall_clock_past(due - SECONDS * 1000)
    first, second = one.timekeeper(), two.timekeeper()
    claimed = await asyncio.gather(first.tick(due), second.tick(due), first.tick(due), second.tick(due))
    assert sum(claimed) == 30
    for logged in created:
        assert await timed_out(store, logged.created.game_id) == [logged.game.turn]
    assert await store.deadlines.count() == 30  # each at its next seat's deadline, none due yet
    assert await asyncio.gather(first.tick(due), second.tick(due)) == [0, 0]


async def test_two_workers_firing_every_due_game_at_once_time_each_out_once(store, other_store):
    # As when a firing outlasts its claim and another worker claims the game too.
    one, two = Games(store), Games(other_store)
    created = [await clocked(one, f"both-{n}") for n in range(30)]
    due = max(logged.deadline_ms or 0 for logged in created)
    await wall_clock_past(due - SECONDS * 1000)
    game_ids = [logged.created.game_id for logged in created]
    await asyncio.gather(*(one.expire(game_id, due) for game_id in game_ids), *(two.expire(g, due) for g in game_ids))
    for logged in created:
        assert await timed_out(store, logged.created.game_id) == [logged.game.turn]


async def test_a_claim_a_dead_worker_holds_comes_due_again_when_it_runs_out_and_is_fired(store):
    games = Games(store)
    logged = await clocked(games, "g")
    due = logged.deadline_ms
    await store.deadlines.claim(shard_of("g"), due, due + CLAIM_MS)  # and the worker dies
    keeper = games.timekeeper()
    assert await keeper.tick(due) == 0
    assert await keeper.tick(due + CLAIM_MS) == 0
    assert await keeper.tick(due + CLAIM_MS + 1) == 1
    assert await timed_out(store, "g") == [logged.game.turn]


async def test_settling_does_nothing_once_an_append_rewrote_the_entry(store):
    games = Games(store)
    logged = await clocked(games, "g")
    due = logged.deadline_ms
    await store.deadlines.claim(shard_of("g"), due, due + CLAIM_MS)
    card, cauldron = logged.game.legal_moves()[0]
    _, after = await games.play("g", logged.game.turn, card, cauldron)  # the person moves while the worker fires
    assert not await store.deadlines.settle("g", due + CLAIM_MS, None)
    assert await score(store, "g") == after.deadline_ms


async def test_an_entry_left_early_by_a_crash_after_the_append_is_settled_at_the_real_deadline(store, monkeypatch):
    games = Games(store)
    logged = await clocked(games, "g")
    card, cauldron = logged.game.legal_moves()[0]
    monkeypatch.setattr(games, "_clocked", crash)
    with pytest.raises(Crashed):
        await games.play("g", logged.game.turn, card, cauldron)  # appended; the index still has the first deadline
    monkeypatch.undo()
    after = await Games(store).load("g")
    moved = after.deadline_ms
    assert moved is not None
    assert moved > logged.deadline_ms
    keeper = Games(store).timekeeper()
    assert await keeper.tick(logged.deadline_ms) == 1  # found early: nobody timed out
    assert await timed_out(store, "g") == []
    assert await score(store, "g") == moved
    assert await keeper.tick(moved) == 1
    assert await timed_out(store, "g") == [after.game.turn]


async def test_an_entry_for_a_game_that_does_not_exist_is_over_or_has_no_clock_is_taken_out(store):
    games = Games(store)
    await games.create("unclocked", players(3), options={"rounds": 1}, seed=1, token_hashes={}, created_ms=1)
    # One person and bots: the person's timing out abandons the game.
    over = await clocked(
        games, "over", (Player(seat=0, name="ann"), *(Player(seat=s, name=f"robo{s}", bot="random") for s in (1, 2)))
    )
    keeper = games.timekeeper()
    await keeper.tick(over.deadline_ms)
    assert (await games.load("over")).abandoned
    for game_id in ("nowhere", "over", "unclocked"):
        await store.deadlines.set(game_id, 1_000)
    versions = {game_id: await store.version(game_id) for game_id in ("nowhere", "over", "unclocked")}
    assert await keeper.tick(2_000) == 3
    assert await store.deadlines.count() == 0
    assert versions == {game_id: await store.version(game_id) for game_id in versions}  # nothing appended


async def test_a_creation_that_crashed_before_its_append_leaves_an_entry_that_is_taken_out(store, monkeypatch):
    games = Games(store)
    monkeypatch.setattr(games.store, "append", crash)
    with pytest.raises(Crashed):
        await clocked(games, "g")  # entered in the index, never written
    monkeypatch.undo()
    assert await store.deadlines.count() == 1
    assert await games.timekeeper().tick(2**50) == 1
    assert await store.deadlines.count() == 0


async def test_a_creation_that_crashed_after_its_append_has_its_first_deadline_fired(store, monkeypatch):
    games = Games(store)
    monkeypatch.setattr(games, "_clocked", crash)
    with pytest.raises(Crashed):
        await clocked(games, "g")
    monkeypatch.undo()
    created = await Games(store).load("g")
    assert await score(store, "g") == created.deadline_ms  # entered before the append
    assert await games.timekeeper().tick(created.deadline_ms) == 1
    assert await timed_out(store, "g") == [created.game.turn]


async def test_a_start_that_crashed_after_its_append_is_fired_at_its_own_deadline_not_the_waiting_one(
    store, monkeypatch
):
    games = Games(store, waiting_ms=WAITING_MS)
    lobby = await waiting(games, "g")
    monkeypatch.setattr(games, "_clocked", crash)
    with pytest.raises(Crashed):
        await games.join("g", 1, "bob", token_hash="hash-bob")  # started: the first move's clock runs
    monkeypatch.undo()
    started = await Games(store).load("g")
    assert started.deadline_ms is not None
    assert started.deadline_ms < lobby.deadline_ms
    assert await score(store, "g") == started.deadline_ms  # entered before the append, not left at the waiting one
    assert await games.timekeeper().tick(started.deadline_ms) == 1
    assert await timed_out(store, "g") == [started.game.turn]


async def test_a_worker_that_read_a_game_before_it_started_cannot_settle_it_at_its_waiting_deadline(store, monkeypatch):
    games = Games(store, waiting_ms=WAITING_MS)
    lobby = await waiting(games, "g")
    await store.deadlines.set("g", 1_000)  # early, as a crash may leave it
    await store.deadlines.claim(shard_of("g"), 1_000, 1_000 + CLAIM_MS)
    next_ms = await Games(store, waiting_ms=WAITING_MS).expire("g", 1_000)  # a worker reads it: not due
    assert next_ms == lobby.deadline_ms
    monkeypatch.setattr(games, "_clocked", crash)
    with pytest.raises(Crashed):
        await games.join("g", 1, "bob", token_hash="hash-bob")  # the start lands, its process dies
    monkeypatch.undo()
    assert not await store.deadlines.settle("g", 1_000 + CLAIM_MS, next_ms)  # the start ended the claim
    started = await Games(store).load("g")
    assert (await score(store, "g") or 0) <= started.deadline_ms


async def test_an_append_that_keeps_the_deadline_leaves_the_entry_as_it_is(store):
    # (so a late write of a join's deadline cannot undo the sooner one of the start after it)
    games = Games(store, waiting_ms=WAITING_MS)
    await games.create(
        "g",
        (Player(seat=0, name="ann"), Player(seat=1), Player(seat=2)),
        options={"rounds": 1},
        seed=7,
        token_hashes={0: "hash-ann"},
        created_ms=1,
        clock=Clock(seconds_per_move=SECONDS),
    )
    await store.deadlines.set("g", 1_000)
    await games.join("g", 1, "bob", token_hash="hash-bob")  # still waiting: the same deadline
    assert await score(store, "g") == 1_000


async def test_a_firing_that_crashed_after_its_append_leaves_its_claim_which_fires_the_next_deadline(
    store, monkeypatch
):
    dying, games = Games(store), Games(store)
    logged = await clocked(games, "g")
    monkeypatch.setattr(dying, "_clocked", crash)
    await dying.timekeeper().tick(logged.deadline_ms)  # appended the time-out, died before the index write
    monkeypatch.undo()
    following = await games.load("g")
    assert await timed_out(store, "g") == [logged.game.turn]
    claimed = logged.deadline_ms + CLAIM_MS
    assert await score(store, "g") == claimed + 0.5
    assert following.deadline_ms < claimed  # (the next seat's clock runs out while the claim holds it)
    keeper = games.timekeeper()
    assert await keeper.tick(claimed) == 0
    assert await keeper.tick(claimed + 1) == 1  # the claim ran out: the next seat times out, late by less than it
    assert await timed_out(store, "g") == [logged.game.turn, following.game.turn]


async def test_a_slow_firing_holds_up_none_of_the_games_that_come_due_meanwhile(store):
    fired: list[str] = []
    released = asyncio.Event()

    async def expire(game_id: str, now: int) -> int | None:  # as Games.expire, a search bot thinking in "slow"
        fired.append(game_id)
        if game_id == "slow":
            await released.wait()
        return None

    await store.deadlines.set("slow", 1_000)
    running = asyncio.create_task(Timekeeper(store.deadlines, expire).run(every=0.01))
    try:
        await until_async(lambda: fired == ["slow"], what="the slow game firing")
        await store.deadlines.set("meanwhile", 1_000)
        await until_async(lambda: "meanwhile" in fired, what="the game due meanwhile fired")
        released.set()

        async def settled() -> bool:
            return await store.deadlines.count() == 0

        await until_async(settled, what="both settled: out of the index")
    finally:
        released.set()
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running


async def test_a_shard_the_store_cannot_serve_holds_up_none_of_the_other_shards_games(store, monkeypatch):
    games = Games(store)
    created = [await clocked(games, f"g{n}") for n in range(6)]
    failing = shard_of(created[0].created.game_id)  # as if its node were failing over
    claim = store.deadlines.claim

    async def claim_unless_failing(shard: int, now: int, until: int) -> Claimed:
        if shard == failing:
            raise StoreUnavailable("the event store cannot be reached: failing over")
        return await claim(shard, now, until)

    monkeypatch.setattr(store.deadlines, "claim", claim_unless_failing)
    due = max(logged.deadline_ms or 0 for logged in created)
    await games.timekeeper().tick(due)
    for logged in created:
        game_id = logged.created.game_id
        assert await timed_out(store, game_id) == ([] if shard_of(game_id) == failing else [logged.game.turn])


async def test_a_running_timekeeper_looks_only_at_the_shards_that_may_hold_a_due_game(store, monkeypatch):
    looked: list[int] = []
    claim = store.deadlines.claim

    async def claim_seen(shard: int, now: int, until: int) -> Claimed:
        looked.append(shard)
        return await claim(shard, now, until)

    async def expire(game_id: str, now: int) -> int | None:  # as Games.expire: its next deadline
        return now + 350

    monkeypatch.setattr(store.deadlines, "claim", claim_seen)
    keeper = Timekeeper(store.deadlines, expire, soonest_ms=1_000)
    ahead = 1_000 - LOOK_SLACK_MS  # no new deadline can come due sooner after a look
    at = 10_000
    await store.deadlines.set("g", at + 300)
    shard = shard_of("g")

    async def looks(now: int) -> list[int]:
        looked.clear()
        await keeper.claim(now, looking_ahead=True)
        return sorted(looked)

    everyone = list(range(SHARDS))
    others = [s for s in everyone if s != shard]
    assert await looks(at) == everyone  # never looked at
    assert await looks(at + 100) == []  # nothing can be due yet
    assert await looks(at + 300) == [shard]  # its soonest entry: claimed
    assert await looks(at + ahead - 1) == []
    assert await looks(at + ahead) == others  # as long as a new deadline takes, less the slack
    assert await looks(at + 200) == everyone  # the clock stepped back
    # A game the keeper fires tells it its next deadline, here sooner than the look ahead.
    fired = at + 300 + CLAIM_MS + 1  # the claim ran out
    assert await keeper.tick(fired) == 1  # (a tick looks at every shard)
    assert await looks(fired + 349) == []
    assert await looks(fired + 350) == [shard]
