"""The OpenAPI document at /schema/openapi.json, completed so that it says what the service does.

Litestar derives the paths, parameters and statuses from the handlers; this module adds
what it cannot see, once, as the document is first rendered (building it costs a fraction
of a second, which an app that is never asked for it should not pay):

- Every schema is msgspec's, from the very Structs that decode the requests and encode the
  answers (service.schemas), so the document cannot drift from them: bounds, patterns,
  `additionalProperties: false` where unknown fields are refused, descriptions from their
  docstrings. Enums that recur (statuses, colours, bots, problem codes) are named once, so
  a generated client has one type for each, nullable or not.
- Events: each event type of each ruleset (events.poison.schema, events.pot.schema) as
  `{"version", "type", "data"}` with its own `data`; a union per ruleset told apart by
  `type`, and `Event`, either. Logs, moves' answers, the export, the stream and the replay's
  body are all made of them.
- Bodies the handlers read themselves (a new game: one schema per ruleset, told apart by
  `ruleset`, which may be left out; a move; a replay as JSON or NDJSON), the live stream as
  `text/event-stream`, the export as NDJSON.
- Per operation (service.documented): the header parameters, the problem codes with a real
  example of each, the headers answers carry (`X-Poison-Worker` on all, `Location` on a new
  game, `Retry-After` on 429 and on a 503 that says when), and HEAD beside every GET
  (service.app answers it).
- Query parameters as a client sends them: never null, integers written as integers.

`config(settings)` is the document's settings (app.py passes them to Litestar): its info and
license, the Bearer scheme, and the documentation's router (service.docs_assets).
"""

from __future__ import annotations

import copy
import functools
from typing import Any, get_args

import msgspec
from litestar import Request
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.openapi.spec import Components, License, SecurityScheme, Tag

from core.rulesets import DEFAULT_RULESET, RULESETS
from events.games import CURSOR
from events.rulesets import EVENT_RULES
from service import answers, schemas
from service.controllers.replays import MEDIA_TYPES as REPLAY_MEDIA_TYPES
from service.docs_assets import SwaggerPage, schema_router
from service.documented import (
    BEARER,
    BEARER_DESCRIPTION,
    CODES_OF,
    HEADERS_OF,
    PROBLEMS,
    RESPONSE_HEADERS,
    STATUS_OF,
    WORKER,
    examples,
)
from service.poison.schemas import CauldronRule, Colour
from service.rulesets import SERVICE_RULES, AnyGameView, AnyScores
from service.settings import Settings

_REF = "#/components/schemas/{name}"
_HEADER_REF = "#/components/headers/{name}"
CREATE_PATH = "/v1/games"
MOVE_PATH = "/v1/games/{game_id}/moves"
REPLAY_PATH = "/v1/replays"
STREAM_PATH = "/v1/games/{game_id}/events/stream"
EXPORT_PATH = "/v1/games/{game_id}/export"
JOIN_PATH = "/v1/games/{game_id}/seats/{seat}"
_CREATE_BODIES = tuple(rules.create_body for rules in SERVICE_RULES.values())
_BODIES = (*_CREATE_BODIES, schemas.PlayCard, schemas.ReplayBody, schemas.JoinSeat)
_ANSWERS = (
    answers.GameCreatedOut,
    answers.SeatTakenOut,
    schemas.GameList,
    AnyGameView,
    answers.MovePlayed,
    AnyScores,
    schemas.EventLog,
    answers.Replayed,
    schemas.Health,
    schemas.Problem,
)
_TAGGED_UNIONS = (AnyGameView, AnyScores)
#: The parts of events' data that their Structs (events/) leave without a docstring.
_EVENT_PARTS = {
    "Player": "A seat as the game was created: its name and, for a seat the service plays, its bot (else null); "
    "an mcts bot's seat alone has `playouts`, the budget of each of its decisions.",
    "Rules": "Poison's rule options as the game was created.",
    "TakenCounts": "How many cards of each kind a seat took in the round.",
}

#: Enums named once in the document (a generated client makes one type of each): values, description.
NAMED_ENUMS: dict[str, tuple[tuple[str, ...], str]] = {
    "GameStatus": (
        get_args(schemas.GameStatus),
        "`waiting` while a seat is open, `active` until the last event, `finished` after it; `abandoned`: a waiting "
        "game that every person left",
    ),
    "Colour": (get_args(Colour), "a potion's colour (the field that holds it is spelt `color`)"),
    "BotName": (get_args(schemas.BotName), "a bot the service plays a seat with"),
    "CauldronRule": (get_args(CauldronRule), "Poison's cauldrons: `dynamic` or `fixed` colours"),
    "RulesetName": (tuple(RULESETS), "a ruleset: Poison (`poison`) or the pot game (`pot`)"),
    "ProblemCode": (tuple(PROBLEMS), "a problem's stable code: branch on it"),
}


# ---- schemas -------------------------------------------------------------------------------


def _event_schemas(components: dict[str, Any]) -> dict[str, Any]:
    """Each event type of each ruleset as the API shows it, a union per ruleset, and Event.
    The `data` of an event is its Struct's schema less its `type` (which the envelope holds)."""
    added: dict[str, Any] = {}
    unions = []
    for rules in EVENT_RULES.values():
        title = RULESETS[rules.name].title
        mapping = {}
        for kind, event in rules.codec.types.items():
            data = copy.deepcopy(components[event.__name__])
            del data["properties"]["type"]
            data["required"] = [name for name in data.get("required", []) if name != "type"]
            if not data["required"]:
                del data["required"]
            data["description"] = f"The data of a `{kind}` event" + (
                f": {data['description']}" if "description" in data else "."
            )
            added[event.__name__] = data
            envelope = f"{event.__name__}Event"
            added[envelope] = {
                "type": "object",
                "title": envelope,
                "description": f"A `{kind}` event of {title}"
                if event.__name__ != "GameFinished"
                else "The last event of every game, whatever its ruleset",
                "properties": {
                    "version": {"type": "integer", "minimum": 1, "description": "its place in the log, from 1"},
                    "type": {"type": "string", "const": kind},
                    "data": {"$ref": _REF.format(name=event.__name__)},
                },
                "required": ["version", "type", "data"],
                "additionalProperties": False,
            }
            mapping[kind] = _REF.format(name=envelope)
        union = f"{rules.name.capitalize()}Event"
        added[union] = {
            "title": union,
            "description": f"An event of {title}, told apart by its `type`.",
            "oneOf": [{"$ref": ref} for ref in mapping.values()],
            "discriminator": {"propertyName": "type", "mapping": mapping},
        }
        unions.append(union)
    added["Event"] = {
        "title": "Event",
        "description": "An event of a game's log: its `version` (1, 2, 3, …), its `type` and its `data`. Which "
        "types and data exist depends on the game's ruleset (its game_created says which). While a game is active, "
        "what the reader may not see is null (other seats' hands, the seed, the draw pile's order).",
        "anyOf": [{"$ref": _REF.format(name=union)} for union in unions],
    }
    return added


@functools.cache
def _schemas() -> dict[str, Any]:
    """Every schema of the document, by name (built once; callers copy it)."""
    events = tuple(event for rules in EVENT_RULES.values() for event in rules.codec.types.values())
    _, components = msgspec.json.schema_components((*_BODIES, *_ANSWERS, *events), ref_template=_REF)
    made = {name: schema for name, schema in components.items() if not _is_event(name, events)}
    made.update(_event_schemas(components))
    # The API's event is the union of every ruleset's events, wherever a log is shown or sent.
    del made["EventOut"]
    _replace_refs(made, _REF.format(name="EventOut"), _REF.format(name="Event"))
    made["ReplayBody"]["properties"]["events"]["items"] = {"$ref": _REF.format(name="Event")}
    for name, (values, description) in NAMED_ENUMS.items():
        made[name] = {"title": name, "type": "string", "enum": list(values), "description": description}
    _name_enums(made)
    _const_tags(made)
    made["Problem"]["properties"]["code"] = {"$ref": _REF.format(name="ProblemCode")}
    for body in _CREATE_BODIES:
        # Names are unique in a game, which JSON Schema cannot say of one property of the
        # items; that equal seats are refused, it can.
        players = made[body.__name__]["properties"]["players"]
        players["uniqueItems"] = True
        players["description"] += "; their names unique in the game"
    # A new game that names no ruleset is the default one's (as every game was before the pot game).
    default = next(body for body in _CREATE_BODIES if body.__struct_config__.tag == DEFAULT_RULESET).__name__
    made[default]["required"].remove("ruleset")
    made[default]["properties"]["ruleset"]["default"] = DEFAULT_RULESET
    made["PlayerIn"], made["OpenSeatIn"] = _player_in(made["PlayerIn"])
    for body in _CREATE_BODIES:
        made[body.__name__]["properties"]["players"]["items"] = {
            "oneOf": [{"$ref": _REF.format(name="PlayerIn")}, {"$ref": _REF.format(name="OpenSeatIn")}]
        }
    made["Health"]["description"] = "The service answers, and so does its event store."
    for name, description in _EVENT_PARTS.items():
        made[name]["description"] = description
    return made


def _player_in(derived: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A new game's seat as the service takes it, in two shapes: a name (and maybe a bot),
    `PlayerIn` as it always was, or an open seat, `OpenSeatIn` (`{"open": true}` alone). The
    Struct (schemas.PlayerIn) has all three fields optional and the handler refuses the
    mixes; the document states the two shapes instead."""
    fields = derived["properties"]
    person = {
        "title": "PlayerIn",
        "description": "A seat of a new game: a person (who gets a token) or a bot (which the service plays).",
        "type": "object",
        "properties": {
            "name": fields["name"]["anyOf"][0] | {"description": fields["name"]["description"]},
            "bot": fields["bot"],
            "playouts": fields["playouts"],
        },
        "required": ["name"],
        "additionalProperties": False,
    }
    open_seat = {
        "title": "OpenSeatIn",
        "description": "A seat of a new game left open: anyone may join it; the game waits until none is open.",
        "type": "object",
        "properties": {
            "open": {"type": "boolean", "enum": [True], "description": fields["open"]["description"]},
            "name": {"type": "null", "description": "an open seat has no name yet"},
            "bot": {"type": "null", "description": "an open seat is never a bot's"},
        },
        "required": ["open"],
        "additionalProperties": False,
    }
    return person, open_seat


def _is_event(name: str, events: tuple[type, ...]) -> bool:
    return any(event.__name__ == name for event in events)


def _replace_refs(node: object, old: str, new: str) -> None:
    if isinstance(node, dict):
        if node.get("$ref") == old:
            node["$ref"] = new
        for value in node.values():
            _replace_refs(value, old, new)
    elif isinstance(node, list):
        for value in node:
            _replace_refs(value, old, new)


def _name_enums(node: object) -> None:
    """Every inline enum of a named one's values (in any order) becomes a reference to it, in place."""
    named = {frozenset(values): name for name, (values, _) in NAMED_ENUMS.items()}

    def name_of(value: object) -> str | None:
        if isinstance(value, dict) and isinstance(value.get("enum"), list) and "title" not in value:
            return named.get(frozenset(value["enum"]))
        return None

    children = list(node.items()) if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
    for key, value in children:
        name = name_of(value)
        if name is None:
            _name_enums(value)
        else:
            rest = {k: v for k, v in value.items() if k not in ("enum", "type")}
            node[key] = {"$ref": _REF.format(name=name), **rest}  # type: ignore[index]


def _const_tags(node: object) -> None:
    """A one-value enum (a union's tag: `ruleset`, an event's `type`) written as `const`, in
    place: a generated client then types it as that literal, not as an enum of one."""
    if isinstance(node, dict):
        values = node.get("enum")
        if isinstance(values, list) and len(values) == 1 and isinstance(values[0], str):
            del node["enum"]
            node.update(type="string", const=values[0])
        for value in node.values():
            _const_tags(value)
    elif isinstance(node, list):
        for value in node:
            _const_tags(value)


def _union_schema(union: Any) -> dict[str, Any]:
    """A tagged union of answers: one of its members, told apart by `ruleset`."""
    members = get_args(union)
    mapping = {member.__struct_config__.tag: _REF.format(name=member.__name__) for member in members}
    return {
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "ruleset", "mapping": mapping},
    }


# ---- the document ------------------------------------------------------------------------


def complete(document: dict[str, Any]) -> None:
    """Make the rendered document say what the service does (the module's docstring lists
    what); in place, once (a document already completed is left as it is)."""
    components = document.setdefault("components", {})
    if "Event" in components.get("schemas", {}):
        return
    components["schemas"] = copy.deepcopy(_schemas())
    _union_refs(components["schemas"])
    components["headers"] = copy.deepcopy(RESPONSE_HEADERS)
    shown = examples()
    paths = document["paths"]
    _bodies(paths, shown)
    _media(paths, shown)
    for path, operations in paths.items():
        for method, operation in list(operations.items()):
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            _union_refs(operation)
            _parameters(operation)
            _name_enums(operation.get("parameters", []))
            _responses(operation, shown, path=path, method=method)
    for operations in paths.values():
        get = operations.get("get")
        if get is not None and "head" not in operations:
            operations["head"] = _head_of(get)


def _union_refs(node: object) -> None:
    """Litestar writes a union of answers as a bare oneOf: here each gets its discriminator."""
    unions = {frozenset(_REF.format(name=m.__name__) for m in get_args(u)): _union_schema(u) for u in _TAGGED_UNIONS}
    if isinstance(node, dict):
        for key in ("oneOf", "anyOf"):
            members = node.get(key)
            if isinstance(members, list):
                refs = frozenset(member.get("$ref") for member in members if isinstance(member, dict))
                if refs in unions:
                    node.pop("anyOf", None)
                    node.update(unions[refs])
        for value in node.values():
            _union_refs(value)
    elif isinstance(node, list):
        for value in node:
            _union_refs(value)


def _bodies(paths: dict[str, Any], shown: dict[str, Any]) -> None:
    """The bodies the handlers read themselves."""
    paths[CREATE_PATH]["post"]["requestBody"] = {
        "required": True,
        "description": "The new game: its players and, by ruleset, its options. `ruleset` may be left out: the "
        "game is then Poison.",
        "content": {
            "application/json": {
                "schema": {"oneOf": [{"$ref": _REF.format(name=body.__name__)} for body in _CREATE_BODIES]},
                "examples": {
                    "poison": {"summary": "Poison: a person and two bots", "value": shown["create_poison"]},
                    "pot": {"summary": "the pot game: a person and a bot", "value": shown["create_pot"]},
                    "open": {"summary": "Poison: a person, an open seat and a bot", "value": shown["create_open"]},
                    "search": {
                        "summary": "the pot game: a person and two mcts bots (2,000 playouts, and the default)",
                        "value": shown["create_search"],
                    },
                },
            }
        },
    }
    paths[JOIN_PATH]["post"]["requestBody"] = {
        "required": True,
        "description": "Your name at the table: 1 to 32 characters, nobody else's there.",
        "content": {"application/json": {"schema": {"$ref": _REF.format(name="JoinSeat")}, "example": shown["join"]}},
    }
    paths[MOVE_PATH]["post"]["requestBody"] = {
        "required": True,
        "description": "The move: a card and, for Poison, the cauldron it goes into; for the pot game, whether it "
        "closes the pot.",
        "content": {
            "application/json": {
                "schema": {"$ref": _REF.format(name="PlayCard")},
                "examples": {
                    "poison": {"summary": "Poison: a card into a cauldron", "value": shown["move_poison"]},
                    "pot": {"summary": "the pot game: a card that closes the pot", "value": shown["move_pot"]},
                },
            }
        },
    }
    # No example here: the JSON form's shows the same events (and a text example of a body
    # described as bytes is one that tools like schemathesis cannot send).
    ndjson = {
        "schema": {
            "type": "string",
            "format": "binary",
            "description": "NDJSON: one Event per line, in order (blank lines are skipped), as /export writes it",
        },
    }
    paths[REPLAY_PATH]["post"]["requestBody"] = {
        "required": True,
        "description": "A log of either ruleset: exported NDJSON (one event per line) or JSON "
        '`{"events": [...]}`, the same events.',
        "content": {
            media: (
                {"schema": {"$ref": _REF.format(name="ReplayBody")}, "example": shown["replay"]}
                if media == "application/json"
                else ndjson
            )
            for media in REPLAY_MEDIA_TYPES
        },
    }


def _media(paths: dict[str, Any], shown: dict[str, Any]) -> None:
    """The answers that are no JSON document: the live stream, the export."""
    stream = paths[STREAM_PATH]["get"]["responses"]["200"]
    stream["description"] = "the log, live: one Server-Sent Event per event, until game_finished"
    stream["content"] = {
        "text/event-stream": {
            "schema": {
                "type": "string",
                "description": "Server-Sent Events: each has `id` (the event's version), `event` (its type) and "
                "`data`, the event as /events shows it (an Event, as JSON on one line).",
            },
            "example": shown["stream"],
        }
    }
    export = paths[EXPORT_PATH]["get"]["responses"]["200"]
    export["description"] = "the whole log: one Event per line (NDJSON)"
    export["content"] = {
        "application/x-ndjson": {
            "schema": {"type": "string", "format": "binary", "description": "NDJSON: one Event per line, in order"},
            "example": shown["export"],
        }
    }


#: The examples of successful answers, by operation and status: (name, summary, example key).
_ANSWER_EXAMPLES: dict[tuple[str, str], list[tuple[str, str, str]]] = {
    ("create_game", "201"): [("poison", "a new game of Poison: bots that move first have played", "created")],
    ("get_game", "200"): [
        ("poison", "Poison, read with ana's token: `you` is hers", "view_poison"),
        ("pot", "the pot game, read with ana's token", "view_pot"),
    ],
    ("play_move", "201"): [("poison", "ana's move and the two bots' after it", "played")],
    ("join_seat", "201"): [("poison", "bob takes the last open seat: the game starts", "joined")],
    ("get_scores", "200"): [
        ("poison", "Poison, finished after one round", "scores_poison"),
        ("pot", "the pot game, finished", "scores_pot"),
    ],
    ("get_events", "200"): [("poison", "the first events, read with ana's token", "events")],
    ("replay_log", "200"): [("poison", "a finished game replayed: `all` shows every hand", "replayed")],
}


def _responses(operation: dict[str, Any], shown: dict[str, Any], *, path: str, method: str) -> None:
    operation_id = operation.get("operationId", "")
    codes = CODES_OF.get(operation_id, ())
    for status, answer in operation["responses"].items():
        answer.pop("headers", None)  # Litestar's lower-case copy of the worker header
        headers = {WORKER: {"$ref": _HEADER_REF.format(name=WORKER)}}
        here = [code for code in codes if str(STATUS_OF[code]) == status]
        # Every 429, and a refusal of another status that says when to retry (a 503 streams_full).
        if status == "429" or any("retry_after" in shown["problems"][code] for code in here):
            headers["Retry-After"] = {"$ref": _HEADER_REF.format(name="Retry-After")}
        if (operation_id, status) == ("create_game", "201"):
            headers["Location"] = {"$ref": _HEADER_REF.format(name="Location")}
        answer["headers"] = headers
        content = answer.get("content", {})
        problem = content.get("application/problem+json")
        if problem is not None:
            problem["examples"] = {code: {"value": shown["problems"][code]} for code in here}
        for name, summary, key in _ANSWER_EXAMPLES.get((operation_id, status), []):
            media = content.get("application/json")
            if media is not None:
                media.setdefault("examples", {})[name] = {"summary": summary, "value": shown[key]}


def _parameters(operation: dict[str, Any]) -> None:
    """Query parameters as a client sends them, the listing's cursor as the store writes it,
    and the headers the operation reads."""
    parameters = operation.setdefault("parameters", [])
    for parameter in parameters:
        schema = parameter["schema"]
        alternatives = schema.pop("oneOf", None)
        if alternatives is None and isinstance(schema.get("type"), list):  # a nullable enum
            alternatives = [
                {"type": "null"},
                {"type": "string", "enum": [v for v in schema.pop("enum") if v is not None]},
            ]
            del schema["type"]
        if alternatives is not None:
            # `X | None`: absent, or `null`, which Litestar reads as absent too. Bounds go with X.
            (present,) = [choice for choice in alternatives if choice.get("type") != "null"]
            for bound in ("minimum", "maximum", "maxLength", "minLength", "pattern"):
                if bound in schema:
                    present[bound] = schema.pop(bound)
            schema["anyOf"] = [present, {"type": "null"}]
        for bounded in (schema, *schema.get("anyOf", [])):
            for bound in ("minimum", "maximum"):
                if isinstance(bounded.get(bound), float) and bounded[bound].is_integer():
                    bounded[bound] = int(bounded[bound])
        if parameter["name"] == "cursor":
            (schema.get("anyOf") or [schema])[0]["pattern"] = CURSOR.pattern
        parameter.setdefault("description", schema.get("description"))
        for noise in ("deprecated", "allowEmptyValue", "allowReserved"):
            if parameter.get(noise) is False:
                del parameter[noise]
    parameters.extend(copy.deepcopy(HEADERS_OF.get(operation.get("operationId", ""), [])))
    if not parameters:
        del operation["parameters"]


def _head_of(get: dict[str, Any]) -> dict[str, Any]:
    """The HEAD beside a GET: the same parameters and statuses, with headers only."""
    head = {key: value for key, value in get.items() if key not in ("responses", "operationId")}
    head["summary"] = f"{get.get('summary', 'The same as GET')}: the head of the answer only"
    operation_id = get["operationId"]
    head["operationId"] = "head_" + operation_id.removeprefix("get_")
    head["responses"] = {
        status: {"description": answer.get("description", ""), "headers": answer.get("headers", {})}
        for status, answer in get["responses"].items()
    }
    return head


class DocumentedJson(JsonRenderPlugin):
    """/schema/openapi.json, completed (the documentation page reads it)."""

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        complete(openapi_schema)  # Litestar keeps this dict: the first render completes it
        return super().render(request, openapi_schema)


def config(settings: Settings) -> OpenAPIConfig:
    """The document's settings: served at /schema/openapi.json, its page at /schema/swagger."""
    return OpenAPIConfig(
        title="Poison",
        version="1.0.0",
        summary="The reference service for Reiner Knizia's Poison and the pot game",
        description="Play games of Poison and of the pot game over HTTP: create a game, play with the token of "
        "your seat, read its view, scores and event log (live too), export a finished game and replay a log. "
        "Errors are application/problem+json with a stable `code`. A move sent with an `Idempotency-Key` is safe "
        "to retry. Request bodies are limited to "
        f"{settings.max_body_bytes:,} bytes (413 payload_too_large beyond). The guide: docs/http-api.md.",
        license=License(name="MIT", identifier="MIT"),
        components=Components(
            security_schemes={BEARER: SecurityScheme(type="http", scheme="bearer", description=BEARER_DESCRIPTION)}
        ),
        tags=[
            Tag(name="games", description="Games: create, play, read, follow, export"),
            Tag(name="lobby", description="Open seats: join, leave, and play again (rematch)"),
            Tag(name="replays", description="Replaying a log, stored nowhere"),
            Tag(name="health", description="For people and orchestrators: is the service (and its store) up?"),
        ],
        openapi_router=schema_router("/schema"),
        render_plugins=[SwaggerPage(), DocumentedJson()],
    )
