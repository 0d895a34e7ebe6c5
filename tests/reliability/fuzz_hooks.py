"""Schemathesis hooks for the API fuzzing (tests/reliability/schemathesis.toml loads them).

They touch only requests generated as *valid* (positive mode), and only for what JSON Schema
cannot say, so that "valid data rejected" means a disagreement between the document and
the service, not a limit of JSON Schema:

- Names must be unique in a game, which no JSON Schema keyword can say of a property of an
  array's items: a "valid" new game with two equal names is not generated.
- `?version=N` may not go beyond the game's (or the replayed log's) version, a bound that
  lives in the store (or the body), not in the document: a valid time travel asks for
  version 1, which every game has, and a valid replay for at most as many events as it sends;
  likewise the live stream's `?after=` (0).

A generated integer written as `3.0` is sent as generated: JSON Schema's `integer` admits it,
and so does the service (docs/http-api.md), in bodies and in replayed logs alike.

Nothing here filters a failure or a response: every answer is checked.
"""

from __future__ import annotations

from typing import Any

import schemathesis


def _positive(case: Any) -> bool:
    meta = getattr(case, "meta", None)
    return meta is not None and meta.generation.mode.is_positive


@schemathesis.hook
def map_case(context: Any, case: Any) -> Any:
    if not _positive(case):
        return case
    query = case.query if isinstance(case.query, dict) else {}
    if case.operation.path.endswith("/events/stream") and isinstance(query.get("after"), int):
        query["after"] = 0  # a resume point beyond the game's version is 400 (#5)
    if isinstance(query.get("version"), int):
        if case.operation.path == "/v1/games/{game_id}":
            query["version"] = 1
        elif case.operation.path == "/v1/replays":
            events = case.body.get("events") if isinstance(case.body, dict) else None
            count = len(events) if isinstance(events, list) else 0
            if count:
                query["version"] = min(query["version"], count)
            else:
                del query["version"]
    return case


@schemathesis.hook
def filter_case(context: Any, case: Any) -> bool:
    if not (_positive(case) and case.operation.method.upper() == "POST" and case.operation.path == "/v1/games"):
        return True
    players = case.body.get("players") if isinstance(case.body, dict) else None
    if not isinstance(players, list):
        return True
    names = [player.get("name") for player in players if isinstance(player, dict)]
    return len(names) == len(set(names))
