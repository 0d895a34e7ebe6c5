"""Faults, as tests: the store killed, a worker killed, the whole service killed. No move
that got a 201 is ever lost or doubled, outages answer 503 fast, and play goes on."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time

import httpx
import pytest

from events.server import EmbeddedServer
from events.store import EventStore
from tests.reliability.service import Player, serve
from tests.waiting import gone, until

pytestmark = pytest.mark.faults

GAMES = 6
STORE_TIMEOUT = 1.0  # POISON_STORE_TIMEOUT of the service (tests/reliability/service.py)


def start_games(base: str, count: int) -> list[Player]:
    players = []
    with httpx.Client(base_url=base, timeout=5) as http:
        for seed in range(count):
            player = Player(base)
            player.create(http, seed)
            players.append(player)
    return players


def play_all(players: list[Player], moves: int, seconds: float) -> list[threading.Thread]:
    deadline = time.monotonic() + seconds
    threads = [threading.Thread(target=p.play, args=(moves,), kwargs={"deadline": deadline}) for p in players]
    for thread in threads:
        thread.start()
    return threads


def wait_for_moves(players: list[Player], count: int) -> None:
    """Until the games are under way: `count` moves acknowledged in all."""
    deadline = time.monotonic() + 30
    while sum(len(p.acknowledged) for p in players) < count and time.monotonic() < deadline:
        time.sleep(0.01)


def logs(url: str, players: list[Player]) -> dict[str, list]:
    async def read() -> dict[str, list]:
        store = EventStore.from_url(url, timeout=5)
        try:
            return {p.game_id: await store.read(p.game_id) for p in players}
        finally:
            await store.close()

    return asyncio.run(read())


def assert_nothing_lost_or_doubled(url: str, players: list[Player]) -> None:
    from events.replay import rebuild

    for player in players:
        log = logs(url, [player])[player.game_id]
        assert [version for version, _ in log] == list(range(1, len(log) + 1)), "no gap, no duplicate version"
        rebuild(log)  # the whole log is still a valid game
        by_version = {version: event for version, event in log}
        for acknowledged in player.acknowledged:
            stored = by_version.get(acknowledged["version"])
            assert stored is not None, f"an acknowledged move is missing: {acknowledged}"
            assert (stored.seat, stored.card, stored.cauldron) == tuple(
                acknowledged["data"][k] for k in ("seat", "card", "cauldron")
            )
        # Each game has one player, who retries a move with its key until it is answered:
        # every card in the log is a move it saw acknowledged, once.
        cards = [event for _, event in log if type(event).__name__ == "CardPlayed"]
        assert len(cards) == len(player.acknowledged)


@pytest.fixture
def store_and_service(tmp_path):
    """A store of the test's own (it may kill it) and `poison serve` with two workers on it."""
    store = EmbeddedServer(tmp_path / "store")
    url = store.start()
    served = serve(workers=2, redis_url=url)
    yield store, url, served
    served.stop()
    store.stop()


def test_killing_the_store_loses_no_acknowledged_move_and_the_service_recovers_by_itself(store_and_service):
    store, url, served = store_and_service
    players = start_games(served.base, GAMES)
    threads = play_all(players, 150, 90)
    wait_for_moves(players, 60)
    store.kill()  # kill -9 in the middle of the games
    at_kill = sum(len(p.acknowledged) for p in players)
    # The outage, as the players see it: a 503 for every one of them.
    until(lambda: all(p.outages for p in players), what="every player answered 503 during the outage")
    health = httpx.get(f"{served.base}/health", timeout=5)
    assert health.status_code == 503
    assert health.json()["code"] == "store_unavailable"
    store.start()  # same port, same data: the service is not restarted
    for thread in threads:
        thread.join()
    assert 0 < at_kill < GAMES * 150, "the store died in the middle of the games"
    assert all(len(p.acknowledged) == 150 for p in players), [len(p.acknowledged) for p in players]
    outages = [seconds for p in players for seconds in p.outages]
    assert outages, "requests were made during the outage"
    # Each within the store's timeout, and slack for a busy machine; a request that hung
    # would have ended at the players' own 5 s timeout, as an error, not a 503.
    assert max(outages) < STORE_TIMEOUT + 3.0, "a request during the outage hung"
    assert_nothing_lost_or_doubled(url, players)


def test_killing_one_of_two_workers_loses_nothing_and_the_game_goes_on(store_and_service):
    _, url, served = store_and_service
    players = start_games(served.base, GAMES)
    threads = play_all(players, 150, 90)
    wait_for_moves(players, 60)
    victim = served.workers()[0]
    os.kill(victim, signal.SIGKILL)
    at_kill = sum(len(p.acknowledged) for p in players)
    for thread in threads:
        thread.join()
    assert 0 < at_kill < GAMES * 150, "the worker died in the middle of the games"
    assert victim not in served.workers()
    assert all(len(p.acknowledged) == 150 for p in players)
    assert_nothing_lost_or_doubled(url, players)
    assert httpx.get(f"{served.base}/health", timeout=5).status_code == 200


def test_a_service_killed_whole_continues_every_game_after_a_restart(tmp_path):
    data = tmp_path / "data"
    served = serve(workers=2, data_dir=data)
    port = int(served.base.rsplit(":", 1)[1])
    players = start_games(served.base, 3)
    for thread in play_all(players, 10, 30):
        thread.join()
    before = {p.game_id: httpx.get(f"{served.base}/v1/games/{p.game_id}").json() for p in players}
    workers, store = served.workers(), served.store()
    assert store is not None
    for pid in workers:
        os.kill(pid, signal.SIGKILL)
    served.process.kill()  # kill -9: the embedded store stops with it
    served.process.wait()
    served.log.close()
    # Its port and its data directory are free once every process of it is gone.
    until(lambda: all(gone(pid) for pid in [*workers, store]), what="the killed service's processes gone")
    again = serve(workers=2, data_dir=data, port=port)
    try:
        for player in players:
            assert httpx.get(f"{again.base}/v1/games/{player.game_id}").json() == before[player.game_id]
        for thread in play_all(players, 10, 30):
            thread.join()
        for player in players:
            assert len(player.acknowledged) == 20
            game = httpx.get(f"{again.base}/v1/games/{player.game_id}").json()
            assert game["version"] > before[player.game_id]["version"]
    finally:
        again.stop()
