"""The OpenAPI document tells the truth about the bodies that differ by ruleset."""

from __future__ import annotations

import msgspec
import pytest

from core.rulesets import RULESETS
from service.schemas import PoisonCreate, PotCreate

pytestmark = pytest.mark.anyio


async def test_the_create_body_is_one_schema_per_ruleset_told_apart_by_ruleset(client):
    document = (await client.get("/schema/openapi.json")).json()
    body = document["paths"]["/v1/games"]["post"]["requestBody"]
    assert body["required"] is True
    schema = body["content"]["application/json"]["schema"]
    assert schema["discriminator"]["propertyName"] == "ruleset"
    mapping = schema["discriminator"]["mapping"]
    assert set(mapping) == set(RULESETS)
    components = document["components"]["schemas"]
    for name, ref in mapping.items():
        variant = components[ref.rsplit("/", 1)[1]]
        assert variant["properties"]["ruleset"] == {"enum": [name]}
        assert variant["additionalProperties"] is False
        players = variant["properties"]["players"]
        assert (players["minItems"], players["maxItems"]) == RULESETS[name].players
    assert "rounds" in components["PoisonCreate"]["properties"]
    assert "rounds" not in components["PotCreate"]["properties"]


async def test_the_documented_create_bodies_are_the_ones_that_decode_a_request(client):
    document = (await client.get("/schema/openapi.json")).json()
    schemas = document["components"]["schemas"]
    for body in (PoisonCreate, PotCreate):
        _, expected = msgspec.json.schema_components([body], ref_template="#/components/schemas/{name}")
        assert schemas[body.__name__] == expected[body.__name__]


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
