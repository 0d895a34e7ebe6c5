"""Tests written once and run for every ruleset of core.rulesets.RULESETS (as OpenSpiel's
generic tests run over every registered game): a new ruleset gets them by being registered."""

from __future__ import annotations

import msgspec
import pytest

from core.rulesets import RULESETS, Ruleset
from tests.rulesets import EVERY_RULESET
from tests.service.api import auth, create, view

pytestmark = pytest.mark.anyio


def best(totals: list[int], ruleset: Ruleset) -> list[int]:
    """The winners the ruleset's `lowest_wins` makes of these totals."""
    target = min(totals) if ruleset.lowest_wins else max(totals)
    return [seat for seat, total in enumerate(totals) if total == target]


@EVERY_RULESET
async def test_a_game_of_bots_only_is_finished_at_creation_and_its_export_replays_to_the_same_totals(client, ruleset):
    players = ruleset.players[0]
    bots = {seat: ruleset.bots[seat % len(ruleset.bots)] for seat in range(players)}
    created, tokens = await create(client, players, bots=bots, seed=2026, ruleset=ruleset.name)
    assert tokens == {}
    game = created["game"]
    assert (game["ruleset"], game["status"], game["turn"]) == (ruleset.name, "finished", None)
    assert game["winners"] == best(game["totals"], ruleset)
    exported = await client.get(f"/v1/games/{created['game_id']}/export")
    assert exported.status_code == 200, exported.text
    lines = [msgspec.json.decode(line) for line in exported.content.splitlines()]
    assert lines[0]["data"]["ruleset"] == ruleset.name
    assert lines[0]["data"]["seed"] == 2026
    assert lines[-1] == {
        "version": game["version"],
        "type": "game_finished",
        "data": {"totals": game["totals"], "winners": game["winners"]},
    }
    replayed = await client.post(
        "/v1/replays", content=exported.content, headers={"content-type": "application/x-ndjson"}
    )
    assert replayed.status_code == 200, replayed.text
    body = replayed.json()
    assert body["version"] == game["version"]
    assert (body["game"]["ruleset"], body["scores"]["ruleset"]) == (ruleset.name, ruleset.name)
    assert (body["scores"]["totals"], body["scores"]["winners"]) == (game["totals"], game["winners"])
    assert body["scores"] == (await client.get(f"/v1/games/{created['game_id']}/scores")).json()
    assert "all" in body["game"]


@EVERY_RULESET
async def test_a_human_against_random_bots_played_with_the_first_legal_move_ends_with_the_rulesets_winners(
    client, ruleset
):
    players = ruleset.players[0]
    bots = dict.fromkeys(range(1, players), "random")
    created, tokens = await create(client, players, bots=bots, seed=77, ruleset=ruleset.name)
    game_id = created["game_id"]
    assert set(tokens) == {0}
    moves = 0
    while (game := await view(client, game_id, tokens[0]))["status"] == "active":
        assert game["ruleset"] == ruleset.name
        assert game["turn"] == 0  # bots move at once, so a live read always waits for the human
        legal = game["you"]["legal_moves"]
        assert legal
        assert all(move["card"] in ruleset.card_codes for move in legal)
        response = await client.post(f"/v1/games/{game_id}/moves", json=legal[0], headers=auth(tokens[0]))
        assert response.status_code == 201, response.text
        body = response.json()
        assert body["events"][0]["type"] == "card_played"
        assert body["events"][0]["data"]["card"] == legal[0]["card"]
        assert body["game"]["version"] == body["version"]
        moves += 1
    assert moves > 0
    assert game["turn"] is None
    assert game["you"]["legal_moves"] == []
    assert game["winners"] == best(game["totals"], ruleset)
    scores = (await client.get(f"/v1/games/{game_id}/scores")).json()
    assert (scores["ruleset"], scores["status"]) == (ruleset.name, "finished")
    assert (scores["totals"], scores["winners"]) == (game["totals"], game["winners"])


@EVERY_RULESET
async def test_a_game_of_every_ruleset_refuses_a_card_of_no_ruleset_and_a_player_too_many(client, ruleset):
    low, high = ruleset.players
    too_many = {"ruleset": ruleset.name, "players": [{"name": f"p{s}"} for s in range(high + 1)]}
    assert (await client.post("/v1/games", json=too_many)).status_code == 400
    too_few = {"ruleset": ruleset.name, "players": [{"name": f"p{s}"} for s in range(low - 1)]}
    assert (await client.post("/v1/games", json=too_few)).status_code == 400
    created, tokens = await create(client, low, ruleset=ruleset.name)
    response = await client.post(f"/v1/games/{created['game_id']}/moves", json={"card": "X1"}, headers=auth(tokens[0]))
    assert (response.status_code, response.json()["code"]) == (400, "invalid_request")
    assert (await view(client, created["game_id"]))["version"] == created["game"]["version"]


def resolve(document: dict, schema: dict) -> dict:
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def game_view_unions(document: dict) -> list[dict]:
    """Every schema in the document that is a choice between game views (the read route,
    and the `game` of a creation, a move and a replay)."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            choices = node.get("oneOf") or node.get("anyOf")
            if choices and all("$ref" in c for c in choices):
                names = {c["$ref"].rsplit("/", 1)[-1] for c in choices}
                if any("GameView" in name for name in names):
                    found.append(node)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(document)
    return found


@EVERY_RULESET
async def test_the_openapi_document_names_the_rulesets_game_view_in_every_union_of_game_views(client, ruleset):
    document = (await client.get("/schema/openapi.json")).json()
    unions = game_view_unions(document)
    assert len(unions) >= 4  # read, create, move, replay
    for union in unions:
        variants = [resolve(document, choice) for choice in union.get("oneOf") or union["anyOf"]]
        tags = [variant["properties"]["ruleset"].get("const") for variant in variants]
        assert sorted(tags) == sorted(RULESETS)
        assert all("ruleset" in variant["required"] for variant in variants)
        ours = next(variant for variant in variants if variant["properties"]["ruleset"]["const"] == ruleset.name)
        assert {"game_id", "version", "status", "turn", "players", "totals", "winners"} <= set(ours["required"])


@EVERY_RULESET
async def test_the_openapi_document_gives_every_union_of_game_views_a_discriminator_on_ruleset(client, ruleset):
    document = (await client.get("/schema/openapi.json")).json()
    unions = game_view_unions(document)
    assert unions
    for union in unions:
        discriminator = union.get("discriminator")
        assert discriminator is not None, f"no discriminator on {union}"
        assert discriminator["propertyName"] == "ruleset"
        mapping = discriminator.get("mapping", {})
        assert ruleset.name in mapping
        assert resolve(document, {"$ref": mapping[ruleset.name]})["properties"]["ruleset"]["const"] == ruleset.name
