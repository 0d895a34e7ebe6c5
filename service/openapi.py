"""The parts of the OpenAPI document that Litestar cannot derive from a handler's signature.

A new game's body is a union tagged by `ruleset` whose tag may be left out (a body that
names no ruleset is Poison's, as every body was before the pot game). No union decoder
allows a default tag, so the create handler reads its body itself (service.dependencies.
create_body) and takes no `data` parameter, and Litestar documents no body for it. The
document served at /schema/openapi.json gets it here: one schema per ruleset, told apart by
a discriminator on `ruleset`, generated from the very msgspec Structs that decode the body,
so the document cannot drift from it. It is added as the document is first rendered (the
render plugin is Litestar's extension point for that), not when the app is made: building
the document costs a quarter of a second, which every app would pay.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request
from litestar.openapi.plugins import JsonRenderPlugin

from service.schemas import PoisonCreate, PotCreate

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


def document_bodies(document: dict[str, Any]) -> None:
    """Add the create body and its schemas to a rendered document, in place (idempotent)."""
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in _SCHEMAS.items():
        schemas.setdefault(name, schema)
    document["paths"][CREATE_PATH]["post"]["requestBody"] = _CREATE_BODY


class DocumentedJson(JsonRenderPlugin):
    """/schema/openapi.json, with the bodies Litestar cannot see (Swagger and Scalar read it)."""

    def render(self, request: Request, openapi_schema: dict[str, Any]) -> bytes:
        document_bodies(openapi_schema)  # Litestar keeps this dict: the first render fills it
        return super().render(request, openapi_schema)
