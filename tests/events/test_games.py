"""Games over the store: create, move, load; caches that agree across processes."""

from __future__ import annotations

import pytest

from core import IllegalMove
from events.games import Games
from events.poison.schema import CODEC, CardPlayed, GameCreated, Player, RoundStarted
from events.replay import InvalidLog
from events.store import Idempotency, UnknownGame, VersionConflict
from tests.events.logs import players

pytestmark = pytest.mark.anyio


async def new(games, game_id="g", n=4, seed=41, rounds=2):
    return await games.create(game_id, players(n), options={"rounds": rounds}, seed=seed, token_hashes={}, created_ms=1)


def first_move(logged):
    card, cauldron = logged.game.legal_moves()[0]
    return logged.game.turn, card, cauldron


async def test_a_new_game_is_its_creation_and_first_deal(store):
    events, logged = await new(Games(store))
    assert [type(e) for e in events] == [GameCreated, RoundStarted]
    assert logged.version == 2
    assert [e for _, e in await store.read("g")] == events


async def test_a_move_appends_its_events_and_every_loader_sees_it(store):
    one, two = Games(store), Games(store)  # as if in two processes
    await new(one)
    await two.load("g")  # two caches version 2
    appended, after = await one.play("g", *first_move(await one.load("g")))
    assert (appended.first_version, appended.version) == (3, after.version)
    seen = await two.load("g")
    assert seen.version == after.version
    assert seen.game.view() == after.game.view()


async def test_a_refused_move_appends_nothing(store):
    games = Games(store)
    _, logged = await new(games)
    seat, card, cauldron = first_move(logged)
    with pytest.raises(IllegalMove) as refused:
        await games.play("g", (seat + 1) % 4, card, cauldron)
    assert refused.value.code == "not_your_turn"
    assert await store.version("g") == 2


async def test_an_expected_version_that_is_not_current_is_a_conflict(store):
    games = Games(store)
    _, logged = await new(games)
    with pytest.raises(VersionConflict) as conflict:
        await games.play("g", *first_move(logged), expected_version=1)
    assert conflict.value.current_version == 2
    appended, _ = await games.play("g", *first_move(logged), expected_version=2)
    assert appended.version == 3


async def test_an_idempotent_retry_of_a_move_returns_the_first_result(store):
    games = Games(store)
    _, logged = await new(games)
    key = Idempotency("k1", "move-a")

    def answer(after, first_version, caused):
        return f"{after.version} {first_version} {len(caused)}".encode()

    first, _ = await games.play("g", *first_move(logged), idempotency=key, answer=answer)
    again, now = await Games(store).play("g", *first_move(logged), idempotency=key, answer=answer)
    assert first.result == b"3 3 1"
    assert (again.version, again.replayed, again.result) == (first.version, True, b"3 3 1")
    assert now.version == first.version


async def test_bots_answer_a_move_in_the_same_append_and_a_bots_only_game_ends_at_creation(store):
    games = Games(store)
    seats = (
        players(4)[0],
        Player(seat=1, name="b1", bot="greedy"),
        Player(seat=2, name="b2", bot="random"),
        players(4)[3],
    )
    events, logged = await games.create("bots", seats, options={"rounds": 1}, seed=3, token_hashes={}, created_ms=1)
    # Seat 1 (left of the dealer) and seat 2 are bots: they play at once, in the first append.
    assert [e.seat for e in events if isinstance(e, CardPlayed)] == [1, 2]
    assert logged.game.turn == 3
    _, logged = await games.play("bots", *first_move(logged))  # seat 3, then seat 0's turn
    appended, logged = await games.play("bots", *first_move(logged))  # seat 0, and both bots answer
    caused = [e for _, e in await store.read("bots", appended.first_version - 1)]
    assert [e.seat for e in caused if isinstance(e, CardPlayed)] == [0, 1, 2]
    assert logged.game.turn == 3
    robots = tuple(Player(seat=s, name=f"r{s}", bot="greedy") for s in range(3))
    events, finished = await games.create(
        "robots", robots, options={"rounds": 2}, seed=4, token_hashes={}, created_ms=2
    )
    assert finished.finished
    assert len(events) == finished.version == await store.version("robots")


async def test_a_game_can_be_read_as_it_was_after_any_event(store):
    games = Games(store)
    _, logged = await new(games)
    for _ in range(5):
        _, logged = await games.play("g", *first_move(logged))
    back = await games.load("g", version=4)
    assert back.version == 4
    assert sum(back.game.hand_sizes) == 50 - 2
    assert (await games.load("g")).version == logged.version


async def test_an_unknown_game_is_unknown(store):
    with pytest.raises(UnknownGame):
        await Games(store).load("missing")


async def test_a_log_tampered_in_the_store_is_refused_on_load_naming_the_event(store):
    games = Games(store)
    _, logged = await new(games, "t")
    seat, card, cauldron = first_move(logged)
    wrong = CardPlayed(round=1, seat=(seat + 1) % 4, card=card, cauldron=cauldron, total=1)
    await store.append("t", [wrong], 2, codec=CODEC)
    with pytest.raises(InvalidLog) as refused:
        await Games(store).load("t")
    assert refused.value.at_version == 3
    with pytest.raises(InvalidLog):
        await games.load("t")  # a warm cache checks new events too


async def test_a_whole_game_played_through_the_store_finishes(store):
    games = Games(store)
    _, logged = await new(games, "whole", n=3, rounds=3)
    while not logged.finished:
        _, logged = await games.play("whole", *first_move(logged))
    rebuilt = await Games(store).load("whole")
    assert rebuilt.finished
    assert rebuilt.game.winners == logged.game.winners
    assert len(rebuilt.game.results()) == 3


async def test_a_cache_that_is_behind_still_records_the_right_move(store):
    one, two = Games(store), Games(store)  # as if two workers
    _, logged = await new(one)
    await two.load("g")  # the second caches version 2
    _, after = await one.play("g", *first_move(logged))
    appended, now = await two.play("g", *first_move(after))  # judged on its stale cache first
    assert appended.first_version == after.version + 1
    assert now.version == await store.version("g")
    with pytest.raises(IllegalMove):  # and a move that is illegal on the log is refused
        await one.play("g", *first_move(after))
