"""The pot game over HTTP, through the real Litestar app and store: whole games move by move
against core/pot/reference.py, every refusal, scores pot by pot, what a replay shows of the
draw pile, the live stream of an active game, and the listing. What holds of a game of every
ruleset (idempotent retries, export and replay, redaction, the stream, time travel, tampered
logs, leaks) is tested once for all of them in tests/service/test_every_ruleset*.py."""

from __future__ import annotations

import asyncio
import random
import threading

import anyio
import msgspec
import pytest
from litestar.testing import TestClient

from core.pot import reference
from core.pot.engine import seeded_deal
from core.rulesets import POT
from service.app import create_app
from tests.pot_moves import move_events
from tests.rulesets import pot_pick, pot_redact
from tests.service.api import auth, check_no_leak, create, http_scope, parse_stream, problem, view

pytestmark = pytest.mark.anyio


async def create_pot(client, players: int = 2, **options):
    return await create(client, players, ruleset="pot", **options)


def lowest_open(oracle: reference.Game) -> tuple[str, bool]:
    return tuple(next(move for move in oracle.legal_moves() if not move.close))


def highest_open(oracle: reference.Game) -> tuple[str, bool]:
    return tuple([move for move in oracle.legal_moves() if not move.close][-1])


def public_of(oracle: reference.Game) -> dict:
    """The public part of a GameView, as the reference sees it."""
    seen = oracle.view()
    return {
        "status": "finished" if seen.status == "finished" else "active",
        "turn": seen.turn,
        "pot": {"cards": list(seen.pot), "toxicity": seen.toxicity},
        "draw_pile": seen.draw_pile,
        "endgame": seen.endgame,
        "hand_sizes": list(seen.hand_sizes),
        "totals": list(seen.totals),
        "winners": list(seen.winners),
    }


def public_in(game: dict) -> dict:
    keys = ("status", "turn", "pot", "draw_pile", "endgame", "totals", "winners")
    return {**{key: game[key] for key in keys}, "hand_sizes": [p["hand_size"] for p in game["players"]]}


def pots_of(oracle: reference.Game) -> list[dict]:
    return [
        {"seat": r.seat, "outcome": r.outcome, "cards": list(r.cards), "toxicity": r.toxicity, "points": r.points}
        for r in oracle.results()
    ]


def events_of(done, oracle: reference.Game, reader: int | None) -> list[dict]:
    """The public events of one move the reference made, as `reader` may see them (all of
    them once the game is over)."""
    shown = move_events(done, oracle)
    if oracle.status == "finished":
        return shown
    return [{"type": e["type"], "data": pot_redact(e["type"], e["data"], reader)} for e in shown]


def hands_of(oracle: reference.Game) -> list[tuple[str, ...]]:
    return [oracle.hand(seat) for seat in range(oracle.players)]


async def post_move(client, game_id, token, card, close=None, **extra):
    body = {"card": card, **({} if close is None else {"close": close}), **extra}
    return await client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(token))


async def play_until(client, game_id, tokens, oracle, done, pick=lowest_open):
    """Play the reference's moves over HTTP (humans only) until `done(oracle)`."""
    while not done(oracle):
        seat = oracle.turn
        card, close = pick(oracle)
        response = await post_move(client, game_id, tokens[seat], card, close)
        assert response.status_code == 201, response.text
        oracle.play(seat, card, close)


# ---- creating ------------------------------------------------------------------------------


async def test_creating_a_pot_game_answers_201_with_its_location_human_tokens_and_a_pot_view(client):
    created, tokens = await create_pot(client, 3, seed=7, bots={2: "greedy"})
    game_id = created["game_id"]
    assert set(tokens) == {0, 1}
    assert "token" not in created["players"][2]
    game = created["game"]
    deal = seeded_deal(7, 3)
    assert game["ruleset"] == "pot"
    assert game["game_id"] == game_id
    assert (game["version"], game["status"], game["turn"], game["endgame"]) == (2, "active", 0, False)
    assert game["pot"] == {"cards": [deal.pot], "toxicity": int(deal.pot[1])}
    assert game["draw_pile"] == len(deal.draw_pile) == 56 - 12 - 1
    assert [(p["seat"], p["name"], p["bot"], p["hand_size"]) for p in game["players"]] == [
        (0, "p0", None, 4),
        (1, "p1", None, 4),
        (2, "p2", "greedy", 4),
    ]
    assert (game["totals"], game["winners"]) == ([0, 0, 0], [])
    for absent in ("cauldrons", "round", "rounds", "dealer", "rules", "scores", "you", "all"):
        assert absent not in game
    mine = await view(client, game_id, tokens[0])
    assert mine["you"]["hand"] == list(deal.hands[0])
    assert mine["you"]["legal_moves"] == [
        {"card": card, "close": close} for card, close in reference.Game(3, seed=7).legal_moves()
    ]


async def test_the_location_of_a_new_pot_game_reads_it(client):
    response = await client.post("/v1/games", json={"ruleset": "pot", "players": [{"name": "a"}, {"name": "b"}]})
    assert response.status_code == 201
    assert response.headers["location"] == f"/v1/games/{response.json()['game_id']}"
    assert (await client.get(response.headers["location"])).json()["ruleset"] == "pot"


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"ruleset": "pot", "players": [{"name": "a"}, {"name": "b"}], "rounds": 2}, "rounds"),
        ({"ruleset": "pot", "players": [{"name": "a"}, {"name": "b"}], "rounds": None}, "rounds"),
        ({"ruleset": "pot", "players": [{"name": "a"}, {"name": "b"}], "rules": {"cauldrons": "fixed"}}, "rules"),
        ({"ruleset": "pot", "players": [{"name": "a"}]}, "players"),
        ({"ruleset": "pot", "players": [{"name": str(n)} for n in range(7)]}, "players"),
        ({"ruleset": "pot", "players": [{"name": "a"}, {"name": "a"}]}, "unique"),
        ({"ruleset": "chess", "players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}, "ruleset"),
        ({"ruleset": "pot", "players": [{"name": "a"}, {"name": "b"}], "seed": -1}, "seed"),
        ({"players": [{"name": "a"}, {"name": "b"}]}, "3"),  # Poison (the default) needs 3
    ],
)
async def test_a_pot_game_that_cannot_be_is_400_naming_why_and_nothing_is_created(client, body, says):
    assert says in problem(await client.post("/v1/games", json=body), 400, "invalid_request")["detail"]
    assert (await client.get("/v1/games")).json()["games"] == []


# ---- whole games against the reference ------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 6])
async def test_a_whole_pot_game_over_http_follows_the_reference_move_by_move(client, players):
    seed = 300 + players
    created, tokens = await create_pot(client, players, seed=seed)
    game_id = created["game_id"]
    oracle = reference.Game(players, seed=seed)
    rng = random.Random(seed)
    version = 2
    closes = []
    while oracle.status != "finished":
        seat = oracle.turn
        mine = await view(client, game_id, tokens[seat])
        check_no_leak(POT, mine, seat, hands_of(oracle), False)
        assert public_in(mine) == public_of(oracle)
        assert mine["you"]["hand"] == list(oracle.hand(seat))
        assert mine["you"]["legal_moves"] == [{"card": c, "close": k} for c, k in oracle.legal_moves()]
        card, close = pot_pick(oracle, rng)
        response = await post_move(client, game_id, tokens[seat], card, close)
        assert response.status_code == 201, response.text
        done = oracle.play(seat, card, close)
        closes.append(close)
        body = response.json()
        finished = oracle.status == "finished"
        check_no_leak(POT, body, seat, hands_of(oracle), finished)
        expected = events_of(done, oracle, seat)
        assert [{"type": e["type"], "data": e["data"]} for e in body["events"]] == expected
        assert [e["version"] for e in body["events"]] == list(range(version + 1, version + 1 + len(expected)))
        version += len(expected)
        assert body["version"] == version
        assert public_in(body["game"]) == public_of(oracle)
        assert body["game"]["you"]["hand"] == list(oracle.hand(seat))
        if len(closes) % 8 == 0 or finished:
            scores = (await client.get(f"/v1/games/{game_id}/scores")).json()
            assert scores["pots"] == pots_of(oracle)
    assert any(closes)
    assert not all(closes)
    scores = (await client.get(f"/v1/games/{game_id}/scores")).json()
    assert scores == {
        "ruleset": "pot",
        "status": "finished",
        "totals": list(oracle.totals),
        "winners": list(oracle.winners),
        "pots": pots_of(oracle),
    }
    assert {line["outcome"] for line in scores["pots"]} == {"closed", "exploded"}
    final = await view(client, game_id)
    assert (final["status"], final["turn"], final["winners"]) == ("finished", None, list(oracle.winners))


# ---- refusals --------------------------------------------------------------------------------


async def unchanged(client, game_id, tokens, before: dict) -> None:
    """The game reads as it did: same version, same public view, same hands, same log."""
    now = await snapshot(client, game_id, tokens)
    assert now == before


async def snapshot(client, game_id, tokens) -> dict:
    return {
        "public": await view(client, game_id),
        "seats": [await view(client, game_id, token) for token in tokens.values()],
        "events": (await client.get(f"/v1/games/{game_id}/events?limit=5000")).json(),
    }


@pytest.mark.parametrize(
    ("body", "status", "code", "says"),
    [
        ({"card": "T9"}, 400, "invalid_request", "card"),
        ({"card": "R5"}, 400, "invalid_request", "R5"),
        ({"card": "G4", "close": False}, 400, "invalid_request", "G4"),
        ({"card": "{held}", "cauldron": 0}, 400, "invalid_request", "cauldron"),
        ({"card": "{held}", "close": "yes"}, 400, "invalid_request", "close"),
        ({"card": "{held}", "close": 1}, 400, "invalid_request", "close"),
        ({"card": "{held}", "seat": 0}, 400, "invalid_request", "seat"),
        ({"card": "{held}", "close": None}, 400, "invalid_request", "close"),
        ({"close": True}, 400, "invalid_request", "card"),
        ({"card": "{missing}"}, 422, "card_not_in_hand", "{missing}"),
        ({"card": "{missing}", "close": True}, 422, "card_not_in_hand", "{missing}"),
        ({"card": "{other}", "close": False, "by": 1}, 409, "not_your_turn", "turn"),
        ({"card": "{held}", "expected_version": 1}, 409, "version_conflict", "version"),
    ],
)
async def test_a_bad_pot_move_is_answered_clearly_and_changes_nothing(client, body, status, code, says):
    created, tokens = await create_pot(client, 2, seed=11)
    game_id = created["game_id"]
    hand = (await view(client, game_id, tokens[0]))["you"]["hand"]
    other = (await view(client, game_id, tokens[1]))["you"]["hand"]
    missing = next(f"T{k}" for k in range(7) if f"T{k}" not in hand)
    fill = {"{held}": hand[0], "{missing}": missing, "{other}": other[0]}
    body = {key: fill.get(value, value) if isinstance(value, str) else value for key, value in body.items()}
    says = fill.get(says, says)
    seat = body.pop("by", 0)
    before = await snapshot(client, game_id, tokens)
    response = await client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[seat]))
    assert says in problem(response, status, code)["detail"]
    await unchanged(client, game_id, tokens, before)


async def test_closing_a_pot_the_card_explodes_is_422_cannot_close_and_changes_nothing(client):
    created, tokens = await create_pot(client, 2, seed=12)
    game_id = created["game_id"]
    oracle = reference.Game(2, seed=12)

    def explosive(game: reference.Game) -> bool:
        return any(game.toxicity + int(card[1]) > 14 for card in game.hand(game.turn))

    await play_until(client, game_id, tokens, oracle, explosive, pick=highest_open)
    seat = oracle.turn
    card = next(card for card in oracle.hand(seat) if oracle.toxicity + int(card[1]) > 14)
    mine = await view(client, game_id, tokens[seat])
    assert {"card": card, "close": False} in mine["you"]["legal_moves"]
    assert {"card": card, "close": True} not in mine["you"]["legal_moves"]
    before = await snapshot(client, game_id, tokens)
    body = problem(await post_move(client, game_id, tokens[seat], card, True), 422, "cannot_close")
    assert card in body["detail"]
    check_no_leak(POT, body, seat, hands_of(oracle), False)
    await unchanged(client, game_id, tokens, before)
    # The same card without `close` is played, and the pot explodes.
    response = await post_move(client, game_id, tokens[seat], card)
    assert response.status_code == 201, response.text
    assert [e["type"] for e in response.json()["events"]][:2] == ["card_played", "pot_exploded"]


async def test_closing_in_the_endgame_is_422_cannot_close_and_a_finished_game_is_409(client):
    created, tokens = await create_pot(client, 2, seed=13)
    game_id = created["game_id"]
    oracle = reference.Game(2, seed=13)
    await play_until(client, game_id, tokens, oracle, lambda game: game.endgame)
    assert oracle.status == "active"
    seat = oracle.turn
    mine = await view(client, game_id, tokens[seat])
    assert (mine["endgame"], mine["draw_pile"]) == (True, 0)
    assert not any(move["close"] for move in mine["you"]["legal_moves"])
    safe = [card for card in oracle.hand(seat) if oracle.toxicity + int(card[1]) <= 14]
    card = (safe or oracle.hand(seat))[0]
    before = await snapshot(client, game_id, tokens)
    body = problem(await post_move(client, game_id, tokens[seat], card, True), 422, "cannot_close")
    assert "draw pile is empty" in body["detail"]
    await unchanged(client, game_id, tokens, before)
    await play_until(client, game_id, tokens, oracle, lambda game: game.status == "finished")
    before = await snapshot(client, game_id, tokens)
    for token in tokens.values():
        problem(await post_move(client, game_id, token, "T0"), 409, "game_finished")
        problem(await post_move(client, game_id, token, "T3", True), 409, "game_finished")
    await unchanged(client, game_id, tokens, before)
    assert before["public"]["totals"] == list(oracle.totals)


async def test_close_in_a_poison_move_is_400_and_changes_nothing(client):
    created, tokens = await create(client, 3, seed=2)
    game_id = created["game_id"]
    move = (await view(client, game_id, tokens[1]))["you"]["legal_moves"][0]
    for extra in ({"close": False}, {"close": True}):
        response = await client.post(f"/v1/games/{game_id}/moves", json={**move, **extra}, headers=auth(tokens[1]))
        assert "close" in problem(response, 400, "invalid_request")["detail"]
    response = await client.post(
        f"/v1/games/{game_id}/moves", json={"card": "T3", "cauldron": 0}, headers=auth(tokens[1])
    )
    problem(response, 400, "invalid_request")
    assert (await view(client, game_id))["version"] == 2


async def test_close_defaults_to_false_and_expected_version_works_for_a_pot_move(client):
    created, tokens = await create_pot(client, 2, seed=23)
    game_id = created["game_id"]
    mine = await view(client, game_id, tokens[0])
    card = next(m["card"] for m in mine["you"]["legal_moves"] if m["close"])  # closing it would be legal
    response = await client.post(
        f"/v1/games/{game_id}/moves", json={"card": card, "expected_version": 2}, headers=auth(tokens[0])
    )
    assert response.status_code == 201, response.text
    events = response.json()["events"]
    assert events[0]["data"]["close"] is False
    assert "pot_closed" not in [e["type"] for e in events]
    assert response.json()["game"]["pot"]["cards"] == [*mine["pot"]["cards"], card]
    stale = await client.post(
        f"/v1/games/{game_id}/moves", json={"card": "T0", "expected_version": 2}, headers=auth(tokens[1])
    )
    assert problem(stale, 409, "version_conflict")["current_version"] == response.json()["version"]


# ---- the log: replays and the live stream ---------------------------------------------------


async def finished_pot_game(client, players=3, seed=16):
    created, tokens = await create_pot(client, players, seed=seed)
    oracle = reference.Game(players, seed=seed)
    rng = random.Random(seed)
    await play_until(
        client, created["game_id"], tokens, oracle, lambda game: game.status == "finished", lambda g: pot_pick(g, rng)
    )
    exported = (await client.get(f"/v1/games/{created['game_id']}/export")).content
    return created["game_id"], oracle, exported


async def test_a_replayed_pot_log_shows_every_hand_and_the_draw_piles_order_at_any_version(client):
    _, _, exported = await finished_pot_game(client, seed=17)
    deal = seeded_deal(17, 3)
    headers = {"content-type": "application/x-ndjson"}
    dealt = (await client.post("/v1/replays?version=2", content=exported, headers=headers)).json()
    assert dealt["game"]["all"] == {"hands": [list(h) for h in deal.hands], "draw_pile": list(deal.draw_pile)}
    assert dealt["game"]["status"] == "active"
    events = [msgspec.json.decode(line) for line in exported.splitlines()]
    oracle = reference.Game(3, seed=17)
    for event in events:
        if event["type"] == "card_played" and event["version"] > 40:
            break
        if event["type"] == "card_played":
            oracle.play(event["data"]["seat"], event["data"]["card"], event["data"]["close"])
    at = event["version"] - 1
    middle = (await client.post(f"/v1/replays?version={at}", content=exported, headers=headers)).json()
    assert middle["game"]["all"] == {
        "hands": [list(h) for h in hands_of(oracle)],
        "draw_pile": list(oracle.draw_order()),
    }
    assert public_in(middle["game"]) == public_of(oracle)
    assert middle["scores"]["pots"] == pots_of(oracle)


@pytest.mark.parametrize(
    "created",
    [
        {"game_id": "g", "ruleset": "pot", "players": [{"seat": 0, "name": "a", "bot": None}], "seed": 1},
        {"game_id": "g", "ruleset": "pot", "players": [{"seat": s, "name": f"p{s}"} for s in range(7)], "seed": 1},
        {
            "game_id": "g",
            "ruleset": "pot",
            "players": [{"seat": 0, "name": "a"}, {"seat": 1, "name": "b"}],
            "rounds": 2,
        },
        {"game_id": "g", "ruleset": "pot", "players": [{"seat": 0, "name": "a"}, {"seat": 1, "name": "a"}]},
        {"game_id": "g", "ruleset": "pot", "players": [{"seat": 0, "name": "a"}, {"seat": 1, "name": "b", "bot": "x"}]},
        {"game_id": "g", "ruleset": "chess", "players": [{"seat": 0, "name": "a"}, {"seat": 1, "name": "b"}]},
    ],
)
async def test_a_pot_log_whose_creation_the_rules_refuse_is_422_at_version_1(client, created):
    deal = seeded_deal(1, 2)
    events = [
        {"version": 1, "type": "game_created", "data": created},
        {
            "version": 2,
            "type": "cards_dealt",
            "data": {"hands": deal.hands, "pot": deal.pot, "draw_pile": deal.draw_pile},
        },
    ]
    for query in ("", "?version=1"):
        response = await client.post(f"/v1/replays{query}", json={"events": events})
        assert problem(response, 422, "invalid_log")["at_version"] == 1


async def test_a_pot_log_replayed_to_its_creation_shows_a_game_not_yet_dealt(client):
    _, _, exported = await finished_pot_game(client, seed=24)
    response = await client.post(
        "/v1/replays?version=1", content=exported, headers={"content-type": "application/x-ndjson"}
    )
    assert response.status_code == 200, response.text
    game = response.json()["game"]
    assert (game["version"], game["turn"], game["pot"], game["draw_pile"]) == (1, None, {"cards": [], "toxicity": 0}, 0)
    assert game["all"] == {"hands": [[], [], []], "draw_pile": []}
    whole = await client.post(
        "/v1/replays", content=b"\n".join(exported.splitlines()[:1]), headers={"content-type": "application/x-ndjson"}
    )
    assert problem(whole, 422, "invalid_log")["at_version"] == 2


async def test_the_live_stream_of_an_active_pot_game_follows_it_redacted_for_its_reader(client, settings):
    created, tokens = await create_pot(client, 2, seed=21, bots={1: "greedy"})
    game_id = created["game_id"]
    deal = seeded_deal(21, 2)
    opened = threading.Event()
    path = f"/v1/games/{game_id}/events/stream"

    def listen() -> str:
        """The stream, read by a second app on the same store in its own thread (the async
        test client answers one request at a time, and this one lasts until the game ends);
        called as bare ASGI so that its first message is seen as soon as it is sent."""
        chunks: list[bytes] = []
        asked: list[bool] = []
        finished: list[bool] = []

        async def receive():
            if not asked:
                asked.append(True)
                return {"type": "http.request", "body": b"", "more_body": False}
            while not finished:  # the client stays until the response is complete
                await anyio.sleep(0.05)
            return {"type": "http.disconnect"}

        async def send(message):
            if message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                opened.set()
                if not message.get("more_body", False):
                    finished.append(True)

        scope = http_scope("GET", path, {"authorization": f"Bearer {tokens[0]}"}, client=("127.0.0.1", 1))
        with TestClient(create_app(settings)) as other:
            other.blocking_portal.call(other.app, scope, receive, send)
        return b"".join(chunks).decode()

    listening = asyncio.create_task(asyncio.to_thread(listen))
    if not await asyncio.to_thread(opened.wait, 10):
        await asyncio.wait_for(listening, 70)
    assert opened.is_set()
    while (game := await view(client, game_id, tokens[0]))["status"] == "active":
        move = game["you"]["legal_moves"][0]
        response = await client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(tokens[0]))
        assert response.status_code == 201, response.text
    messages = parse_stream(await asyncio.wait_for(listening, 20))
    exported = [
        msgspec.json.decode(line) for line in (await client.get(f"/v1/games/{game_id}/export")).content.splitlines()
    ]
    assert [m[0] for m in messages] == list(range(1, len(exported) + 1))
    assert messages[-1][1] == "game_finished"
    assert messages[0][2]["data"]["seed"] is None
    assert messages[1][2]["data"] == {"hands": [list(deal.hands[0]), None], "pot": deal.pot, "draw_pile": None}
    bot_draws = [m[2] for m in messages if m[1] == "cards_drawn" and m[2]["data"]["seat"] == 1]
    assert bot_draws
    assert bot_draws[0]["data"]["cards"] is None  # drawn while the game was active
    assert [m[2] for m in messages][-1] == exported[-1]


# ---- listing -------------------------------------------------------------------------------


async def test_the_listing_names_pot_games_without_rounds_and_leaves_poison_entries_as_they_were(client):
    poison, _ = await create(client, 3, seed=1)
    await asyncio.sleep(0.002)
    pot, _ = await create_pot(client, 2, seed=1)
    listed = (await client.get("/v1/games")).json()["games"]
    assert listed == [
        {
            "game_id": pot["game_id"],
            "status": "active",
            "players": ["p0", "p1"],
            "round": None,
            "rounds": None,
            "version": 2,
            "ruleset": "pot",
        },
        {
            "game_id": poison["game_id"],
            "status": "active",
            "players": ["p0", "p1", "p2"],
            "round": 1,
            "rounds": 3,
            "version": 2,
        },
    ]
    done, _ = await create_pot(client, 2, bots={0: "greedy", 1: "random"})
    finished = (await client.get("/v1/games?status=finished")).json()["games"]
    assert [(g["game_id"], g["ruleset"], g["round"]) for g in finished] == [(done["game_id"], "pot", None)]
