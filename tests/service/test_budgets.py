"""Search and rebuilds a client cannot turn against others (issue 27, items 6 and 7): each
client address's budgets of mcts playouts and of events rebuilt, held across workers (two
apps on one store are two workers), replays billed against them, 429 search_budget and
rebuild_budget with Retry-After; work whose client hung up while it waited for a thread
dropped before it starts; long rebuilds in their pool, off the event loop; time-travel
reads kept.

Requests that must be in flight together are driven through the app's own ASGI interface
on the test client's event loop (its portal), each with a client that can hang up when
told; nothing here waits for a fixed time: a worker pool is filled with work that waits
for the test's say, and the tests wait for the pool's own count of waiting work."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from events.codec import Player, to_public
from events.games import Games
from events.play import create_game, play_move
from events.pool import Pool
from service.app import create_app
from service.settings import Settings
from tests.service.api import auth, problem
from tests.waiting import until

#: A pot game whose mcts bot (seat 0) plays first: creating it searches once.
SEARCHING = {"ruleset": "pot", "players": [{"name": "bot", "bot": "mcts", "playouts": 1000}, {"name": "ann"}]}
#: A pot game whose person plays first, answered by its mcts bot.
ANSWERED = {"ruleset": "pot", "seed": 3, "players": [{"name": "ann"}, {"name": "bot", "bot": "mcts", "playouts": 1000}]}


def app_with(settings: Settings, **changed: Any) -> Litestar:
    return create_app(msgspec.structs.replace(settings, **changed))


def over_budget(response: Any, code: str) -> dict[str, Any]:
    """A 429 of a budget: its code, `retry_after` as the Retry-After header says it."""
    body = problem(response, 429, code)
    assert int(response.headers["retry-after"]) >= 1
    assert body["retry_after"] == int(response.headers["retry-after"])
    return body


def games_of(client: TestClient[Any]) -> Games:
    return client.app.state.games  # type: ignore[no-any-return]


def listed(client: TestClient[Any]) -> list[dict[str, Any]]:
    return client.get("/v1/games").json()["games"]  # type: ignore[no-any-return]


class Caller:
    """One request through the app's ASGI interface, on the app's own loop, in flight until
    it is answered; its client sends the whole request, then hangs up when told."""

    def __init__(
        self, client: TestClient[Any], method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> None:
        self.portal = client.blocking_portal
        self.left = self.portal.call(asyncio.Event)
        self.messages: list[dict[str, Any]] = []
        self._body: bytes | None = body
        path, _, query = path.partition("?")
        sent = {"host": "testserver.local", "content-length": str(len(body)), **(headers or {})}
        if body:
            sent.setdefault("content-type", "application/json")
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": [(name.lower().encode(), value.encode()) for name, value in sent.items()],
            "client": ("testclient", 50000),
            "server": ("testserver.local", 80),
            "extensions": {},
        }
        self.answered: Future[None] = self.portal.start_task_soon(client.app, scope, self._receive, self._send)

    async def _receive(self) -> dict[str, Any]:
        if self._body is not None:
            body, self._body = self._body, None
            return {"type": "http.request", "body": body, "more_body": False}
        await self.left.wait()
        return {"type": "http.disconnect"}

    async def _send(self, message: dict[str, Any]) -> None:
        self.messages.append(message)

    def hang_up(self) -> None:
        self.portal.call(self.left.set)

    @property
    def status(self) -> int:
        self.answered.result(timeout=30)
        return int(self.messages[0]["status"])

    def json(self) -> Any:
        self.answered.result(timeout=30)
        return msgspec.json.decode(b"".join(m.get("body", b"") for m in self.messages[1:]))


class Held:
    """A pool's threads, all taken by work that waits for the test to let it go."""

    def __init__(self, client: TestClient[Any], pool: Pool) -> None:
        self.portal = client.blocking_portal
        self.pool = pool
        self._release = threading.Event()
        started = threading.Semaphore(0)

        def hold() -> None:
            started.release()
            self._release.wait(60)

        self._holders = [self.portal.start_task_soon(pool.run, hold) for _ in range(pool.threads)]
        for _ in range(pool.threads):
            assert started.acquire(timeout=30), "the pool's threads did not start"

    def release(self) -> None:
        self._release.set()
        for holder in self._holders:
            holder.result(timeout=30)


@pytest.fixture
def two_workers(settings: Settings) -> Iterator[tuple[TestClient[Any], TestClient[Any]]]:
    """Two apps on one store and namespace, as two worker processes are; budgets of 1,500
    playouts and 30 events that barely refill."""
    budgets = {"search_budget": 1, "search_burst": 1500, "rebuild_rate": 0.001, "rebuild_burst": 30}
    with TestClient(app_with(settings, **budgets)) as one, TestClient(app_with(settings, **budgets)) as other:
        yield one, other


# ---- the search budget ---------------------------------------------------------------------


def test_the_search_budget_is_one_per_client_across_workers_and_a_refused_create_makes_nothing(two_workers):
    one, other = two_workers
    assert one.post("/v1/games", json=SEARCHING).status_code == 201  # 1,000 of the 1,500 playouts
    body = over_budget(other.post("/v1/games", json=SEARCHING), "search_budget")
    assert "search budget" in body["detail"]
    assert body["retry_after"] > 60  # a playout a minute: the 500 missing take hours
    assert len(listed(one)) == 1  # the refused game was never written


def test_a_game_whose_person_plays_first_is_created_without_spending_the_search_budget(two_workers):
    one, other = two_workers
    for _ in range(3):  # its bot searches only once the person has moved
        assert one.post("/v1/games", json=ANSWERED).status_code == 201
    assert other.post("/v1/games", json=SEARCHING).status_code == 201


def test_a_move_its_bot_would_answer_is_refused_whole_once_the_budget_cannot_pay(two_workers):
    one, other = two_workers
    created = one.post("/v1/games", json=ANSWERED).json()
    game_id, token = created["game_id"], created["players"][0]["token"]

    def move(client: TestClient[Any]) -> Any:
        seen = client.get(f"/v1/games/{game_id}", headers=auth(token)).json()
        return client.post(f"/v1/games/{game_id}/moves", json=seen["you"]["legal_moves"][0], headers=auth(token))

    answered = move(one)
    assert answered.status_code == 201, answered.text
    assert answered.json()["events"][-1]["data"]["seat"] == 1  # the bot's answer, searched in the same step
    version = answered.json()["game"]["version"]
    over_budget(move(other), "search_budget")  # 1,000 more would be 2,000 of 1,500
    assert one.get(f"/v1/games/{game_id}").json()["version"] == version  # neither the move nor a reply


def test_replays_are_billed_to_the_search_budget_of_their_client(two_workers):
    one, other = two_workers
    table = (Player(seat=0, name="ana"), Player(seat=1, name="bob", bot="mcts", playouts=600))
    log, created = create_game("pot", "g", table, seed=3, options={})
    answered, _ = play_move(created, 0, tuple(created.game.legal_moves()[0]))  # and the bot's answer
    events = {"events": [msgspec.to_builtins(to_public(v, e)) for v, e in enumerate(log + answered, start=1)]}
    replayed = one.post("/v1/replays", json=events)  # checking the answer searches 600 playouts again
    assert replayed.status_code == 200, replayed.text
    over_budget(other.post("/v1/games", json=SEARCHING), "search_budget")  # 1,000 more: 1,600 of 1,500
    assert listed(one) == []


# ---- the rebuild budget and time travel ------------------------------------------------------


def _finished(client: TestClient[Any], players: int = 3, rounds: int = 1) -> tuple[str, int]:
    """A finished game of Poison, played by greedy bots alone when it was created: its id and version."""
    body = {"players": [{"name": f"p{s}", "bot": "greedy"} for s in range(players)], "rounds": rounds, "seed": 4}
    created = client.post("/v1/games", json=body).json()
    assert created["game"]["status"] == "finished"
    return created["game_id"], created["game"]["version"]


def test_a_time_travel_read_is_billed_once_per_worker_and_answered_again_byte_for_byte(two_workers):
    one, other = two_workers
    game_id, version = _finished(one)
    assert version >= 20
    first = one.get(f"/v1/games/{game_id}?version=20")  # 20 of the 30 events' budget
    assert first.status_code == 200, first.text
    again = one.get(f"/v1/games/{game_id}?version=20")  # kept: billed nothing
    assert (again.status_code, again.content) == (200, first.content)
    # Another worker has not rebuilt it: it bills the same client's budget, which cannot pay.
    body = over_budget(other.get(f"/v1/games/{game_id}?version=20"), "rebuild_budget")
    assert "rebuild budget" in body["detail"]
    over_budget(one.get(f"/v1/games/{game_id}?version=19"), "rebuild_budget")


def test_replays_are_billed_to_the_rebuild_budget_of_their_client(two_workers):
    one, other = two_workers
    game_id, _ = _finished(one)
    assert one.get(f"/v1/games/{game_id}?version=20").status_code == 200  # 20 of 30
    players = tuple(Player(seat=s, name=f"p{s}", bot="greedy") for s in range(3))
    log, _ = create_game("poison", "g", players, seed=1, options={"rounds": 1, "cauldrons": "dynamic"})
    events = {"events": [msgspec.to_builtins(to_public(v, e)) for v, e in enumerate(log, start=1)]}
    assert len(log) > 10
    over_budget(other.post("/v1/replays", json=events), "rebuild_budget")
    assert one.post("/v1/replays?version=10", json=events).status_code == 200  # 30 of 30


# ---- work dropped when its client hangs up ---------------------------------------------------------


@pytest.fixture
def one_thread(settings: Settings) -> Iterator[TestClient[Any]]:
    """An app with one search thread and one rebuild thread, and budgets of 1,000 playouts."""
    with TestClient(app_with(settings, search_threads=1, search_burst=1000, search_budget=1)) as client:
        yield client


def test_a_create_whose_client_hangs_up_while_its_search_waits_is_dropped_and_costs_nothing(one_thread):
    client = one_thread
    games = games_of(client)
    held = Held(client, games.searches)
    try:
        caller = Caller(client, "POST", "/v1/games", msgspec.json.encode(SEARCHING))
        until(lambda: games.searches.waiting == 1, what="the create waits for the search thread")
        caller.hang_up()
        # Answered (into the void) while the only search thread is still held: it never ran.
        assert caller.status == 499
        assert caller.json()["code"] == "client_gone"
    finally:
        held.release()
    assert listed(client) == []
    # The dropped search cost nothing: the whole budget still pays for one.
    assert client.post("/v1/games", json=SEARCHING).status_code == 201


def test_a_move_whose_client_hangs_up_while_its_bot_waits_to_search_appends_nothing(one_thread):
    client = one_thread
    created = client.post("/v1/games", json=ANSWERED).json()
    game_id, token = created["game_id"], created["players"][0]["token"]
    seen = client.get(f"/v1/games/{game_id}", headers=auth(token)).json()
    games = games_of(client)
    held = Held(client, games.searches)
    try:
        body = msgspec.json.encode(seen["you"]["legal_moves"][0])
        caller = Caller(client, "POST", f"/v1/games/{game_id}/moves", body, auth(token))
        until(lambda: games.searches.waiting == 1, what="the move waits for the search thread")
        caller.hang_up()
        assert caller.status == 499
    finally:
        held.release()
    assert client.get(f"/v1/games/{game_id}").json()["version"] == seen["version"]
    answered = client.post(f"/v1/games/{game_id}/moves", json=seen["you"]["legal_moves"][0], headers=auth(token))
    assert answered.status_code == 201, answered.text  # played now, and its bot's search paid for


def test_a_join_whose_client_hangs_up_while_the_search_it_starts_waits_leaves_the_seat_open(one_thread):
    client = one_thread
    lobby = {"ruleset": "pot", "players": [{"name": "bot", "bot": "mcts", "playouts": 1000}, {"open": True}]}
    game_id = client.post("/v1/games", json=lobby).json()["game_id"]  # waiting: nobody searched
    games = games_of(client)
    held = Held(client, games.searches)
    try:
        caller = Caller(client, "POST", f"/v1/games/{game_id}/seats/1", msgspec.json.encode({"name": "ann"}))
        until(lambda: games.searches.waiting == 1, what="the join waits for the search thread")
        caller.hang_up()
        assert caller.status == 499
    finally:
        held.release()
    game = client.get(f"/v1/games/{game_id}").json()
    assert game["status"] == "waiting"
    assert game["players"][1].get("open") is True
    joined = client.post(f"/v1/games/{game_id}/seats/1", json={"name": "ann"})
    assert joined.status_code == 201, joined.text  # and its bot's search paid for


def _searched_log() -> bytes:
    """A pot game's log whose mcts seat answered once (600 playouts): checking it searches."""
    table = (Player(seat=0, name="ana"), Player(seat=1, name="bob", bot="mcts", playouts=600))
    log, created = create_game("pot", "g", table, seed=3, options={})
    answered, _ = play_move(created, 0, tuple(created.game.legal_moves()[0]))
    return msgspec.json.encode({"events": [to_public(v, e) for v, e in enumerate(log + answered, start=1)]})


def test_a_replay_whose_client_hangs_up_while_its_search_waits_is_dropped_and_costs_nothing(one_thread):
    # Issue 27's replays of an mcts log whose clients hung up still searched, one after another.
    client = one_thread
    games = games_of(client)
    body = _searched_log()
    held = Held(client, games.searches)
    try:
        caller = Caller(client, "POST", "/v1/replays", body)
        until(lambda: games.searches.waiting == 1, what="the replay waits for the search thread")
        caller.hang_up()
        assert caller.status == 499  # answered while the only search thread is still held: it never ran
        assert caller.json()["code"] == "client_gone"
    finally:
        held.release()
    # It was not billed: the budget (1,000 playouts) still pays for a replay's 600.
    replayed = client.post("/v1/replays", content=body, headers={"content-type": "application/json"})
    assert replayed.status_code == 200, replayed.text


def test_a_search_that_got_its_thread_is_appended_though_its_client_hangs_up_later(one_thread):
    client = one_thread
    caller = Caller(client, "POST", "/v1/games", msgspec.json.encode(SEARCHING))
    assert caller.status == 201  # nothing to wait for: it ran at once
    caller.hang_up()
    assert len(listed(client)) == 1


# ---- rebuilds off the event loop ------------------------------------------------------------------


def _long_log() -> bytes:
    """The longest Poison game's log (20 rounds of six players, about 150 KB)."""
    players = tuple(Player(seat=s, name=f"p{s}", bot="random") for s in range(6))
    log, _ = create_game("poison", "g", players, seed=1, options={"rounds": 20, "cauldrons": "dynamic"})
    return msgspec.json.encode({"events": [to_public(v, e) for v, e in enumerate(log, start=1)]})


def test_the_loop_answers_health_while_32_long_replays_wait_for_the_rebuild_pool(settings):
    with TestClient(app_with(settings, rebuild_burst=1_000_000)) as client:
        games = games_of(client)
        body = _long_log()
        held = Held(client, games.rebuilds)
        try:
            replays = [Caller(client, "POST", "/v1/replays", body) for _ in range(32)]
            until(lambda: games.rebuilds.waiting == 32, what="the 32 replays wait for the rebuild thread")
            assert client.get("/health/live").status_code == 200
            assert not any(replay.answered.done() for replay in replays)
        finally:
            held.release()
        assert [replay.status for replay in replays] == [200] * 32
        assert replays[0].json()["game"]["status"] == "finished"


def test_a_long_time_travel_read_is_rebuilt_in_the_rebuild_pool_and_dropped_if_its_client_goes(settings):
    with TestClient(app_with(settings, rebuild_burst=1_000_000)) as client:
        game_id, version = _finished(client, players=6, rounds=20)
        games = games_of(client)
        assert version > 1000
        held = Held(client, games.rebuilds)
        try:
            gone = Caller(client, "GET", f"/v1/games/{game_id}?version={version - 1}")
            kept = Caller(client, "GET", f"/v1/games/{game_id}?version={version}")
            until(lambda: games.rebuilds.waiting == 2, what="both reads wait for the rebuild thread")
            assert client.get("/health/live").status_code == 200
            gone.hang_up()
            assert gone.status == 499
        finally:
            held.release()
        assert kept.status == 200
        assert kept.json() == client.get(f"/v1/games/{game_id}").json()
