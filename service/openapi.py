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

The rest of what the service does and Litestar does not see (`complete`), so that a client
generated from the document, or schemathesis, meets the service it describes:

- every request body's schema is msgspec's, from the Struct that decodes it: with
  `additionalProperties: false` (unknown fields are refused) and every bound (Litestar's own
  drops a minimum of 0);
- the replay's body, which its handler reads itself: JSON `{"events": [...]}` or NDJSON;
- the live stream's answer, `text/event-stream`;
- HEAD beside every GET (service.app.answer_head), its answers without a body;
- 415 `unsupported_media_type` on every route with a body, and the listing's cursor as the
  store writes it (a string of another shape is 400).
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin, ScalarRenderPlugin, SwaggerRenderPlugin

from events.codec import PublicEvent
from events.store import CURSOR
from service.controllers.replays import MEDIA_TYPES as REPLAY_MEDIA_TYPES
from service.schemas import AnyGameView, AnyScores, PlayCard, PoisonCreate, PotCreate, ReplayBody
from service.settings import Settings

CREATE_PATH = "/v1/games"
_REF = "#/components/schemas/{name}"
_BODIES = (PoisonCreate, PotCreate)
_, _SCHEMAS = msgspec.json.schema_components(_BODIES, ref_template=_REF)
#: Bodies Litestar documents from a handler's `data` but without their bounds and without
#: `additionalProperties: false`, and those a handler reads itself: msgspec's schemas replace them.
_, _OTHER_BODIES = msgspec.json.schema_components((PlayCard, ReplayBody, PublicEvent), ref_template=_REF)
_OTHER_BODIES["ReplayBody"]["properties"]["events"]["items"] = {"$ref": _REF.format(name="PublicEvent")}
_OTHER_BODIES["PublicEvent"]["description"] = "An event as /events and /export show it: one line of an exported log."
REPLAY_PATH = "/v1/replays"
STREAM_PATH = "/v1/games/{game_id}/events/stream"
_REPLAY_BODY = {
    "required": True,
    "description": "A log: exported NDJSON (one event per line; blank lines are skipped) or JSON "
    '`{"events": [...]}`, the same event objects.',
    "content": {
        media: (
            {"schema": {"$ref": _REF.format(name="ReplayBody")}}
            if media == "application/json"
            else {"schema": {"type": "string", "description": "one event object (PublicEvent) per line"}}
        )
        for media in REPLAY_MEDIA_TYPES
    },
}
_STREAM_ANSWER = {
    "text/event-stream": {
        # Before OpenAPI 3.2, the schema of an event stream describes each of its events.
        "schema": {
            "type": "object",
            "description": "One Server-Sent Event: `id` the event's version, `event` its type, `data` the event "
            "object as /events shows it. The stream ends after game_finished.",
            "required": ["id", "event", "data"],
            "properties": {
                "id": {"type": "string", "pattern": "^[1-9][0-9]*$"},
                "event": {"type": "string"},
                "data": {
                    "type": "string",
                    "contentMediaType": "application/json",
                    "contentSchema": {"$ref": _REF.format(name="EventOut")},
                },
            },
        }
    }
}
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
    complete(document)


def complete(document: dict[str, Any]) -> None:
    """What the service does that Litestar cannot see (the module's docstring lists it); in
    place, idempotent."""
    schemas = document["components"]["schemas"]
    schemas.update(_OTHER_BODIES)
    paths = document["paths"]
    paths[REPLAY_PATH]["post"]["requestBody"] = _REPLAY_BODY
    stream = paths[STREAM_PATH]["get"]["responses"]["200"]
    stream["content"] = _STREAM_ANSWER
    stream["description"] = "the log, live"
    for parameter in paths[CREATE_PATH]["get"].get("parameters", []):
        if parameter["name"] == "cursor":
            parameter["schema"] = {"type": "string", "pattern": CURSOR.pattern, "description": "`next` of a page"}
    for operations in paths.values():
        get = operations.get("get")
        if get is not None and "head" not in operations:
            operations["head"] = _head_of(get)
        for method in ("post", "put", "patch"):
            operation = operations.get(method)
            if operation is not None and "requestBody" in operation:
                operation["responses"].setdefault("415", _UNSUPPORTED)


_UNSUPPORTED = {
    "description": "unsupported_media_type",
    "content": {"application/problem+json": {"schema": {"$ref": _REF.format(name="Problem")}}},
}


def _head_of(get: dict[str, Any]) -> dict[str, Any]:
    """The HEAD beside a GET: the same parameters and statuses, with headers only."""
    head = {key: value for key, value in get.items() if key not in ("responses", "operationId")}
    head["summary"] = f"{get.get('summary', 'The same as GET')}: the head of the answer only"
    if "operationId" in get:
        head["operationId"] = f"{get['operationId']}Head"
    head["responses"] = {
        status: {"description": answer.get("description", "")} for status, answer in get["responses"].items()
    }
    return head


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


def config(settings: Settings) -> OpenAPIConfig:
    """The document's settings: served at /schema/openapi.json, with its pages under /schema."""
    return OpenAPIConfig(
        title="Poison",
        version="1.0.0",
        description="The reference service for Reiner Knizia's Poison (http-api.md). Request bodies are "
        f"limited to {settings.max_body_bytes:,} bytes (413 payload_too_large beyond).",
        path="/schema",
        render_plugins=[DocumentedJson(), SwaggerRenderPlugin(), ScalarRenderPlugin()],
    )
