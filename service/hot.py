"""The hot routes, answered without Litestar's router: reading a game (`GET
/v1/games/{game_id}`, without a query) and playing a card (`POST /v1/games/{game_id}/moves`).

A game's traffic is nearly all these two: a read and a move a turn. Litestar's share of a
request is most of what a bare route costs (`python -m benchmarks.instructions` counts a
bare Litestar JSON route against the same answer from a plain ASGI function under one server;
figures: docs/performance.md), so the framework's routing, request object, signature model
and middleware cost about what the game itself does. Here a request of these two shapes goes
straight to the same handler code the Litestar routes call (service/controllers/games.py:
`read_game`, `play_card`); the body gets the same checks (service.dependencies: media type,
nesting, strict decoding) and every error the same problem+json from the one table
(service.problems). The routes stay declared in Litestar too, for the OpenAPI document and
for every request out of the ordinary, which goes there unchanged: a query string, a
trailing slash, an id that is not a game id's shape, a body without a Content-Length or over
the cap, any other method or path.

It sits where Litestar's own handler is called (inside `Litestar.__call__`, so the scope
has its app), within the request's id and measure (service.app): a HEAD of a game comes
here too through the HEAD and OPTIONS wrapper, and is served as a GET whose body is not sent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from litestar.types import ASGIApp, HTTPScope, Receive, Scope, Send

from events.calls import GAME_ID
from events.games import Games
from service.controllers.games import play_card, read_game
from service.dependencies import check_body, decoded, gone_of
from service.problems import problem_of, send_problem, unexpected
from service.responses import HTTP, JSONBytes, header
from service.schemas import PlayCard

PREFIX = "/v1/games/"
MOVES = "/moves"
#: The templates Litestar gives these routes (the requests' measure is labelled by them).
READ_TEMPLATE = "/v1/games/{game_id}"
MOVES_TEMPLATE = "/v1/games/{game_id}/moves"


class _Request:
    """What the handlers read of a request (service.dependencies.Scoped): its scope."""

    __slots__ = ("scope",)

    def __init__(self, scope: Scope) -> None:
        self.scope = scope


def hot_routes(handler: ASGIApp, max_body_bytes: int) -> ASGIApp:
    """`handler` (Litestar's), with the two hot routes answered before it when a request
    has their plain shape (`route` says which)."""

    async def hot_or_litestar(scope: Scope, receive: Receive, send: Send) -> None:
        answer = route(scope, max_body_bytes) if scope["type"] == HTTP else None
        if answer is None:
            await handler(scope, receive, send)
            return
        serve, game_id, template = answer
        scope["path_template"] = template
        try:
            response = await serve(scope["app"].state.games, scope, receive, game_id)
        except Exception as error:  # answered as the application's exception handlers answer it
            await send_problem(send, problem_of(error) or unexpected(scope, error))
            return
        if response is not None:
            await response(scope, receive, send)

    return hot_or_litestar


Serve = Callable[[Games, Scope, Receive, str], Awaitable[JSONBytes | None]]


def route(scope: HTTPScope, max_body_bytes: int) -> tuple[Serve, str, str] | None:
    """The hot route a request takes (its server, the game's id, the route's template), or
    None when it goes to Litestar."""
    path = scope["path"]
    if not path.startswith(PREFIX) or scope["query_string"]:
        return None
    method = scope["method"]
    if method == "GET":
        game_id = path[len(PREFIX) :]
        return (_read, game_id, READ_TEMPLATE) if GAME_ID.match(game_id) else None
    if method == "POST" and path.endswith(MOVES):
        game_id = path[len(PREFIX) : -len(MOVES)]
        if not GAME_ID.match(game_id):
            return None
        length = header(scope, b"content-length")
        # Litestar refuses a body over the cap (413) and reads one without a length.
        if length is None or not length.isdigit() or int(length) > max_body_bytes:
            return None
        return _play, game_id, MOVES_TEMPLATE
    return None


async def _read(games: Games, scope: Scope, receive: Receive, game_id: str) -> JSONBytes:
    return await read_game(games, _Request(scope), game_id)


async def _play(games: Games, scope: Scope, receive: Receive, game_id: str) -> JSONBytes | None:
    body = await _body(receive)
    if body is None:
        return None  # the client left before its move arrived: nothing is played or answered
    data = decoded(check_body(scope, body), PlayCard)
    return await play_card(games, _Request(scope), game_id, data, gone_of(receive))


async def _body(receive: Receive) -> bytes | None:
    """The request's whole body (its length is capped by its Content-Length); None if the
    client disconnects first."""
    parts = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        parts.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(parts)
