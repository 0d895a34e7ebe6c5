"""Issue 12, "Messages": every error a person reads says what is wrong in their terms, the same
way in the API and on the command line, rendered by one renderer of problem+json; every JSON
answer ends with a newline; the seed range is one range at every layer. Through the real app
on the real store (and the real `poison` command), except the walk over every way a request
schema can be violated, which is the wording itself, over msgspec's real messages."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import msgspec
import msgspec.inspect as types
import pytest
from litestar.testing import AsyncTestClient

from core.errors import SEED_LIMIT
from core.poison import reference
from core.rulesets import POISON, POT, RULESETS
from events.codec import MalformedEvent, PublicEvent
from events.poison.schema import CODEC
from events.wording import plain
from service.app import create_app
from service.poison.schemas import PoisonCreate
from service.pot.schemas import PotCreate
from service.problems import TITLES, TYPE_BASE
from service.schemas import PlayCard, ReplayBody
from service.settings import Settings
from tests.service.api import auth, create, view
from tests.service.command import poison_here
from tests.service.test_games_api import finish, play_first

pytestmark = pytest.mark.anyio

#: What no message may show: msgspec's words, a regular expression, a JSON path, a Python repr.
FOREIGN = ("Expected", "regex", "`", "$.", "<class", "b'", 'b"', "Validation failed", "NoneType", "{'")
THREE = [{"name": "ana"}, {"name": "bob"}, {"name": "cy"}]
PROBLEM = "application/problem+json"


def readable(text: str) -> None:
    assert text
    for word in FOREIGN:
        assert word not in text, f"{word!r} in {text!r}"


# ---- every violation of every request schema, worded ----------------------------------------

#: A valid document of each schema a request body is decoded as (and an event's public form).
VALID: dict[Any, dict[str, Any]] = {
    PlayCard: {"card": "R1", "cauldron": 0, "close": False, "expected_version": 3},
    PoisonCreate: {
        "players": THREE,
        "rounds": 2,
        "seed": 7,
        "rules": {"cauldrons": "fixed"},
        "clock": {"seconds_per_move": 60},
    },
    PotCreate: {"ruleset": "pot", "players": THREE[:2], "seed": 7, "clock": {"seconds_per_move": 60}},
    ReplayBody: {"events": [{"version": 1, "type": "game_created", "data": {}}]},
    PublicEvent: {"version": 1, "type": "game_created", "data": {}},
}


def _bare(info: Any) -> Any:
    while isinstance(info, types.Metadata):
        info = info.type
    return info


def violations(info: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
    """(where, a wrong value, the kind of violation) for every way `info` can be violated."""
    info = _bare(info)
    members = [_bare(m) for m in info.types] if isinstance(info, types.UnionType) else [info]
    nullable = any(isinstance(m, types.NoneType) for m in members)
    for member in members:
        if isinstance(member, (types.IntType, types.FloatType)):
            yield path, "12", "a string for a number"
            yield path, [1], "a list for a number"
            if isinstance(member, types.IntType):
                yield path, 1.5, "a fraction for a whole number"
            for bound, step in ((member.ge, -1), (member.gt, 0), (member.le, 1), (member.lt, 0)):
                if bound is not None:
                    yield path, bound + step, "out of bounds"
        elif isinstance(member, types.StrType):
            yield path, 5, "a number for a string"
            if member.pattern:
                yield path, "Z9", "not matching its pattern"
            if member.min_length:
                yield path, "", "too short"
            if member.max_length:
                yield path, "x" * (member.max_length + 1), "too long"
        elif isinstance(member, types.BoolType):
            yield path, "yes", "a string for true or false"
        elif isinstance(member, types.LiteralType):
            yield path, "nonsense", "not one of the choices"
        elif isinstance(member, types.ListType):
            yield path, {"a": 1}, "an object for a list"
            if member.min_length:
                yield path, [], "too few entries"
            if member.max_length:
                yield path, Longer(member.max_length + 1), "too many entries"
            yield from violations(member.item_type, (*path, 0))
        elif isinstance(member, types.StructType):
            yield path, [], "a list for an object"
            yield path, "text", "a string for an object"
            yield (*path, "surplus"), 1, "an unknown field"
            for field in member.fields:
                if field.required:
                    yield (*path, field.encode_name), msgspec.UNSET, "a missing field"
                yield from violations(field.type, (*path, field.encode_name))
        elif isinstance(member, types.DictType):
            yield path, [], "a list for an object"
    if not nullable and path:
        yield path, None, "null where a value is needed"


class Longer(int):
    """A list of this many entries, each a copy of the valid list's first entry."""


def violated(document: Any, where: tuple[Any, ...], value: Any) -> Any:
    if not where:
        return value
    changed = copy.deepcopy(document)
    target = changed
    for key in where[:-1]:
        target = target[key]
    if isinstance(value, Longer):
        target[where[-1]] = [copy.deepcopy(target[where[-1]][0]) for _ in range(value)]
    elif value is msgspec.UNSET:
        del target[where[-1]]
    else:
        target[where[-1]] = value
    return changed


@pytest.mark.parametrize("schema", list(VALID), ids=lambda schema: schema.__name__)
def test_every_violation_of_every_request_schema_is_worded_naming_its_field(schema):
    msgspec.json.decode(msgspec.json.encode(VALID[schema]), type=schema)  # the base is valid
    seen = 0
    for where, value, kind in violations(msgspec.inspect.type_info(schema), ()):
        document = violated(VALID[schema], where, value)
        with pytest.raises(msgspec.ValidationError) as refused:
            msgspec.json.decode(msgspec.json.encode(document), type=schema)
        said = plain(refused.value, document, kind=schema)
        readable(said)
        names = [part for part in where if isinstance(part, str)]
        assert (names[-1] if names else "the body") in said, f"{kind} at {where}: {said!r}"
        seen += 1
    assert seen >= 8


def test_json_that_is_no_json_is_said_in_words():
    for body in (b'{"card": "R1",', b'{"card": "R1"} x', b"\xff", b'{"card": "R1",}'):
        with pytest.raises(msgspec.DecodeError) as refused:
            msgspec.json.decode(body, type=PlayCard)
        said = plain(refused.value)
        readable(said)
        assert said.startswith("the body is not valid JSON")


def test_an_event_that_is_no_event_is_worded_at_its_source():
    with pytest.raises(MalformedEvent) as refused:
        CODEC.decode_data("card_played", {"round": 1, "seat": 2, "card": "R3", "cauldron": 0, "total": 9})
    assert str(refused.value) == (
        "card_played: card: 'R3' is not a card code: the cards are R1 R2 R4 R5 R7, B1 B2 B4 B5 B7, P1 P2 P4 P5 P7 "
        "and G4"
    )
    with pytest.raises(MalformedEvent) as refused:
        CODEC.decode_data("game_finished", {"totals": [1, 2]})
    assert str(refused.value) == "game_finished: winners is missing"


# ---- through the API -----------------------------------------------------------------------


def problem(response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body = response.json()
    assert body["code"] == code
    readable(body["detail"])
    return body


async def test_an_unknown_card_names_every_card_code_not_a_pattern(client):
    created, tokens = await create(client, 3, seed=5)
    game = await view(client, created["game_id"])
    seat = game["turn"]
    response = await client.post(
        f"/v1/games/{created['game_id']}/moves", json={"card": "Z9", "cauldron": 0}, headers=auth(tokens[seat])
    )
    detail = problem(response, 400, "invalid_request")["detail"]
    assert detail.startswith("card: 'Z9' is not a card code: the cards are R1 R2 R4 R5 R7, ")
    for ruleset in RULESETS.values():
        assert all(code in detail for code in ruleset.card_codes)
    # A card of the other game is the rules' refusal, naming this game's cards only.
    response = await client.post(
        f"/v1/games/{created['game_id']}/moves", json={"card": "T3", "cauldron": 0}, headers=auth(tokens[seat])
    )
    detail = problem(response, 400, "invalid_request")["detail"]
    assert detail == "'T3' is not a card code: the cards are R1 R2 R4 R5 R7, B1 B2 B4 B5 B7, P1 P2 P4 P5 P7 and G4"


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({}, "players is missing"),
        ({"players": THREE, "rounds": 0}, "rounds must be a whole number from 1 to 20 or null, not 0"),
        ({"players": THREE, "rounds": "3"}, "rounds must be a whole number from 1 to 20 or null, not '3'"),
        ({"players": THREE[:2]}, "players must have 3 to 6 entries, not 2"),
        (
            {"players": [{"nome": "x"}, *THREE[1:]]},
            "players[0].nome is not a field: players[0] has only name, bot, open and playouts",
        ),
        ({"players": [{"name": "a", "bot": "smart"}, *THREE[1:]]}, "players[0].bot: 'smart' is not one of "),
        (
            {"players": THREE, "rules": {"cauldrons": "wavy"}},
            "rules.cauldrons: 'wavy' is not one of 'dynamic', 'fixed'",
        ),
        ({"players": THREE, "surplus": 1}, "surplus is not a field: the body has only "),
        ([], "the body must be an object, not a list"),
        ({"ruleset": "chess", "players": THREE}, "'chess' is not a ruleset: choose one of 'poison', 'pot'"),
    ],
)
async def test_a_bad_new_game_is_told_in_plain_words(client, body, said):
    detail = problem(await client.post("/v1/games", json=body), 400, "invalid_request")["detail"]
    assert detail.startswith(said)
    assert (await client.get("/v1/games")).json()["games"] == []


async def test_a_body_that_is_no_json_or_none_is_told_so(client):
    headers = {"content-type": "application/json"}
    detail = problem(await client.post("/v1/games", content=b'{"players": [', headers=headers), 400, "invalid_request")
    assert detail["detail"] == "the body is not valid JSON: it ends before its last value does"
    detail = problem(await client.post("/v1/games", content=b"", headers=headers), 400, "invalid_request")
    assert detail["detail"] == "the body is empty: send a JSON object"


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("limit=0", "the query parameter limit must be at least 1, not 0"),
        ("limit=many", "the query parameter limit must be a whole number, not 'many'"),
        (
            "status=bogus",
            "the query parameter status: 'bogus' is not one of 'abandoned', 'active', 'finished', 'waiting'",
        ),
    ],
)
async def test_a_bad_query_parameter_is_told_without_validation_failed(client, query, said):
    assert problem(await client.get(f"/v1/games?{query}"), 400, "invalid_request")["detail"] == said


async def test_a_move_the_framework_refuses_is_worded_as_any_other(client):
    created, tokens = await create(client, 3, seed=5)
    seat = (await view(client, created["game_id"]))["turn"]
    url, headers = f"/v1/games/{created['game_id']}/moves", auth(tokens[seat])
    assert problem(await client.post(url, json={"cauldron": 0}, headers=headers), 400, "invalid_request")["detail"] == (
        "card is missing"
    )
    said = problem(
        await client.post(url, json={"card": "R1", "cauldron": "0"}, headers=headers), 400, "invalid_request"
    )
    assert said["detail"] == "cauldron must be a whole number from 0 to 2, not '0'"
    said = problem(await client.post(url, json=[1], headers=headers), 400, "invalid_request")
    assert said["detail"] == "the body must be an object, not a list"


async def test_an_illegal_cauldron_says_which_cauldron_takes_the_card(client):
    created, tokens = await create(client, 3, seed=33, rules={"cauldrons": "fixed"})
    game_id = created["game_id"]
    seat = (await view(client, game_id))["turn"]
    hand = (await view(client, game_id, tokens[seat]))["you"]["hand"]
    potion = next(card for card in hand if card != "G4")
    home = "RBP".index(potion[0])
    colour = ("red", "blue", "purple")[home]
    wrong = (home + 1) % 3
    response = await client.post(
        f"/v1/games/{game_id}/moves", json={"card": potion, "cauldron": wrong}, headers=auth(tokens[seat])
    )
    detail = problem(response, 422, "illegal_cauldron")["detail"]
    assert (
        detail
        == f"{potion} must go into cauldron {home}, the {colour} one (the cauldrons are fixed), not cauldron {wrong}"
    )


async def tampered_log(client) -> tuple[bytes, int]:
    """An exported log whose first played card's total is wrong, and that event's version."""
    created, tokens = await create(client, 3, rounds=1, seed=21, bots={1: "greedy", 2: "greedy"})
    await finish(client, created["game_id"], tokens)
    lines = (await client.get(f"/v1/games/{created['game_id']}/export")).content.splitlines()
    at = next(i for i, line in enumerate(lines) if b'"card_played"' in line)
    event = msgspec.json.decode(lines[at])
    event["data"]["total"] = 13 if event["data"]["total"] != 13 else 12
    lines[at] = msgspec.json.encode(event)
    return b"\n".join(lines) + b"\n", at + 1


async def test_an_invalid_log_is_told_with_json_never_a_python_repr(client):
    log, at = await tampered_log(client)
    response = await client.post("/v1/replays", content=log, headers={"content-type": "application/x-ndjson"})
    body = problem(response, 422, "invalid_log")
    assert body["at_version"] == at
    assert body["detail"].startswith(f"event {at}: card_played: the rules make it {{")
    assert '"total":' in body["detail"]


async def test_a_replayed_log_naming_no_ruleset_of_ours_names_those_that_exist(client):
    event = {"version": 1, "type": "game_created", "data": {"game_id": "g", "ruleset": "chess", "players": []}}
    response = await client.post(
        "/v1/replays", content=msgspec.json.encode(event), headers={"content-type": "application/x-ndjson"}
    )
    detail = problem(response, 422, "invalid_log")["detail"]
    assert "'chess'" in detail
    assert all(name in detail for name in RULESETS)


async def test_the_cli_says_what_the_api_says_of_the_same_log(client, tmp_path):
    log, _ = await tampered_log(client)
    response = await client.post("/v1/replays", content=log, headers={"content-type": "application/x-ndjson"})
    detail = problem(response, 422, "invalid_log")["detail"]
    (tmp_path / "game.ndjson").write_bytes(log)
    result = poison_here("replay", str(tmp_path / "game.ndjson"))
    assert result.returncode == 1
    assert detail in result.stderr
    assert "Traceback" not in result.stderr


# ---- one renderer -----------------------------------------------------------------------------

#: The fields a problem of each code carries besides type, title, status, detail and code.
EXTRA = {"version_conflict": {"current_version"}, "invalid_log": {"at_version"}, "rate_limited": {"retry_after"}}
STANDARD = ["type", "title", "status", "detail", "code"]


def rendered(response, status: int, code: str) -> dict[str, Any]:
    """The checks every problem answer passes, whichever route and exception it came from."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    assert response.headers["x-poison-worker"].isdigit()
    assert response.content.endswith(b"}\n")
    assert int(response.headers["content-length"]) == len(response.content)
    body = response.json()
    assert list(body)[:5] == STANDARD
    assert set(body) - set(STANDARD) <= EXTRA.get(code, set()) | {"reason"}
    assert EXTRA.get(code, set()) <= set(body)
    assert (body["type"], body["title"], body["status"], body["code"]) == (TYPE_BASE + code, TITLES[code], status, code)
    readable(body["detail"])
    return body


async def test_every_problem_of_every_route_is_rendered_alike(client):
    created, tokens = await create(client, 3, seed=9)
    game_id = created["game_id"]
    moves = f"/v1/games/{game_id}/moves"
    turn = (await view(client, game_id))["turn"]
    other = next(seat for seat in tokens if seat != turn)
    mine = (await view(client, game_id, tokens[turn]))["you"]
    missing = next(code for code in POISON.card_codes if code not in mine["hand"])
    rendered(await client.post("/v1/games", json={"players": []}), 400, "invalid_request")
    rendered(await client.get("/v1/games?limit=0"), 400, "invalid_request")
    rendered(await client.post(moves, json={"card": "R1", "cauldron": 0}), 401, "unauthorized")
    rendered(await client.get("/v1/games/no-such-game"), 404, "game_not_found")
    rendered(await client.get("/no/such/path"), 404, "not_found")
    rendered(await client.delete("/v1/games"), 405, "method_not_allowed")
    rendered(await client.post(moves, json=mine["legal_moves"][0], headers=auth(tokens[other])), 409, "not_your_turn")
    stale = {**mine["legal_moves"][0], "expected_version": 1}
    rendered(await client.post(moves, json=stale, headers=auth(tokens[turn])), 409, "version_conflict")
    rendered(await client.get(f"/v1/games/{game_id}/export"), 409, "game_active")
    big = b'{"players": "' + b"x" * 300_000 + b'"}'
    rendered(
        await client.post("/v1/games", content=big, headers={"content-type": "application/json"}),
        413,
        "payload_too_large",
    )
    rendered(
        await client.post("/v1/games", content=b"x", headers={"content-type": "text/plain"}),
        415,
        "unsupported_media_type",
    )
    missing_move = {"card": missing, "cauldron": 0}
    rendered(await client.post(moves, json=missing_move, headers=auth(tokens[turn])), 422, "card_not_in_hand")
    key = {**auth(tokens[turn]), "Idempotency-Key": "k1"}
    first = await client.post(moves, json=missing_move, headers=key)
    again = await client.post(moves, json=missing_move, headers=key)  # the recorded refusal
    assert rendered(again, 422, "card_not_in_hand") == rendered(first, 422, "card_not_in_hand")
    other_move = {"card": mine["hand"][0], "cauldron": 2, "expected_version": 99}
    rendered(await client.post(moves, json=other_move, headers=key), 422, "idempotency_key_reused")
    event = {"version": 1, "type": "round_started", "data": {}}
    replay = await client.post(
        "/v1/replays", content=msgspec.json.encode(event), headers={"content-type": "application/x-ndjson"}
    )
    rendered(replay, 422, "invalid_log")
    finished, finished_tokens = await create(client, 3, rounds=1, seed=3, bots={1: "greedy", 2: "greedy"})
    await finish(client, finished["game_id"], finished_tokens)
    last = await client.post(
        f"/v1/games/{finished['game_id']}/moves", json={"card": "R1", "cauldron": 0}, headers=auth(finished_tokens[0])
    )
    rendered(last, 409, "game_finished")
    pot, pot_tokens = await create(client, 2, ruleset="pot", seed=11)
    cannot = await pot_refusal(client, pot["game_id"], pot_tokens)
    rendered(cannot, 422, "cannot_close")


async def pot_refusal(client, game_id: str, tokens: dict[int, str]):
    """A closing the pot game refuses (the card would make the pot explode), after playing
    until one comes up."""
    oracle_moves = 0
    while oracle_moves < 200:
        game = await view(client, game_id)
        seat = game["turn"]
        hand = (await view(client, game_id, tokens[seat]))["you"]["hand"]
        exploding = [card for card in hand if game["pot"]["toxicity"] + int(card[1]) > 14]
        if exploding:
            return await client.post(
                f"/v1/games/{game_id}/moves", json={"card": exploding[0], "close": True}, headers=auth(tokens[seat])
            )
        response, _, _ = await play_first(client, game_id, tokens)
        assert response.status_code == 201
        oracle_moves += 1
    raise AssertionError("no exploding card came up")


async def test_rate_limits_and_an_unreachable_store_are_rendered_alike(settings):
    limited = msgspec.structs.replace(settings, create_rate=0.001, create_burst=1)
    async with AsyncTestClient(create_app(limited)) as client:
        assert (await client.post("/v1/games", json={"players": THREE})).status_code == 201
        body = rendered(await client.post("/v1/games", json={"players": THREE}), 429, "rate_limited")
        assert body["retry_after"] >= 1
    down = msgspec.structs.replace(settings, redis_url="redis://127.0.0.1:1/0", store_timeout=1.0)
    async with AsyncTestClient(create_app(down)) as client:
        rendered(await client.get("/health"), 503, "store_unavailable")


# ---- a newline after every JSON answer ------------------------------------------------------


async def test_every_json_answer_ends_with_a_newline(client):
    created = await client.post("/v1/games", json={"players": THREE, "seed": 4})
    answers = [created]
    game_id = created.json()["game_id"]
    tokens = {p["seat"]: p["token"] for p in created.json()["players"]}
    for path in ("/v1/games", f"/v1/games/{game_id}", f"/v1/games/{game_id}?version=1", f"/v1/games/{game_id}/scores"):
        answers.append(await client.get(path))
    answers.append(await client.get(f"/v1/games/{game_id}/events"))
    for path in ("/health", "/health/ready", "/health/live"):
        answers.append(await client.get(path))
    response, seat, _ = await play_first(client, game_id, tokens)
    answers.append(response)
    key = {**auth(tokens[(seat + 1) % 3]), "Idempotency-Key": "once"}
    mine = (await view(client, game_id, tokens[(seat + 1) % 3]))["you"]["legal_moves"][0]
    answers += [await client.post(f"/v1/games/{game_id}/moves", json=mine, headers=key) for _ in range(2)]
    finished, finished_tokens = await create(client, 3, rounds=1, seed=8, bots={1: "greedy", 2: "random"})
    await finish(client, finished["game_id"], finished_tokens)
    exported = (await client.get(f"/v1/games/{finished['game_id']}/export")).content
    answers.append(await client.post("/v1/replays", content=exported, headers={"content-type": "application/x-ndjson"}))
    for answer in answers:
        assert answer.status_code < 300, answer.text
        assert answer.headers["content-type"].startswith("application/json"), answer.request.url
        assert answer.content.endswith(b"}\n"), answer.request.url
        assert not answer.content.endswith(b"\n\n")
        assert int(answer.headers["content-length"]) == len(answer.content)
        msgspec.json.decode(answer.content)
    assert exported.endswith(b"}\n")  # NDJSON, as before
    assert not exported.endswith(b"\n\n")


async def test_a_head_answer_counts_the_newline_too(client):
    created, _ = await create(client, 3, seed=2)
    got = await client.get(f"/v1/games/{created['game_id']}")
    head = await client.head(f"/v1/games/{created['game_id']}")
    assert head.headers["content-length"] == got.headers["content-length"] == str(len(got.content))


# ---- the seed range is one range ---------------------------------------------------------------


async def test_the_seed_range_is_0_to_2_to_the_63_minus_1_at_every_layer(client):
    assert SEED_LIMIT == 2**63 - 1
    # the core
    assert reference.Game(3, seed=SEED_LIMIT).status == "active"
    # the events: a game created with the highest seed; one above is no event
    created = {"game_id": "g", "players": [{"seat": s, "name": f"p{s}"} for s in range(3)], "rounds": 3}
    assert CODEC.decode_data("game_created", {**created, "seed": SEED_LIMIT}).seed == SEED_LIMIT  # type: ignore[attr-defined]
    with pytest.raises(MalformedEvent) as refused:
        CODEC.decode_data("game_created", {**created, "seed": SEED_LIMIT + 1})
    assert f"seed must be a whole number from 0 to {SEED_LIMIT:,}" in str(refused.value)
    # the API
    assert (await client.post("/v1/games", json={"players": THREE, "seed": SEED_LIMIT})).status_code == 201
    above = await client.post("/v1/games", json={"players": THREE, "seed": SEED_LIMIT + 1})
    detail = problem(above, 400, "invalid_request")["detail"]
    assert detail == f"seed must be a whole number from 0 to {SEED_LIMIT:,} or null, not {SEED_LIMIT + 1}"
    pot = await client.post("/v1/games", json={"ruleset": "pot", "players": THREE[:2], "seed": SEED_LIMIT + 1})
    problem(pot, 400, "invalid_request")
    assert POT.name == "pot"
    # the command line
    for seed, status in ((SEED_LIMIT + 1, 2), (-1, 2)):
        result = poison_here("simulate", "--games", "1", "--seed", str(seed))
        assert result.returncode == status, result.stderr
        assert f"{SEED_LIMIT:,}" in result.stderr


def test_settings_refused_are_named_by_variable_and_flag():
    with pytest.raises(ValueError, match="POISON_WORKERS") as refused:
        Settings.from_environment({"POISON_WORKERS": "0"})
    assert str(refused.value) == "workers (POISON_WORKERS, --workers) must be a whole number from 1 to 64, not 0"
    with pytest.raises(ValueError, match="POISON_HEADER_TIMEOUT") as refused:
        Settings.from_environment({"POISON_HEADER_TIMEOUT": "soon"})
    readable(str(refused.value))
    assert "POISON_HEADER_TIMEOUT" in str(refused.value)
    with pytest.raises(ValueError, match="must start with redis://, rediss:// or unix://"):
        Settings.from_environment({"POISON_REDIS_URL": "http://example.org"})
    assert Settings.from_environment({"POISON_LOG_LEVEL": "INFO"}).log_level == "info"
