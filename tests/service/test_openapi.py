"""The OpenAPI document tells the truth: it validates, its request schemas take what the service
takes, each operation lists the problem codes the service really answers there (each one is
provoked here, through the real app on a real store), and its page renders from the service
alone in a real browser, where "Try it out" plays a move with a token."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar.testing import AsyncTestClient
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from core.rulesets import POISON, RULESETS
from events.archive import Archive
from events.archiving import Archiver
from events.codec import Player, to_public
from events.games import Games
from events.play import create_game, play_move
from events.store import EventStore
from service import problems as service_problems
from service.app import create_app
from service.controllers.games import GamesController
from service.documented import CODES_OF, PROBLEMS, STATUS_OF, examples
from service.serverkey import process_key
from service.settings import Settings
from service.tokens import new_game_id
from tests.service.api import auth, create, view
from tests.service.listened import Listened

pytestmark = pytest.mark.anyio

Client = AsyncTestClient[Any]


async def document_of(client: Client) -> dict[str, Any]:
    answer = await client.get("/schema/openapi.json")
    assert answer.status_code == 200
    return answer.json()


def validator(document: dict[str, Any], name: str) -> OAS31Validator:
    """A validator of the document's schema `name`, its references resolved in the document."""
    return validator_at(document, f"/components/schemas/{name}")


def validator_at(document: dict[str, Any], pointer: str) -> OAS31Validator:
    """A validator of the schema at `pointer` (a JSON pointer) in the document."""
    registry: Registry[Any] = Registry().with_resource(
        "urn:poison", Resource.from_contents(document, default_specification=DRAFT202012)
    )
    return OAS31Validator({"$ref": f"urn:poison#{pointer}"}, registry=registry)


def pointer(*parts: str) -> str:
    return "".join("/" + part.replace("~", "~0").replace("/", "~1") for part in parts)


async def test_the_document_passes_openapi_spec_validator(client):
    document = await document_of(client)
    validate(document)
    assert document["info"]["license"] == {"name": "MIT", "identifier": "MIT"}


async def test_every_operation_and_schema_has_an_id_a_summary_and_a_description(client):
    document = await document_of(client)
    ids = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            assert operation.get("summary"), (method, path)
            assert operation.get("description"), (method, path)
            ids.append(operation["operationId"])
    assert len(ids) == len(set(ids))
    assert {"get_scores", "play_move", "create_game", "replay_log", "stream_events", "head_game"} <= set(ids)
    assert all(identifier.isidentifier() and identifier.islower() for identifier in ids)
    for name, schema in document["components"]["schemas"].items():
        assert schema.get("description"), name


async def test_the_create_body_is_one_schema_per_ruleset_and_poison_may_leave_out_its_ruleset(client):
    document = await document_of(client)
    schema = document["paths"]["/v1/games"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    components = document["components"]["schemas"]
    variants = [components[member["$ref"].rsplit("/", 1)[1]] for member in schema["oneOf"]]
    assert [variant["properties"]["ruleset"]["const"] for variant in variants] == list(RULESETS)
    for variant, ruleset in zip(variants, RULESETS.values(), strict=True):
        assert variant["additionalProperties"] is False
        players = variant["properties"]["players"]
        assert (players["minItems"], players["maxItems"]) == ruleset.players
        assert ("ruleset" in variant.get("required", [])) is (ruleset is not POISON)
    assert "rounds" in components["PoisonCreate"]["properties"]
    assert "rounds" not in components["PotCreate"]["properties"]


@pytest.mark.parametrize(
    "body",
    [
        {"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]},
        {"ruleset": "pot", "players": [{"name": "a"}, {"name": "b", "bot": "greedy"}], "seed": 2**63 - 1},
        {"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "seed": 2**63},
        {"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "rounds": 21},
        {"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "rules": {"cauldrons": "fixed"}, "rounds": 2},
        {"players": [{"name": "a"}, {"name": "b"}, {"name": "c", "bot": "clever"}]},
        {"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "extra": 1},
        {"ruleset": "pot", "players": [{"name": "a"}, {"name": "b"}], "rounds": 2},
        {"ruleset": "pot", "players": [{"name": "a"}]},
        {"players": [{"name": "a"}, {"name": "b"}]},
        {"players": [{"name": ""}, {"name": "b"}, {"name": "c"}]},
        {"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "seed": -1},
        {"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "seed": "7"},
    ],
)
async def test_the_documented_create_body_takes_exactly_what_the_service_takes(client, body):
    document = await document_of(client)
    at = pointer("paths", "/v1/games", "post", "requestBody", "content", "application/json", "schema")
    documented = validator_at(document, at).is_valid(body)
    answer = await client.post("/v1/games", json=body)
    assert answer.status_code == (201 if documented else 400), answer.text


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"ruleset": "chess", "players": [{"name": "a"}, {"name": "b"}]}, "'poison'"),
        ({"ruleset": "pot", "players": [{"name": "a"}, {"name": "b"}], "rounds": 2}, "rounds"),
        ({"ruleset": "pot", "players": [{"name": "a"}, {"name": "b"}], "rules": {"cauldrons": "fixed"}}, "rules"),
        ({"ruleset": "pot", "players": [{"name": "a"}]}, "players"),
        ({"players": [{"name": "a"}, {"name": "b"}]}, "players"),
        ({"ruleset": 3, "players": [{"name": "a"}, {"name": "b"}]}, "ruleset"),
        ([], "body"),
    ],
)
async def test_a_create_body_another_ruleset_would_take_is_400_naming_what_is_wrong(client, body, says):
    response = await client.post("/v1/games", json=body)
    assert response.status_code == 400, response.text
    problem = response.json()
    assert problem["code"] == "invalid_request"
    assert says in problem["detail"]
    assert (await client.get("/v1/games")).json()["games"] == []


async def test_the_answers_the_service_gives_are_valid_for_the_schemas_the_document_names(client):
    """A game of each ruleset, played a little, read every way: each answer is valid for its schema."""
    document = await document_of(client)
    for players, options in ((3, {"rounds": 1}), (2, {"ruleset": "pot"})):
        created, tokens = await create(client, players, bots={1: "greedy", 2: "random"}, **options)
        assert validator(document, "GameCreatedOut").is_valid(created)
        game_id, token = created["game_id"], tokens[0]
        for _ in range(3):
            seen = await view(client, game_id, token)
            legal = seen["you"]["legal_moves"][0]
            played = await client.post(f"/v1/games/{game_id}/moves", json=legal, headers=auth(token))
            assert played.status_code == 201, played.text
            errors = [error.message for error in validator(document, "MovePlayed").iter_errors(played.json())]
            assert errors == []
        log = (await client.get(f"/v1/games/{game_id}/events", headers=auth(token))).json()
        assert [error.message for error in validator(document, "EventLog").iter_errors(log)] == []
        for event in log["events"]:
            member = "PoisonEvent" if "ruleset" not in options else "PotEvent"
            assert validator(document, member).is_valid(event), event
        scores = (await client.get(f"/v1/games/{game_id}/scores")).json()
        assert validator(document, "Scores" if "ruleset" not in options else "PotScores").is_valid(scores)
    listing = (await client.get("/v1/games")).json()
    assert [error.message for error in validator(document, "GameList").iter_errors(listing)] == []


async def test_every_example_in_the_document_is_valid_for_its_schema(client):
    document = await document_of(client)
    checked = 0
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            places = [("requestBody",)] + [("responses", status) for status in operation["responses"]]
            for place in places:
                content = operation
                for part in place:
                    content = content.get(part, {})
                for media_type in ("application/json", "application/problem+json"):
                    media = content.get("content", {}).get(media_type)
                    if media is None:
                        continue
                    shown = [example["value"] for example in media.get("examples", {}).values()]
                    shown += [media["example"]] if "example" in media else []
                    at = validator_at(document, pointer("paths", path, method, *place, "content", media_type, "schema"))
                    for value in shown:
                        assert [error.message for error in at.iter_errors(value)] == [], (path, method, place)
                        checked += 1
    assert checked > 40


async def test_every_problem_code_is_in_the_documents_enum_and_the_services_table(client):
    document = await document_of(client)
    assert set(document["components"]["schemas"]["ProblemCode"]["enum"]) == set(PROBLEMS)
    assert set(PROBLEMS) == set(service_problems.TITLES)
    problem = document["components"]["schemas"]["Problem"]["properties"]
    assert {"current_version", "at_version", "reason", "retry_after"} <= problem.keys()


async def test_the_move_body_is_read_once_by_the_handler_not_by_litestar_too(client):
    assert "data" not in GamesController.play.parsed_fn_signature.parameters
    document = await document_of(client)
    body = document["paths"]["/v1/games/{game_id}/moves"]["post"]["requestBody"]
    assert body["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/PlayCard"}
    headers = {**auth("t" * 43), "content-type": "application/json"}
    played = await client.post("/v1/games/x/moves", content=b'{"card": "R5", "cauldron": "1"}', headers=headers)
    assert played.status_code == 400  # strictly: "1" is no cauldron


async def test_unknown_paths_under_schema_are_problem_json_404_like_every_other(client):
    for path in ("/schema/nope", "/schema/oauth2-redirect.html", "/schema/assets/README.md", "/schema/a/b"):
        answer = await client.get(path)
        assert answer.status_code == 404, path
        assert answer.headers["content-type"].startswith("application/problem+json"), path
        assert answer.json()["code"] == "not_found"
    for page in ("/schema", "/schema/swagger"):
        answer = await client.get(page)
        assert answer.status_code == 200
        assert "/schema/assets/swagger-ui-bundle.js" in answer.text
        assert "http" not in answer.text.replace("http-equiv", "")  # nothing fetched from elsewhere


# ---- every code an operation lists, provoked --------------------------------------------


class Provoker:
    """What the provocations need: the app on the real store, one whose store is down, one
    with tight rate limits, and games in the states a refusal needs."""

    def __init__(
        self,
        client: Client,
        down: Client,
        limited: Client,
        limited_store: EventStore,
        budgeted: Client,
        budgeted_store: EventStore,
        archiver: Archiver,
    ) -> None:
        self.client, self.down, self.limited = client, down, limited
        self.archiver = archiver  # moves the first app's finished games to its archive
        self.limited_store = limited_store  # the tight app's store, to finish a game there without limits
        self.budgeted = budgeted  # an app whose clients' budgets are one playout and one event
        self.budgeted_store = budgeted_store

    async def spend_search_budget(self) -> None:
        """The budgeted app's client searches its one playout: a pot game whose mcts bot plays first."""
        body = {"ruleset": "pot", "players": [{"name": "bot", "bot": "mcts", "playouts": 1}, {"name": "ann"}]}
        assert (await self.budgeted.post("/v1/games", json=body)).status_code == 201

    async def waiting(self, client: Client | None = None) -> tuple[str, str]:
        """A waiting game of Poison: ann at seat 0, seats 1 and 2 open; its id and ann's token."""
        body = {"players": [{"name": "ann"}, {"open": True}, {"open": True}], "rounds": 1}
        created = (await (client or self.client).post("/v1/games", json=body)).json()
        return created["game_id"], created["players"][0]["token"]

    async def join(self, game_id: str, seat: int, name: str, client: Client | None = None, **headers: str) -> Any:
        path = f"/v1/games/{game_id}/seats/{seat}"
        return await (client or self.client).post(path, json={"name": name}, headers=headers)

    async def poison(self, client: Client | None = None, **options: Any) -> tuple[str, dict[int, str], dict]:
        """A game of Poison: two people (seats 0 and 1) and a bot; its id, tokens and the mover's view."""
        created, tokens = await create(client or self.client, 3, bots={2: "greedy"}, seed=11, rounds=1, **options)
        game_id = created["game_id"]
        turn = created["game"]["turn"]
        return game_id, tokens, await view(client or self.client, game_id, tokens[turn])

    async def move(self, game_id: str, token: str, body: Any, **headers: str) -> Any:
        return await self.client.post(f"/v1/games/{game_id}/moves", json=body, headers={**auth(token), **headers})

    async def finished(self) -> tuple[str, str]:
        """A finished game of Poison (one person, two bots): its id and the person's token."""
        created, tokens = await create(self.client, 3, bots={1: "greedy", 2: "random"}, rounds=1, seed=5)
        game_id, token = created["game_id"], tokens[0]
        while (seen := await view(self.client, game_id, token))["status"] == "active":
            assert (await self.move(game_id, token, seen["you"]["legal_moves"][0])).status_code == 201
        return game_id, token

    async def cannot_close(self) -> Any:
        """A pot game played until a card in the person's hand would explode the pot: closing with it."""
        created, tokens = await create(self.client, 2, bots={1: "greedy"}, ruleset="pot", seed=3)
        game_id, token = created["game_id"], tokens[0]
        while (seen := await view(self.client, game_id, token))["status"] == "active":
            legal = {(move["card"], move["close"]) for move in seen["you"]["legal_moves"]}
            refused = [card for card in seen["you"]["hand"] if (card, True) not in legal]
            if refused:
                return await self.move(game_id, token, {"card": refused[0], "close": True})
            highest = max((move for move in seen["you"]["legal_moves"] if not move["close"]), key=lambda m: m["card"])
            assert (await self.move(game_id, token, highest)).status_code == 201
        raise AssertionError("the game ended before any closing was refused")


def _cauldron_of(card: str, seen: dict) -> int:
    colours = {"R": "red", "B": "blue", "P": "purple"}
    colour = colours.get(card[0])
    return next((i for i, c in enumerate(seen["cauldrons"]) if c["color"] == colour), 0)


async def _illegal_cauldron(p: Provoker) -> Any:
    game_id, tokens, seen = await p.poison(rules={"cauldrons": "fixed"})
    legal = {(move["card"], move["cauldron"]) for move in seen["you"]["legal_moves"]}
    card, cauldron = next(
        (card, cauldron) for card in seen["you"]["hand"] for cauldron in range(3) if (card, cauldron) not in legal
    )
    return await p.move(game_id, tokens[seen["turn"]], {"card": card, "cauldron": cauldron})


async def _card_not_in_hand(p: Provoker) -> Any:
    game_id, tokens, seen = await p.poison(rules={"cauldrons": "fixed"})
    card = next(card for card in POISON.card_codes if card not in seen["you"]["hand"])
    return await p.move(game_id, tokens[seen["turn"]], {"card": card, "cauldron": _cauldron_of(card, seen)})


async def _not_your_turn(p: Provoker) -> Any:
    game_id, tokens, seen = await p.poison()
    other = tokens[1 - seen["turn"]]
    return await p.move(game_id, other, seen["you"]["legal_moves"][0])


async def _version_conflict(p: Provoker) -> Any:
    game_id, tokens, seen = await p.poison()
    return await p.move(game_id, tokens[seen["turn"]], {**seen["you"]["legal_moves"][0], "expected_version": 0})


async def _idempotency_key_reused(p: Provoker) -> Any:
    game_id, tokens, seen = await p.poison()
    first, second = seen["you"]["legal_moves"][:2]
    assert (await p.move(game_id, tokens[seen["turn"]], first, **{"Idempotency-Key": "k"})).status_code == 201
    return await p.move(game_id, tokens[seen["turn"]], second, **{"Idempotency-Key": "k"})


async def _move_limited(p: Provoker) -> Any:
    """Moves beyond the limit of a client address (one, here): the second move is 429."""
    game_id, tokens, seen = await p.poison(p.limited)
    path = f"/v1/games/{game_id}/moves"
    mover = tokens[seen["turn"]]
    assert (await p.limited.post(path, json=seen["you"]["legal_moves"][0], headers=auth(mover))).status_code == 201
    after = await view(p.limited, game_id, tokens[0])
    mover = tokens[after["turn"]]
    legal = (await view(p.limited, game_id, mover))["you"]["legal_moves"][0]
    return await p.limited.post(path, json=legal, headers=auth(mover))


async def _create_limited(p: Provoker) -> Any:
    body = {"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}
    for _ in range(2):
        assert (await p.limited.post("/v1/games", json=body)).status_code == 201
    return await p.limited.post("/v1/games", json=body)


async def _game_finished(p: Provoker) -> Any:
    game_id, token = await p.finished()
    return await p.move(game_id, token, {"card": "R1", "cauldron": 0})


async def _streams_beyond(p: Provoker, addresses: list[str]) -> Any:
    """A stream of the tight app's client asked while streams of `addresses` are open there
    (it keeps one stream per address, two in all)."""
    game_id, _, _ = await p.poison(p.limited)
    path = f"/v1/games/{game_id}/events/stream"
    held = [Listened(p.limited, path, address=address) for address in addresses]
    try:
        assert [await stream.opened() for stream in held] == [200] * len(held)
        return await p.limited.get(path)
    finally:
        for stream in held:
            await stream.close()


def _away(client: Client, game_id: str, seat: int, token: str, step: str, **headers: str) -> Any:
    return client.post(f"/v1/games/{game_id}/seats/{seat}/{step}", headers={**auth(token), **headers})


async def _abandoned(p: Provoker, step: str) -> Any:
    """Both people of a game of Poison resign: it is abandoned, and seat 0 then asks `step`."""
    game_id, tokens, _ = await p.poison()
    for seat in (0, 1):
        assert (await _away(p.client, game_id, seat, tokens[seat], "resign")).status_code == 200
    if step == "move":
        return await p.move(game_id, tokens[0], {"card": "R1", "cauldron": 0})
    if step == "rematch":
        return await p.client.post(f"/v1/games/{game_id}/rematch", headers=auth(tokens[0]))
    return await _away(p.client, game_id, 0, tokens[0], step)


async def _seat_away(p: Provoker) -> Any:
    """A seat that resigned moves: a bot plays it."""
    game_id, tokens, seen = await p.poison()
    mover = seen["turn"]
    assert (await _away(p.client, game_id, 1 - mover, tokens[1 - mover], "resign")).status_code == 200
    return await p.move(game_id, tokens[1 - mover], {"card": "R1", "cauldron": 0})


async def _away_waiting(p: Provoker, step: str) -> Any:
    game_id, ann = await p.waiting()
    return await _away(p.client, game_id, 0, ann, step)


async def _away_finished(p: Provoker, step: str) -> Any:
    game_id, token = await p.finished()
    return await _away(p.client, game_id, 0, token, step)


async def _resigned_twice(p: Provoker, step: str) -> Any:
    game_id, tokens, _ = await p.poison()
    assert (await _away(p.client, game_id, 0, tokens[0], "resign")).status_code == 200
    return await _away(p.client, game_id, 0, tokens[0], step)


async def _not_away(p: Provoker) -> Any:
    game_id, tokens, _ = await p.poison()
    return await _away(p.client, game_id, 0, tokens[0], "return")


async def _away_key_reused(p: Provoker, step: str) -> Any:
    """The same seat and key for the other step: another request."""
    game_id, tokens, _ = await p.poison()
    other = "return" if step == "resign" else "resign"
    first = await _away(p.client, game_id, 0, tokens[0], other, **{"Idempotency-Key": "k"})
    assert first.status_code in (200, 409)
    return await _away(p.client, game_id, 0, tokens[0], step, **{"Idempotency-Key": "k"})


async def _away_limited(p: Provoker, step: str) -> Any:
    """Two asks of one client address (the tight app lets it one): the second is 429."""
    game_id, tokens, _ = await p.poison(p.limited)
    assert (await _away(p.limited, game_id, 0, tokens[0], step)).status_code in (200, 409)
    return await _away(p.limited, game_id, 1, tokens[1], step)


async def _resign_over_budget(p: Provoker) -> Any:
    """A resign at a table with an mcts bot (which may answer it), once the client's playout is spent."""
    created, tokens = await create(p.budgeted, 2, bots={1: "mcts"}, ruleset="pot", seed=3)
    await p.spend_search_budget()
    return await _away(p.budgeted, created["game_id"], 0, tokens[0], "resign")


def _away_reads(step: str) -> dict[str, Provocation]:
    async def unauthorized(p: Provoker) -> Any:
        game_id, _, _ = await p.poison()
        return await p.client.post(f"/v1/games/{game_id}/seats/0/{step}")

    return {
        "invalid_request": lambda p: p.client.post(f"/v1/games/nope/seats/99/{step}", headers=_STRANGER),
        "unauthorized": unauthorized,
        "game_not_found": lambda p: p.client.post(f"/v1/games/nope/seats/0/{step}", headers=_STRANGER),
        "store_unavailable": lambda p: p.down.post(f"/v1/games/nope/seats/0/{step}", headers=_STRANGER),
        "game_waiting": lambda p: _away_waiting(p, step),
        "game_finished": lambda p: _away_finished(p, step),
        "game_abandoned": lambda p: _abandoned(p, step),
        "seat_resigned": lambda p: _resigned_twice(p, step),
        "idempotency_key_reused": lambda p: _away_key_reused(p, step),
        "rate_limited": lambda p: _away_limited(p, step),
    }


_TOO_BIG = b'{"players": "' + b"x" * 300_000 + b'"}'
_STRANGER = auth("s" * 43)
_GAME = "/v1/games/{game_id}"
Provocation = Callable[[Provoker], Awaitable[Any]]


def _bodies(path: str) -> dict[str, Provocation]:
    """The codes every operation taking a body at `path` answers: a body too big, and one not JSON."""
    json, plain = {"content-type": "application/json"}, {"content-type": "text/plain"}
    return {
        "payload_too_large": lambda p: p.client.post(path, content=_TOO_BIG, headers=json),
        "unsupported_media_type": lambda p: p.client.post(path, content=b"{}", headers=plain),
    }


def _reads(suffix: str, malformed: Callable[[str], str]) -> dict[str, Provocation]:
    """The codes every read of a game answers; `malformed` makes a path this read refuses (400)."""

    async def invalid(p: Provoker) -> Any:
        game_id, _, _ = await p.poison()
        return await p.client.get(malformed(game_id))

    async def unauthorized(p: Provoker) -> Any:
        game_id, _, _ = await p.poison()
        return await p.client.get(f"/v1/games/{game_id}{suffix}", headers=_STRANGER)

    return {
        "invalid_request": invalid,
        "unauthorized": unauthorized,
        "game_not_found": lambda p: p.client.get(f"/v1/games/nope{suffix}"),
        "store_unavailable": lambda p: p.down.get(f"/v1/games/nope{suffix}"),
    }


def _too_long(suffix: str) -> Callable[[str], str]:
    return lambda game_id: f"/v1/games/{'x' * 65}{suffix}"  # ids are at most 64 characters


async def _export_active(p: Provoker) -> Any:
    game_id, _, _ = await p.poison()
    return await p.client.get(f"/v1/games/{game_id}/export")


async def _move_unauthorized(p: Provoker) -> Any:
    game_id, _, seen = await p.poison()
    return await p.client.post(f"/v1/games/{game_id}/moves", json=seen["you"]["legal_moves"][0])


async def _move_invalid(p: Provoker) -> Any:
    game_id, tokens, seen = await p.poison()
    return await p.move(game_id, tokens[seen["turn"]], {"card": "R5"})


def _with_token(call: Callable[[Provoker, str, dict[str, str]], Awaitable[Any]]) -> Provocation:
    async def provoke(p: Provoker) -> Any:
        game_id, tokens, seen = await p.poison()
        return await call(p, f"/v1/games/{game_id}/moves", auth(tokens[seen["turn"]]))

    return provoke


async def _join_taken(p: Provoker) -> Any:
    game_id, _ = await p.waiting()
    return await p.join(game_id, 0, "bea")  # ann's


async def _join_started(p: Provoker) -> Any:
    game_id, _ = await p.waiting()
    assert (await p.join(game_id, 1, "bea")).status_code == 201
    assert (await p.join(game_id, 2, "cal")).status_code == 201  # the last open seat: the game starts
    return await p.join(game_id, 2, "dee")


async def _join_key_reused(p: Provoker) -> Any:
    game_id, _ = await p.waiting()
    assert (await p.join(game_id, 1, "bea", **{"Idempotency-Key": "k"})).status_code == 201
    return await p.join(game_id, 1, "cal", **{"Idempotency-Key": "k"})


async def _join_limited(p: Provoker) -> Any:
    game_id, _ = await p.waiting(p.limited)
    assert (await p.join(game_id, 1, "bea", p.limited)).status_code == 201
    return await p.join(game_id, 2, "cal", p.limited)


def _leave(client: Client, game_id: str, seat: int, token: str, **headers: str) -> Any:
    return client.delete(f"/v1/games/{game_id}/seats/{seat}", headers={**auth(token), **headers})


async def _leave_unauthorized(p: Provoker) -> Any:
    game_id, _ = await p.waiting()
    return await p.client.delete(f"/v1/games/{game_id}/seats/0")


async def _rematch_unauthorized(p: Provoker) -> Any:
    game_id, _ = await p.finished()
    return await p.client.post(f"/v1/games/{game_id}/rematch")


async def _leave_started(p: Provoker) -> Any:
    game_id, tokens, _ = await p.poison()
    return await _leave(p.client, game_id, 0, tokens[0])


async def _leave_key_reused(p: Provoker) -> Any:
    game_id, ann = await p.waiting()
    assert (await p.join(game_id, 1, "bea")).status_code == 201  # so that the game is not abandoned
    assert (await _leave(p.client, game_id, 0, ann, **{"Idempotency-Key": "k"})).status_code == 204
    # The same caller (its token) and key, another seat: another caller's would be a request of its own.
    return await _leave(p.client, game_id, 1, ann, **{"Idempotency-Key": "k"})


async def _leave_limited(p: Provoker) -> Any:
    game_id, ann = await p.waiting(p.limited)
    assert (await p.join(game_id, 1, "bea", p.limited)).status_code == 201
    return await _leave(p.limited, game_id, 0, ann)


async def _rematch_active(p: Provoker) -> Any:
    game_id, tokens, _ = await p.poison()
    return await p.client.post(f"/v1/games/{game_id}/rematch", headers=auth(tokens[0]))


async def _rematch_archived(p: Provoker) -> Any:
    game_id, token = await p.finished()
    assert (await p.archiver.pass_once()).games >= 1
    return await p.client.post(f"/v1/games/{game_id}/rematch", headers=auth(token))


async def _rematch_limited(p: Provoker) -> Any:
    """Rematches beyond the limit of a client address (one): a game finished on the tight
    app's store (played there without limits), then its rematch claimed twice."""
    games, keys = Games(p.limited_store), process_key()  # the key of an app given none
    token = keys.new_token()
    players = (Player(seat=0, name="a"), Player(seat=1, name="b", bot="greedy"), Player(seat=2, name="c", bot="random"))
    game_id = new_game_id()
    _, logged = await games.create(
        game_id, players, seed=5, token_hashes={0: keys.verifier(token)}, created_ms=1, options={"rounds": 1}
    )
    while not logged.finished:
        _, logged = await games.play(game_id, 0, *logged.game.legal_moves()[0])
    assert (await p.limited.post(f"/v1/games/{game_id}/rematch", headers=auth(token))).status_code == 201
    return await p.limited.post(f"/v1/games/{game_id}/rematch", headers=auth(token))


_BAD_LOG = {"events": [{"version": 2, "type": "game_created", "data": {}}]}
_SEARCHING = {"ruleset": "pot", "players": [{"name": "bot", "bot": "mcts", "playouts": 1}, {"name": "ann"}]}
_ANSWERED = {"ruleset": "pot", "players": [{"name": "ann"}, {"name": "bot", "bot": "mcts", "playouts": 1}]}


async def _create_over_budget(p: Provoker) -> Any:
    await p.spend_search_budget()
    return await p.budgeted.post("/v1/games", json=_SEARCHING)


async def _move_over_budget(p: Provoker) -> Any:
    """A person's move that its mcts bot would answer, once the client's playout is spent."""
    created, tokens = await create(p.budgeted, 2, bots={1: "mcts"}, ruleset="pot", seed=3)
    await p.spend_search_budget()
    game_id = created["game_id"]
    move = (await view(p.budgeted, game_id, tokens[0]))["you"]["legal_moves"][0]
    return await p.budgeted.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(tokens[0]))


async def _join_over_budget(p: Provoker) -> Any:
    body = {"ruleset": "pot", "players": [{"open": True}, {"name": "bot", "bot": "mcts", "playouts": 1}]}
    game_id = (await p.budgeted.post("/v1/games", json=body)).json()["game_id"]
    await p.spend_search_budget()
    return await p.join(game_id, 0, "bea", p.budgeted)


async def _rematch_over_budget(p: Provoker) -> Any:
    """The rematch of a finished game with an mcts seat (finished through the games layer on
    the budgeted app's store, unbudgeted), once the client's playout is spent."""
    games, keys = Games(p.budgeted_store), process_key()  # the key of an app given none
    token = keys.new_token()
    players = (Player(seat=0, name="a", bot="mcts", playouts=1), Player(seat=1, name="b"))
    game_id = new_game_id()
    _, logged = await games.create(
        game_id, players, seed=5, token_hashes={1: keys.verifier(token)}, created_ms=1, ruleset="pot"
    )
    while not logged.finished:
        _, logged = await games.play(game_id, 1, *logged.game.legal_moves()[0])
    await p.spend_search_budget()
    return await p.budgeted.post(f"/v1/games/{game_id}/rematch", headers=auth(token))


def _searched_log() -> dict[str, Any]:
    """A finished pot game's log whose mcts seat searched one playout a move."""
    table = (Player(seat=0, name="ana"), Player(seat=1, name="bob", bot="mcts", playouts=1))
    log, logged = create_game("pot", "g", table, seed=3, options={})
    while not logged.finished:
        caused, logged = play_move(logged, 0, tuple(logged.game.legal_moves()[0]))
        log += caused
    return {"events": [msgspec.to_builtins(to_public(version, event)) for version, event in enumerate(log, start=1)]}


async def _replay_over_search_budget(p: Provoker) -> Any:
    await p.spend_search_budget()
    return await p.budgeted.post("/v1/replays", json=_searched_log())


async def _replay_over_rebuild_budget(p: Provoker) -> Any:
    assert (await p.budgeted.post("/v1/replays", json=examples()["replay"])).status_code == 200  # a full budget
    return await p.budgeted.post("/v1/replays", json=examples()["replay"])


async def _travel_over_rebuild_budget(p: Provoker) -> Any:
    game_id, _, _ = await p.poison(p.budgeted)
    assert (await p.budgeted.get(f"/v1/games/{game_id}?version=1")).status_code == 200  # a full budget
    return await p.budgeted.get(f"/v1/games/{game_id}?version=2")


def _search_limit(p: Provoker) -> Any:
    """A pot game's log whose mcts seat says the engine's most playouts: checking it would search too long."""
    table = (Player(seat=0, name="ana"), Player(seat=1, name="bob", bot="mcts", playouts=1))
    log, logged = create_game("pot", "g", table, seed=3, options={})
    while not logged.finished:
        caused, logged = play_move(logged, 0, tuple(logged.game.legal_moves()[0]))
        log += caused
    events = [msgspec.to_builtins(to_public(version, event)) for version, event in enumerate(log, start=1)]
    events[0]["data"]["players"][1]["playouts"] = 200_000
    return p.client.post("/v1/replays", json={"events": events})


PROVOKE: dict[str, dict[str, Provocation]] = {
    "create_game": {
        "invalid_request": lambda p: p.client.post("/v1/games", json={"players": [{"name": "a"}] * 3}),
        **_bodies("/v1/games"),
        "rate_limited": _create_limited,
        "search_budget": _create_over_budget,
        "store_unavailable": lambda p: p.down.post(
            "/v1/games", json={"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}
        ),
        "playouts_without_search": lambda p: p.client.post(
            "/v1/games", json={"ruleset": "pot", "players": [{"name": "a", "playouts": 10}, {"name": "b"}]}
        ),
        "search_without_person": lambda p: p.client.post(
            "/v1/games",
            json={"ruleset": "pot", "players": [{"name": "a", "bot": "mcts"}, {"name": "b", "bot": "greedy"}]},
        ),
        "seed_with_open_seats": lambda p: p.client.post(
            "/v1/games", json={"players": [{"name": "a"}, {"open": True}, {"name": "c"}], "seed": 31337}
        ),
    },
    "list_games": {
        "invalid_request": lambda p: p.client.get("/v1/games?limit=0"),
        "store_unavailable": lambda p: p.down.get("/v1/games"),
    },
    "get_game": {
        **_reads("", lambda game_id: f"/v1/games/{game_id}?version=999"),
        "rebuild_budget": _travel_over_rebuild_budget,
    },
    "play_move": {
        "invalid_request": _move_invalid,
        "unauthorized": _move_unauthorized,
        "game_not_found": lambda p: p.client.post("/v1/games/nope/moves", json={"card": "R5", "cauldron": 0}),
        "store_unavailable": lambda p: p.down.post(
            "/v1/games/nope/moves", json={"card": "R5", "cauldron": 0}, headers=_STRANGER
        ),
        "not_your_turn": _not_your_turn,
        "game_finished": _game_finished,
        "game_abandoned": lambda p: _abandoned(p, "move"),
        "seat_away": _seat_away,
        "version_conflict": _version_conflict,
        "payload_too_large": _with_token(
            lambda p, path, h: p.client.post(path, content=_TOO_BIG, headers={**h, "content-type": "application/json"})
        ),
        "unsupported_media_type": _with_token(
            lambda p, path, h: p.client.post(path, content=b"{}", headers={**h, "content-type": "text/plain"})
        ),
        "card_not_in_hand": _card_not_in_hand,
        "illegal_cauldron": _illegal_cauldron,
        "cannot_close": lambda p: p.cannot_close(),
        "idempotency_key_reused": _idempotency_key_reused,
        "rate_limited": _move_limited,
        "search_budget": _move_over_budget,
    },
    "join_seat": {
        "invalid_request": lambda p: p.client.post("/v1/games/nope/seats/1", json={"name": ""}),
        "game_not_found": lambda p: p.join("nope", 1, "bea"),
        "store_unavailable": lambda p: p.join("nope", 1, "bea", p.down),
        "seat_taken": _join_taken,
        "game_started": _join_started,
        **_bodies("/v1/games/nope/seats/1"),
        "idempotency_key_reused": _join_key_reused,
        "rate_limited": _join_limited,
        "search_budget": _join_over_budget,
    },
    "leave_seat": {
        "invalid_request": lambda p: p.client.delete("/v1/games/nope/seats/99", headers=_STRANGER),
        "unauthorized": _leave_unauthorized,
        "game_not_found": lambda p: p.client.delete("/v1/games/nope/seats/0", headers=_STRANGER),
        "store_unavailable": lambda p: p.down.delete("/v1/games/nope/seats/0", headers=_STRANGER),
        "game_started": _leave_started,
        "idempotency_key_reused": _leave_key_reused,
        "rate_limited": _leave_limited,
    },
    "resign_seat": {**_away_reads("resign"), "search_budget": _resign_over_budget},
    "return_to_seat": {**_away_reads("return"), "seat_not_away": _not_away},
    "rematch": {
        "invalid_request": lambda p: p.client.post(_too_long("/rematch")("")),
        "unauthorized": _rematch_unauthorized,
        "game_not_found": lambda p: p.client.post("/v1/games/nope/rematch", headers=_STRANGER),
        "store_unavailable": lambda p: p.down.post("/v1/games/nope/rematch", headers=_STRANGER),
        "game_active": _rematch_active,
        "game_abandoned": lambda p: _abandoned(p, "rematch"),
        "game_archived": _rematch_archived,
        "rate_limited": _rematch_limited,
        "search_budget": _rematch_over_budget,
    },
    "get_scores": _reads("/scores", _too_long("/scores")),
    "get_events": _reads("/events", lambda game_id: f"/v1/games/{game_id}/events?limit=0"),
    "stream_events": {
        **_reads("/events/stream", lambda game_id: f"/v1/games/{game_id}/events/stream?after=999"),
        "too_many_streams": lambda p: _streams_beyond(p, ["testclient"]),  # the test client's own address
        "streams_full": lambda p: _streams_beyond(p, ["10.0.0.1", "10.0.0.2"]),
    },
    "export_log": {**_reads("/export", _too_long("/export")), "game_active": _export_active},
    "replay_log": {
        "invalid_request": lambda p: p.client.post("/v1/replays", json={"events": 3}),
        **_bodies("/v1/replays"),
        "invalid_log": lambda p: p.client.post("/v1/replays", json=_BAD_LOG),
        "search_limit": _search_limit,
        "search_budget": _replay_over_search_budget,
        "rebuild_budget": _replay_over_rebuild_budget,
    },
    "get_health": {"store_unavailable": lambda p: p.down.get("/health")},
    "get_ready": {"store_unavailable": lambda p: p.down.get("/health/ready")},
    "get_live": {},
}


@pytest.fixture
async def provoker(client: Client, settings: Settings, namespace: str) -> AsyncIterator[Provoker]:
    down = Settings(redis_url="redis://127.0.0.1:1/0", namespace=namespace, store_timeout=1.0)
    tight = msgspec.structs.replace(
        settings,
        namespace=f"{namespace}-limited",
        create_rate=0.01,
        create_burst=2,
        move_rate=0.01,
        move_burst=1,
        client_streams=1,
        max_connections=4,
        stream_share=0.5,
    )
    budgets = msgspec.structs.replace(
        settings,
        namespace=f"{namespace}-budgeted",
        search_budget=1,
        search_burst=1,
        rebuild_rate=0.001,
        rebuild_burst=1,
    )
    store = EventStore.from_url(settings.redis_url, namespace=tight.namespace)
    budgeted_store = EventStore.from_url(settings.redis_url, namespace=budgets.namespace)
    archived_store = EventStore.from_url(
        settings.redis_url, namespace=settings.namespace, archive=Archive(settings.archive_location())
    )
    async with (
        AsyncTestClient(create_app(down)) as unreachable,
        AsyncTestClient(create_app(tight)) as limited,
        AsyncTestClient(create_app(budgets)) as budgeted,
    ):
        yield Provoker(
            client, unreachable, limited, store, budgeted, budgeted_store, archived_store.archiver(after_ms=0)
        )
    await store.close()
    await budgeted_store.close()
    await archived_store.close()


def test_every_operation_has_a_provocation_for_each_code_it_lists_and_none_other():
    assert {operation: set(codes) for operation, codes in PROVOKE.items()} == {
        operation: set(codes) for operation, codes in CODES_OF.items()
    }


@pytest.mark.parametrize("operation_id", sorted(CODES_OF))
async def test_each_code_an_operation_lists_is_answered_there_as_its_example_shows(client, provoker, operation_id):
    document = await document_of(client)
    operation = next(
        operation
        for operations in document["paths"].values()
        for operation in operations.values()
        if operation["operationId"] == operation_id
    )
    for code, provoke in PROVOKE[operation_id].items():
        answer = await provoke(provoker)
        assert (answer.status_code, answer.json().get("code")) == (STATUS_OF[code], code), (code, answer.text)
        assert answer.headers["content-type"].startswith("application/problem+json")
        documented = operation["responses"][str(STATUS_OF[code])]
        example = documented["content"]["application/problem+json"]["examples"][code]["value"]
        body = answer.json()
        assert {key: body[key] for key in ("type", "title", "status", "code")} == {
            key: example[key] for key in ("type", "title", "status", "code")
        }
        assert set(body) == set(example), code
        assert "x-poison-worker" in answer.headers
        if "retry_after" in body:
            assert int(answer.headers["retry-after"]) == body["retry_after"]
        if "retry-after" in answer.headers:  # a header sent is a header documented, for clients generated
            assert "Retry-After" in documented["headers"], (code, documented["headers"])


async def test_a_new_game_answers_with_its_location_and_every_answer_names_its_worker(client):
    document = await document_of(client)
    created = await client.post("/v1/games", json={"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]})
    assert created.headers["location"] == f"/v1/games/{created.json()['game_id']}"
    assert "Location" in document["paths"]["/v1/games"]["post"]["responses"]["201"]["headers"]
    for path in ("/v1/games", created.headers["location"], "/health"):
        assert (await client.get(path)).headers["x-poison-worker"].isdigit()


async def test_the_examples_are_real_games_the_service_replays(client):
    shown = examples()
    replayed = await client.post("/v1/replays", json=shown["replay"])
    assert replayed.status_code == 200, replayed.text
    assert replayed.json() == shown["replayed"]
    exported = await client.post(
        "/v1/replays", content=shown["export"], headers={"content-type": "application/x-ndjson"}
    )
    assert exported.json() == shown["replayed"]
    assert json.loads(shown["stream"].split("data: ", 1)[1].split("\n", 1)[0]) == shown["played"]["events"][0]


# ---- the page, in a real browser -----------------------------------------------------------


@pytest.mark.browser
@pytest.mark.subprocess
def test_the_swagger_page_renders_from_the_service_alone_and_plays_a_move_with_a_token(tmp_path: Path):
    from playwright.sync_api import sync_playwright

    from tests.browser.chromium import CHROMIUM, LAUNCH_ARGS, install_chromium
    from tests.service.served import serving

    install_chromium()
    with serving(tmp_path / "store") as base, sync_playwright() as playwright:
        import httpx

        created = httpx.post(
            f"{base}/v1/games", json={"players": [{"name": "ana"}, {"name": "bob", "bot": "greedy"}, {"name": "cy"}]}
        ).json()
        game_id = created["game_id"]
        turn = created["game"]["turn"]
        token = created["players"][turn]["token"]
        move = httpx.get(f"{base}/v1/games/{game_id}", headers=auth(token)).json()["you"]["legal_moves"][0]

        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        page = browser.new_page()
        elsewhere: list[str] = []

        def only_the_service(route: Any) -> None:
            if route.request.url.startswith(base):
                route.continue_()
            else:
                elsewhere.append(route.request.url)
                route.abort()

        page.route("**/*", only_the_service)
        page.goto(f"{base}/schema/swagger")
        page.wait_for_selector(".opblock", timeout=30_000)
        document = httpx.get(f"{base}/schema/openapi.json").json()
        operations = sum(len(operations) for operations in document["paths"].values())
        assert page.locator(".opblock").count() == operations

        page.click("button.authorize")
        page.fill(".modal-ux input", token)
        page.click(".modal-ux button.authorize")
        page.click(".modal-ux button.btn-done")
        block = page.locator("#operations-games-play_move")
        block.locator(".opblock-summary").click()
        block.locator("button.try-out__btn").click()
        block.locator("input[placeholder='game_id']").fill(game_id)
        block.locator("textarea.body-param__text").fill(
            json.dumps({"card": move["card"], "cauldron": move["cauldron"]})
        )
        block.locator("button.execute").click()
        status = block.locator(".live-responses-table .response .response-col_status").first
        status.wait_for(timeout=30_000)
        assert status.inner_text().strip().startswith("201"), block.locator(".live-responses-table").inner_text()
        browser.close()
        played = httpx.get(f"{base}/v1/games/{game_id}/events?limit=5000").json()["events"]
    assert elsewhere == []
    assert any(e["type"] == "card_played" and e["data"]["seat"] == turn for e in played)  # played by Swagger only
