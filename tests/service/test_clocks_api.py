"""Clocks, away seats, resigning and coming back through the real app and the real store,
both rulesets: a new game's clock and its bounds, the deadline every view shows (and where
it is null), a deadline fired by the app's own timekeeper exactly once, a move racing its
deadline, resign and return with their refusals and idempotent retries, the end of a game
nobody is left to play (its stream, export, replay and listing), the server's settings for
open seats and waiting games, and the hands of away seats kept from every public answer."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime
from typing import Any, TypeVar

import msgspec
import pytest
from litestar.testing import AsyncTestClient

from core.rulesets import RULESETS
from events.archive import Archive
from events.archiving import Archiver
from events.recorder import RedisRecorder
from service.app import create_app
from service.settings import Settings
from tests.archive.test_reads import reads
from tests.service.api import auth, check_no_leak, create, http_scope, problem, view
from tests.service.conftest import SettingsOf
from tests.service.listened import Listened
from tests.waiting import until_async

pytestmark = pytest.mark.anyio

#: Each ruleset's shortest game, as a create body's fields.
OPTIONS = [{"rounds": 1}, {"ruleset": "pot"}]
EVERY = pytest.mark.parametrize("options", OPTIONS, ids=["poison", "pot"])
T = TypeVar("T")
#: Long enough that no deadline passes while a test looks at it.
HOUR = 3600


def ruleset_of(options: dict[str, Any]) -> Any:
    return RULESETS[options.get("ruleset", "poison")]


def ms(rfc3339: str) -> int:
    """A view's deadline as ms since the epoch."""
    return round(datetime.fromisoformat(rfc3339.replace("Z", "+00:00")).timestamp() * 1000)


def now_ms() -> int:
    return int(time.time() * 1000)


async def clocked(
    client: AsyncTestClient, options: dict[str, Any], seconds: int = HOUR, *, people: int = 2
) -> tuple[str, dict[int, str]]:
    """A game of `people` persons (seats 0, 1, ...) and a random bot after them, with a clock
    of `seconds` per move: its id and the persons' tokens."""
    created, tokens = await create(
        client, people + 1, bots={people: "random"}, clock={"seconds_per_move": seconds}, **options
    )
    return created["game_id"], tokens


async def step(client: AsyncTestClient, game_id: str, seat: int, token: str, what: str, key: str | None = None) -> Any:
    headers = {**auth(token), **({"Idempotency-Key": key} if key else {})}
    return await client.post(f"/v1/games/{game_id}/seats/{seat}/{what}", headers=headers)


async def events_of(client: AsyncTestClient, game_id: str, token: str | None = None) -> list[dict[str, Any]]:
    response = await client.get(f"/v1/games/{game_id}/events?limit=5000", headers=auth(token) if token else {})
    assert response.status_code == 200, response.text
    return response.json()["events"]


async def move(client: AsyncTestClient, game_id: str, token: str) -> Any:
    mine = await view(client, game_id, token)
    return await client.post(f"/v1/games/{game_id}/moves", json=mine["you"]["legal_moves"][0], headers=auth(token))


def games_of(client: AsyncTestClient) -> Any:
    return client.app.state.games


async def in_app(client: AsyncTestClient, call: Callable[..., Awaitable[T]], *args: Any) -> T:
    """`call(*args)` on the app's own event loop (the test client's portal, where its store
    was opened), awaited from the test's."""
    return await asyncio.wrap_future(client.blocking_portal.start_task_soon(call, *args))


async def expire(client: AsyncTestClient, game_id: str, now: int) -> int | None:
    """The app's Games.expire of the game, judged at `now` (ms), as its timekeeper calls it."""
    return await in_app(client, games_of(client).expire, game_id, now)


async def posted(app: Any, path: str, body: Any, headers: dict[str, str]) -> tuple[int, bytes]:
    """A POST of `body` (JSON) to the app as bare ASGI, on the app's loop: its status and body."""
    content = msgspec.json.encode(body)
    scope = http_scope(
        "POST", path, {**headers, "content-type": "application/json", "content-length": str(len(content))}
    )
    answered = asyncio.Event()
    asked = False
    status, parts = 0, []

    async def receive() -> dict[str, Any]:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": content, "more_body": False}
        await answered.wait()  # the client stays until it has its answer
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            parts.append(message.get("body", b""))
            if not message.get("more_body", False):
                answered.set()

    await app(scope, receive, send)
    return status, b"".join(parts)


# ---- a new game's clock ---------------------------------------------------------------------


@EVERY
async def test_a_game_created_with_a_clock_shows_the_deadline_of_the_seat_to_move(
    client: AsyncTestClient, options: dict[str, Any]
) -> None:
    before = now_ms()
    game_id, tokens = await clocked(client, options, 60)
    after = now_ms()
    seen = await view(client, game_id)
    assert seen["clock"]["seconds_per_move"] == 60
    deadline = ms(seen["clock"]["deadline"])
    assert before + 60_000 - 1 <= deadline <= after + 60_000 + 1  # from the append that gave the turn
    assert seen["clock"]["deadline"].endswith("Z")
    assert [p["away"] for p in seen["players"]] == [False, False, False]
    assert [p["resigned"] for p in seen["players"]] == [False, False, False]
    assert not [p for p in seen["players"] if "away_bot" in p]  # named only on an away seat
    # A move gives the next person its own seconds, from that move on.
    mover = seen["turn"]
    moved_at = now_ms()
    assert (await move(client, game_id, tokens[mover])).status_code == 201
    again = await view(client, game_id)
    assert ms(again["clock"]["deadline"]) >= moved_at + 60_000 - 1
    untimed, _ = await create(client, 3, **options)
    assert untimed["game"]["clock"] is None


@EVERY
@pytest.mark.parametrize("seconds", [0, 86_401, "60", 1.5, None, -1], ids=str)
async def test_a_clock_out_of_its_bounds_is_refused_naming_its_field(
    client: AsyncTestClient, options: dict[str, Any], seconds: Any
) -> None:
    body = {"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "clock": {"seconds_per_move": seconds}, **options}
    refused = problem(await client.post("/v1/games", json=body), 400, "invalid_request")
    assert "seconds_per_move" in refused["detail"]
    for wrong in ({}, {"seconds": 60}, 60, "60"):
        body["clock"] = wrong
        assert "clock" in problem(await client.post("/v1/games", json=body), 400, "invalid_request")["detail"]
    body["clock"] = {"seconds_per_move": 86_400}
    assert (await client.post("/v1/games", json=body)).status_code == 201
    body["clock"] = {"seconds_per_move": 1.0}  # a whole number written with a zero fraction
    assert (await client.post("/v1/games", json=body)).status_code == 201


@EVERY
async def test_the_deadline_is_null_in_a_past_version_a_waiting_a_finished_and_an_abandoned_game(
    client: AsyncTestClient, options: dict[str, Any]
) -> None:
    game_id, tokens = await clocked(client, options)
    now = await view(client, game_id)
    assert now["clock"]["deadline"] is not None
    for version in range(1, now["version"] + 1):
        then = (await client.get(f"/v1/games/{game_id}?version={version}")).json()
        assert then["clock"] == {"seconds_per_move": HOUR, "deadline": None}
    # Waiting.
    body = {"players": [{"name": "ann"}, {"open": True}], "clock": {"seconds_per_move": HOUR}, **options}
    if options.get("rounds"):
        body["players"].append({"name": "robo", "bot": "random"})
    waiting = (await client.post("/v1/games", json=body)).json()
    assert waiting["game"]["status"] == "waiting"
    assert waiting["game"]["clock"] == {"seconds_per_move": HOUR, "deadline": None}
    # Finished: one person and bots, played to the end.
    created, mine = await create(
        client, 3, bots={1: "random", 2: "greedy"}, clock={"seconds_per_move": HOUR}, **options
    )
    while (seen := await view(client, created["game_id"], mine[0]))["status"] == "active":
        assert seen["clock"]["deadline"] is not None
        assert (await move(client, created["game_id"], mine[0])).status_code == 201
    assert seen["status"] == "finished"
    assert seen["clock"] == {"seconds_per_move": HOUR, "deadline": None}
    # Abandoned.
    for seat in (0, 1):
        assert (await step(client, game_id, seat, tokens[seat], "resign")).status_code == 200
    ended = await view(client, game_id)
    assert ended["status"] == "abandoned"
    assert ended["clock"] == {"seconds_per_move": HOUR, "deadline": None}
    last = (await client.get(f"/v1/games/{game_id}?version={ended['version']}")).json()
    assert last["status"] == "abandoned"
    assert last["clock"]["deadline"] is None


# ---- the timekeeper -------------------------------------------------------------------------


@EVERY
async def test_a_seat_that_lets_its_clock_run_out_is_timed_out_once_by_the_apps_timekeeper(
    client: AsyncTestClient, options: dict[str, Any]
) -> None:
    # A clock of one second, and nobody moves: the timekeeper (started with the app) fires
    # each person's deadline in turn, until nobody is left and the game is abandoned.
    game_id, tokens = await clocked(client, options, 1)
    first = (await view(client, game_id))["turn"]

    async def abandoned() -> bool:
        return (await view(client, game_id))["status"] == "abandoned"

    await until_async(abandoned, what="both people timed out, one after the other")
    log = await events_of(client, game_id)
    outs = [(index, e) for index, e in enumerate(log) if e["type"] == "seat_timed_out"]
    assert sorted(e["data"]["seat"] for _, e in outs) == [0, 1]  # each seat exactly once
    assert outs[0][1]["data"] == {"seat": first, "bot": "greedy"}
    index = outs[0][0]
    after = log[index + 1]
    assert after["type"] == "card_played"  # the away bot's move, in the same step
    assert after["data"]["seat"] == first
    assert [e["type"] for e in log[outs[1][0] :]] == ["seat_timed_out", "game_abandoned"]
    assert sum(e["type"] == "game_abandoned" for e in log) == 1
    seen = await view(client, game_id, tokens[first])
    assert [p["away"] for p in seen["players"]] == [True, True, False]
    assert [p.get("away_bot") for p in seen["players"]] == ["greedy", "greedy", None]
    assert [p["resigned"] for p in seen["players"]] == [False, False, False]
    assert seen["winners"] == []
    assert len(seen["you"]["hand"]) == seen["players"][first]["hand_size"] > 0  # its token still sees its hand
    # Nothing more is ever fired for it: the index holds it no more.
    assert await in_app(client, games_of(client).deadlines.score, game_id) is None


@EVERY
async def test_a_move_racing_its_deadline_is_either_the_move_or_the_timeout_never_both(
    client: AsyncTestClient, options: dict[str, Any]
) -> None:
    # The offsets spread the race so that each side wins some (not asserted: a busy machine
    # decides which); whichever wins, the other changes nothing.
    for attempt in range(16):
        game_id, tokens = await clocked(client, options)
        seen = await view(client, game_id)
        mover = seen["turn"]
        due = ms(seen["clock"]["deadline"]) + 1  # the moment judged: the deadline has passed
        body = (await view(client, game_id, tokens[mover]))["you"]["legal_moves"][0]
        delay = (attempt % 8 - 2) * 0.001  # from the move 2 ms first to the firing 5 ms first
        status, answer = await in_app(client, race, client, game_id, body, tokens[mover], due, delay)
        log = await events_of(client, game_id)
        outs = [e for e in log if e["type"] == "seat_timed_out"]
        played = [e for e in log if e["type"] == "card_played" and e["data"]["seat"] == mover]
        if status == 201:
            assert outs == []
            assert played[0]["data"] == {**played[0]["data"], **body}
        else:
            assert status == 409, answer
            assert msgspec.json.decode(answer)["code"] == "seat_away"
            assert [e["data"]["seat"] for e in outs] == [mover]
        assert len(played) == 1  # the person's move, or its bot's: one
        # Fired again at the same moment, the game's deadline is another's (or later): no change.
        version = (await view(client, game_id))["version"]
        await expire(client, game_id, due)
        assert (await view(client, game_id))["version"] == version


async def race(
    client: AsyncTestClient, game_id: str, body: dict[str, Any], token: str, due: int, delay: float
) -> tuple[int, bytes]:
    """On the app's loop: a move and the firing of the game's deadline at `due`, at once, the
    move started `delay` s after the firing (before it, when negative); the move's status
    and body."""

    async def moving() -> tuple[int, bytes]:
        await asyncio.sleep(max(delay, 0))
        return await posted(client.app, f"/v1/games/{game_id}/moves", body, auth(token))

    async def expiring() -> int | None:
        await asyncio.sleep(max(-delay, 0))
        return await games_of(client).expire(game_id, due)

    moved, _ = await asyncio.gather(moving(), expiring())
    return moved


# ---- resign and return ----------------------------------------------------------------------


@EVERY
async def test_a_seat_resigns_its_bot_moving_at_once_and_only_once(
    client: AsyncTestClient, options: dict[str, Any]
) -> None:
    game_id, tokens = await clocked(client, options)
    mover = (await view(client, game_id))["turn"]
    resigned = await step(client, game_id, mover, tokens[mover], "resign")
    assert resigned.status_code == 200, resigned.text
    answer = resigned.json()
    assert answer["you"]["seat"] == mover
    assert answer["you"]["legal_moves"] == []
    assert answer["players"][mover]["away"] is True
    assert answer["players"][mover]["away_bot"] == "greedy"
    assert answer["players"][mover]["resigned"] is True
    assert answer["turn"] != mover
    log = await events_of(client, game_id)
    at = next(i for i, e in enumerate(log) if e["type"] == "seat_resigned")
    assert log[at]["data"] == {"seat": mover, "bot": "greedy"}
    assert log[at + 1]["type"] == "card_played"
    assert log[at + 1]["data"]["seat"] == mover
    again = problem(await step(client, game_id, mover, tokens[mover], "resign"), 409, "seat_resigned")
    assert "resigned already" in again["detail"]
    problem(await step(client, game_id, mover, tokens[mover], "return"), 409, "seat_resigned")
    other = 1 - mover
    problem(await step(client, game_id, other, tokens[other], "return"), 409, "seat_not_away")
    problem(await step(client, game_id, other, tokens[mover], "resign"), 401, "unauthorized")
    problem(await client.post(f"/v1/games/{game_id}/seats/{other}/resign"), 401, "unauthorized")
    mine = await view(client, game_id, tokens[mover])
    assert len(mine["you"]["hand"]) == mine["players"][mover]["hand_size"]


@EVERY
async def test_a_seat_whose_clock_ran_out_comes_back_and_plays_again(
    client: AsyncTestClient, options: dict[str, Any]
) -> None:
    game_id, tokens = await clocked(client, options)
    seen = await view(client, game_id)
    mover = seen["turn"]
    await expire(client, game_id, ms(seen["clock"]["deadline"]) + 1)
    away = await view(client, game_id, tokens[mover])
    assert away["players"][mover]["away"] is True
    assert away["players"][mover]["away_bot"] == "greedy"
    assert away["players"][mover]["resigned"] is False
    body = {"card": away["you"]["hand"][0], **({"cauldron": 0} if "rounds" in options else {})}
    refused = problem(
        await client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[mover])), 409, "seat_away"
    )
    assert "comes back" in refused["detail"]
    back = await step(client, game_id, mover, tokens[mover], "return")
    assert back.status_code == 200, back.text
    assert back.json()["players"][mover]["away"] is False
    assert "away_bot" not in back.json()["players"][mover]
    log = await events_of(client, game_id)
    assert log[-1] == {"version": log[-1]["version"], "type": "seat_returned", "data": {"seat": mover}}
    problem(await step(client, game_id, mover, tokens[mover], "return"), 409, "seat_not_away")
    # Its next turn is its person's again.
    other = 1 - mover
    while (now := await view(client, game_id))["turn"] != mover and now["status"] == "active":
        assert (await move(client, game_id, tokens[other])).status_code == 201
    if now["status"] == "active":
        assert now["clock"]["deadline"] is not None
        assert (await move(client, game_id, tokens[mover])).status_code == 201


@EVERY
async def test_retried_resigns_and_returns_get_the_first_answer_byte_for_byte_refusals_too(
    client: AsyncTestClient, options: dict[str, Any]
) -> None:
    game_id, tokens = await clocked(client, options)
    seen = await view(client, game_id)
    mover, other = seen["turn"], 1 - seen["turn"]
    await expire(client, game_id, ms(seen["clock"]["deadline"]) + 1)
    asks = [
        (mover, "return", "back"),  # 200
        (mover, "return", "back-again"),  # 409 seat_not_away
        (other, "resign", "gone"),  # 200: the last person left is the mover
        (other, "resign", "gone-again"),  # 409 seat_resigned
        (other, "return", "gone-back"),  # 409 seat_resigned
    ]
    statuses = []
    for seat, what, key in asks:
        first = await step(client, game_id, seat, tokens[seat], what, key)
        version = (await view(client, game_id))["version"]
        for _ in range(2):
            retried = await step(client, game_id, seat, tokens[seat], what, key)
            assert (retried.status_code, retried.content) == (first.status_code, first.content)
            assert retried.headers["content-type"] == first.headers["content-type"]
        assert (await view(client, game_id))["version"] == version  # a retry appends nothing
        statuses.append((first.status_code, first.json().get("code")))
    assert statuses == [
        (200, None),
        (409, "seat_not_away"),
        (200, None),
        (409, "seat_resigned"),
        (409, "seat_resigned"),
    ]
    # The same key for the other step is another request.
    problem(await step(client, game_id, mover, tokens[mover], "resign", "back"), 422, "idempotency_key_reused")


@EVERY
async def test_a_resign_or_return_of_another_seat_leaves_the_seat_to_move_its_deadline(
    client: AsyncTestClient, options: dict[str, Any]
) -> None:
    game_id, tokens = await clocked(client, options, people=3)
    seen = await view(client, game_id)
    first = seen["turn"]
    await expire(client, game_id, ms(seen["clock"]["deadline"]) + 1)  # `first` is away
    now = await view(client, game_id)
    to_move, deadline = now["turn"], now["clock"]["deadline"]
    bystander = next(s for s in range(3) if s not in (first, to_move))
    assert (await step(client, game_id, first, tokens[first], "return")).status_code == 200
    assert (await view(client, game_id))["clock"]["deadline"] == deadline
    assert (await step(client, game_id, bystander, tokens[bystander], "resign")).status_code == 200
    after = await view(client, game_id)
    assert (after["turn"], after["clock"]["deadline"]) == (to_move, deadline)


# ---- nobody left ----------------------------------------------------------------------------


@EVERY
async def test_the_last_person_away_abandons_the_game_which_ends_streams_exports_replays_and_lists(
    client: AsyncTestClient, options: dict[str, Any]
) -> None:
    game_id, tokens = await clocked(client, options)
    mover = (await view(client, game_id))["turn"]
    assert (await step(client, game_id, 1 - mover, tokens[1 - mover], "resign")).status_code == 200
    before = await view(client, game_id)
    assert before["status"] == "active"
    stream = Listened(client, f"/v1/games/{game_id}/events/stream?after={before['version']}")
    try:
        assert await stream.opened() == 200
        ended = await step(client, game_id, mover, tokens[mover], "resign")
        assert ended.status_code == 200, ended.text
        assert ended.json()["status"] == "abandoned"
        await until_async(stream.ended.is_set, what="the stream ending by itself after game_abandoned")
        kinds = [kind for _, kind, _ in stream.messages()]
    finally:
        await stream.close()
    assert kinds == ["seat_resigned", "game_abandoned"]
    seen = await view(client, game_id)
    assert (seen["status"], seen["winners"], seen["turn"]) == ("abandoned", [], None)  # nobody is to move
    for seat in (0, 1):  # and nobody has a legal move
        assert (await view(client, game_id, tokens[seat]))["you"]["legal_moves"] == []
    assert [(p["away"], p["resigned"]) for p in seen["players"]] == [(True, True), (True, True), (False, False)]
    log = await events_of(client, game_id)
    assert log[-1]["type"] == "game_abandoned"
    assert log[-1]["data"] == {}
    assert log[0]["data"]["seed"] is not None  # over: the whole log is public
    exported = await client.get(f"/v1/games/{game_id}/export")
    assert exported.status_code == 200, exported.text
    replayed = await client.post(
        "/v1/replays", content=exported.content, headers={"content-type": "application/x-ndjson"}
    )
    assert replayed.status_code == 200, replayed.text
    game = replayed.json()["game"]
    game.pop("all")
    assert game == seen
    listed = (await client.get("/v1/games?status=abandoned&limit=200")).json()["games"]
    assert game_id in [entry["game_id"] for entry in listed]
    active = (await client.get("/v1/games?status=active&limit=200")).json()["games"]
    assert game_id not in [entry["game_id"] for entry in active]
    for what in ("resign", "return"):
        problem(await step(client, game_id, mover, tokens[mover], what), 409, "game_abandoned")
    hand = (await view(client, game_id, tokens[mover]))["you"]["hand"]
    body = {"card": hand[0], **({"cauldron": 0} if "rounds" in options else {})}
    moved = await client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[mover]))
    problem(moved, 409, "game_abandoned")


# ---- the server's settings ------------------------------------------------------------------


@pytest.fixture
async def impatient(settings_of: SettingsOf) -> AsyncIterator[AsyncTestClient]:
    """An app that lets a game wait one second for its open seats."""
    async with AsyncTestClient(create_app(settings_of(waiting_limit=1))) as client:
        yield client


@pytest.fixture
async def open_clock(settings_of: SettingsOf) -> AsyncIterator[AsyncTestClient]:
    """An app that gives a game with an open seat and no clock of its own 30 s per move."""
    async with AsyncTestClient(create_app(settings_of(open_seat_clock=30))) as client:
        yield client


@pytest.fixture
async def random_away(settings_of: SettingsOf) -> AsyncIterator[AsyncTestClient]:
    """An app whose away seats the random bot plays."""
    async with AsyncTestClient(create_app(settings_of(away_bot="random"))) as client:
        yield client


@EVERY
async def test_the_server_chooses_the_bot_that_takes_an_away_seat_and_the_view_names_it(
    random_away: AsyncTestClient, options: dict[str, Any]
) -> None:
    game_id, tokens = await clocked(random_away, options)
    seen = await view(random_away, game_id)
    gone = seen["turn"]
    await expire(random_away, game_id, ms(seen["clock"]["deadline"]) + 1)
    resigned = await step(random_away, game_id, 1 - gone, tokens[1 - gone], "resign")
    assert resigned.status_code == 200, resigned.text
    log = await events_of(random_away, game_id)
    taken = [(e["type"], e["data"]) for e in log if e["type"] in ("seat_timed_out", "seat_resigned")]
    assert taken == [
        ("seat_timed_out", {"seat": gone, "bot": "random"}),
        ("seat_resigned", {"seat": 1 - gone, "bot": "random"}),
    ]
    seen = await view(random_away, game_id)
    assert seen["status"] == "abandoned"
    assert [p.get("away_bot") for p in seen["players"][:2]] == ["random", "random"]
    assert "away_bot" not in seen["players"][2]  # a bot's own seat is never away


@EVERY
async def test_a_game_that_waits_too_long_is_abandoned_by_the_timekeeper_and_takes_no_join(
    impatient: AsyncTestClient, options: dict[str, Any]
) -> None:
    body = {"players": [{"name": "ann"}, {"open": True}, {"name": "robo", "bot": "random"}], **options}
    created = (await impatient.post("/v1/games", json=body)).json()
    game_id, ann = created["game_id"], created["players"][0]["token"]
    assert created["game"]["status"] == "waiting"

    async def abandoned() -> bool:
        return (await view(impatient, game_id))["status"] == "abandoned"

    await until_async(abandoned, what="the waiting game abandoned")
    assert [e["type"] for e in await events_of(impatient, game_id)] == ["game_created", "game_abandoned"]
    refused = problem(await impatient.post(f"/v1/games/{game_id}/seats/1", json={"name": "bea"}), 409, "game_started")
    assert "abandoned" in refused["detail"]
    problem(await impatient.delete(f"/v1/games/{game_id}/seats/0", headers=auth(ann)), 409, "game_started")
    assert [e["type"] for e in await events_of(impatient, game_id)] == ["game_created", "game_abandoned"]
    listed = (await impatient.get("/v1/games?status=abandoned")).json()["games"]
    assert game_id in [entry["game_id"] for entry in listed]
    assert (await impatient.get(f"/v1/games/{game_id}/export")).status_code == 200


@EVERY
async def test_the_open_seat_clock_is_given_to_a_game_with_an_open_seat_only(
    open_clock: AsyncTestClient, options: dict[str, Any]
) -> None:
    open_body = {"players": [{"name": "ann"}, {"open": True}, {"name": "robo", "bot": "random"}], **options}
    waiting = (await open_clock.post("/v1/games", json=open_body)).json()
    assert waiting["game"]["clock"] == {"seconds_per_move": 30, "deadline": None}
    joined = await open_clock.post(f"/v1/games/{waiting['game_id']}/seats/1", json={"name": "bea"})
    assert joined.status_code == 201, joined.text
    assert joined.json()["game"]["clock"]["deadline"] is not None
    assert joined.json()["game"]["clock"]["seconds_per_move"] == 30
    seated, _ = await create(open_clock, 3, bots={2: "random"}, **options)
    assert seated["game"]["clock"] is None
    own = (await open_clock.post("/v1/games", json={**open_body, "clock": {"seconds_per_move": 5}})).json()
    assert own["game"]["clock"] == {"seconds_per_move": 5, "deadline": None}


# ---- hidden hands ---------------------------------------------------------------------------


@EVERY
async def test_an_away_seats_hand_never_shows_in_any_public_answer(
    client: AsyncTestClient, options: dict[str, Any]
) -> None:
    ruleset = ruleset_of(options)
    game_id, tokens = await clocked(client, options)
    seen = await view(client, game_id)
    gone = seen["turn"]
    other = 1 - gone
    await expire(client, game_id, ms(seen["clock"]["deadline"]) + 1)
    for _ in range(4):  # the away seat's bot plays on, as the other person moves
        now = await view(client, game_id)
        if now["status"] != "active":
            break
        hands = {gone: tuple((await view(client, game_id, tokens[gone]))["you"]["hand"])}
        hands[other] = tuple((await view(client, game_id, tokens[other]))["you"]["hand"])
        answers: list[tuple[int | None, Any]] = [
            (None, now),
            (None, await events_of(client, game_id)),
            (None, (await client.get(f"/v1/games/{game_id}/scores")).json()),
            (None, (await client.get("/v1/games?limit=200")).json()),
            (other, await view(client, game_id, tokens[other])),
            (other, await events_of(client, game_id, tokens[other])),
        ]
        for version in range(1, now["version"] + 1, 3):
            answers.append((None, (await client.get(f"/v1/games/{game_id}?version={version}")).json()))
        for caller, body in answers:
            check_no_leak(ruleset, body, caller, [hands.get(s, ()) for s in range(3)], False)
        played = await move(client, game_id, tokens[other])
        assert played.status_code == 201, played.text
        after = {gone: hands[gone], other: tuple(played.json()["game"]["you"]["hand"])}
        check_no_leak(ruleset, played.json(), other, [after.get(s, ()) for s in range(3)], False)


# ---- the archive ----------------------------------------------------------------------------


@EVERY
async def test_a_game_its_people_left_moves_to_the_archive_and_reads_the_same(
    settings: Settings, redis_url: str, options: dict[str, Any]
) -> None:
    recorder = RedisRecorder.from_url(redis_url, namespace=settings.namespace)
    archiver = Archiver(recorder.wire, Archive(settings.archive_location()), namespace=settings.namespace)
    try:
        async with AsyncTestClient(create_app(settings)) as client:
            game_id, tokens = await clocked(client, options)
            seen = await view(client, game_id)
            await expire(client, game_id, ms(seen["clock"]["deadline"]) + 1)
            other = 1 - seen["turn"]
            assert (await step(client, game_id, other, tokens[other], "resign")).status_code == 200
            version = (await view(client, game_id))["version"]
            before = await reads(client, game_id, version, tokens[0])
            listed = (await client.get("/v1/games?status=abandoned")).content
            assert (await archiver.pass_once(everything=True)).games == 1
            assert await reads(client, game_id, version, tokens[0]) == before
            assert (await client.get("/v1/games?status=abandoned")).content == listed
            for what in ("resign", "return"):
                problem(await step(client, game_id, 0, tokens[0], what), 409, "game_abandoned")
        async with AsyncTestClient(create_app(settings)) as client:  # a new worker: nothing cached
            assert await reads(client, game_id, version, tokens[0]) == before
    finally:
        await recorder.close()
