"""The parts of the OpenAPI document that Litestar cannot derive from a handler's signature.

A new game's body is a union tagged by `ruleset` whose tag may be left out (a body that
names no ruleset is Poison's, as every body was before the pot game). No union decoder
allows a default tag, so the create handler reads its body itself (service.dependencies.
create_body) and takes no `data` parameter, and Litestar documents no body for it. The
document served at /schema/openapi.json gets it here: one schema per ruleset, told apart by
a discriminator on `ruleset`, generated from the very msgspec Structs that decode the body,
so the document cannot drift from it. Answers that differ by ruleset (a game's view, its
score sheet) are tagged unions, which Litestar writes as a bare oneOf: they get their
discriminator here too. It is added as the document is first rendered (the
render plugin is Litestar's extension point for that), not when the app is made: building
the document costs a quarter of a second, which every app would pay.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request
from litestar.openapi.plugins import JsonRenderPlugin

from service.schemas import AnyGameView, AnyScores, PoisonCreate, PotCreate

CREATE_PATH = "/v1/games"
_REF = "#/components/schemas/{name}"
_BODIES = (PoisonCreate, PotCreate)
_, _SCHEMAS = msgspec.json.schema_components(_BODIES, ref_template=_REF)
_MAPPING = {body.__struct_config__.tag: _REF.format(name=body.__name__) for body in _BODIES}
_CREATE_BODY = {
    "required": True,
    "description": "The new game: its players and, by ruleset, its options. `ruleset` may be left out "
    "(the game is then Poison).",
    "content": {
        "application/json": {
            "schema": {
                "oneOf": [{"$ref": ref} for ref in _MAPPING.values()],
                "discriminator": {"propertyName": "ruleset", "mapping": _MAPPING},
            }
        }
    },
}


#: Every union of answers that differ by ruleset: the set of its members' schema references,
#: and its discriminator. (Litestar writes a union as a bare oneOf.)
_TAGGED_UNIONS = {
    frozenset(_REF.format(name=member.__name__) for member in union.__args__): {
        "propertyName": "ruleset",
        "mapping": {member.__struct_config__.tag: _REF.format(name=member.__name__) for member in union.__args__},
    }
    for union in (AnyGameView, AnyScores)
}


def document_bodies(document: dict[str, Any]) -> None:
    """Add the create body and its schemas to a rendered document, and a discriminator to
    every union of answers told apart by `ruleset`; in place (idempotent)."""
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in _SCHEMAS.items():
        schemas.setdefault(name, schema)
    document["paths"][CREATE_PATH]["post"]["requestBody"] = _CREATE_BODY
    _discriminate(document)


def _discriminate(node: object) -> None:
    if isinstance(node, dict):
        members = node.get("oneOf")
        if isinstance(members, list):
            refs = frozenset(member.get("$ref") for member in members if isinstance(member, dict))
            if refs in _TAGGED_UNIONS:
                node["discriminator"] = _TAGGED_UNIONS[refs]
        for value in node.values():
            _discriminate(value)
    elif isinstance(node, list):
        for value in node:
            _discriminate(value)


class DocumentedJson(JsonRenderPlugin):
    """/schema/openapi.json, with the bodies Litestar cannot see (Swagger and Scalar read it)."""

    def render(self, request: Request, openapi_schema: dict[str, Any]) -> bytes:
        document_bodies(openapi_schema)  # Litestar keeps this dict: the first render fills it
        return super().render(request, openapi_schema)
