"""The search bot over the store (events.games): its searches run in the bounded pool of
`Searches`, a move judged there that loses a race is judged again on the new log, and the
cached game a search starts from is never changed."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from core.errors import MoveConflict
from events.codec import Player
from events.games import Games, Searches
from events.replay import rebuild

pytestmark = pytest.mark.anyio

#: Two people and a search bot: a move of either person lets the bot search.
TABLE = (Player(seat=0, name="ana"), Player(seat=1, name="bob", bot="mcts", playouts=100), Player(seat=2, name="cy"))


async def test_searches_never_run_more_threads_at_once_than_they_are_given() -> None:
    running, most = 0, 0
    changed = threading.Condition()
    deadline = time.monotonic() + 10

    def work(seconds: float) -> str:
        nonlocal running, most
        with changed:
            running += 1
            most = max(most, running)
            changed.notify_all()
            # The first ones wait for a second to run beside them (however late a busy machine
            # starts it): two at once is then seen for sure, not by luck.
            changed.wait_for(lambda: most >= 2, timeout=max(deadline - time.monotonic(), 0))
        time.sleep(seconds)  # and each stays a while, so that a third, were one let in, is seen too
        with changed:
            running -= 1
        return threading.current_thread().name

    searches = Searches(2)
    try:
        names = await asyncio.gather(*(searches.run(work, 0.05) for _ in range(5)))
    finally:
        searches.close()
    assert most == 2
    assert all(name.startswith("search") for name in names)
    assert threading.current_thread().name not in names


async def test_a_game_without_the_search_bot_is_judged_on_the_loop_itself() -> None:
    searches = Searches(2)
    try:
        assert await searches.judge(False, threading.current_thread) is threading.current_thread()
        assert await searches.judge(True, threading.current_thread) is not threading.current_thread()
    finally:
        searches.close()


async def test_a_searched_move_that_loses_its_race_is_judged_again_on_the_new_log(store) -> None:
    one, two = Games(store), Games(store)  # as if in two processes
    _, created = await one.create("s", TABLE, seed=6, token_hashes={}, created_ms=1, ruleset="pot", options={})
    await two.load("s")
    seat = created.game.turn
    assert seat in (0, 2)  # the bot, had it been first, has moved
    move = tuple(created.game.legal_moves()[0])
    results = await asyncio.gather(one.play("s", seat, *move), two.play("s", seat, *move), return_exceptions=True)
    refused = [r for r in results if isinstance(r, BaseException)]
    assert len(refused) == 1
    assert isinstance(refused[0], MoveConflict)
    assert refused[0].code == "not_your_turn"
    log = await store.read("s")
    assert rebuild(log).version == len(log)  # every mcts move searched again and found as logged


async def test_the_cached_game_a_search_starts_from_is_left_as_it_was(store) -> None:
    games = Games(store)
    _, created = await games.create("c", TABLE, seed=9, token_hashes={}, created_ms=1, ruleset="pot", options={})
    before = (created.version, created.game.view(None))
    _, after = await games.play("c", created.game.turn, *created.game.legal_moves()[0])
    assert after.version > created.version
    assert (created.version, created.game.view(None)) == before
