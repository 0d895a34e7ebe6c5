"""What the OpenAPI document says of each operation that Litestar cannot read from a handler.

Per operation (by its operation id): the problems it can answer, by code, and the request
headers it reads besides its token; for the whole API: the token's security scheme and the
headers answers carry. The codes and their statuses are the contract's table (http-api.md).
Controllers take their `responses` and `security` from here; service.openapi adds the
headers and the examples when the document is first rendered. tests/service/test_openapi.py
provokes every code listed here for its operation through the real app, so a code is listed
only where the service can answer it.

The examples are real: a seeded game of each ruleset played by the engine and shown by the
service's own views, and problems made by the service's own constructors (`examples()`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import msgspec
from litestar.openapi.datastructures import ResponseSpec

from core import errors
from core.rulesets import POISON
from events import commitment, lobby, play
from events.codec import Clock, Player, to_public
from events.games import ClientGone, IdempotencyKeyReused, StoreUnavailable, UnknownGame, VersionConflict
from events.limits import RateLimited, RebuildBudgetSpent, SearchBudgetSpent
from events.play import create_game, join, play_move
from events.records import GameArchived
from events.replay import InvalidLog
from service.answers import GameCreatedOut, Replayed, SeatTakenOut
from service.clients import (
    Streams,
    streams_full,
    too_many_client_connections,
    too_many_connections,
    too_many_streams,
)
from service.problems import (
    INTERNAL,
    ApiError,
    from_client_gone,
    from_game_archived,
    from_idempotency,
    from_invalid_log,
    from_rate_limited,
    from_rebuild_budget,
    from_rule_error,
    from_search_budget,
    from_store_unavailable,
    from_unknown_game,
    from_version_conflict,
    problem_body,
)
from service.schemas import EventLog, Problem, SeatToken
from service.settings import Settings
from service.views import game_view, move_played, public_events, scores

#: Every problem code the API answers: its status, and when (as http-api.md's table says).
PROBLEMS: dict[str, tuple[int, str]] = {
    "invalid_request": (400, "a malformed request: body, parameter, header or bound"),
    "unauthorized": (401, "a missing (where required), malformed or unknown token for this game"),
    "game_not_found": (404, "no such game"),
    "not_found": (404, "no such path"),
    "method_not_allowed": (405, "a method the path does not take (`Allow` names those it does)"),
    "request_timeout": (408, "a request whose head or body did not arrive in time (the connection is closed)"),
    "not_your_turn": (409, "a valid token of a seat that is not to move"),
    "game_finished": (409, "a move in a finished game"),
    "version_conflict": (409, "`expected_version` is not the game's version (`current_version` says which is)"),
    "game_active": (409, "the export of a game that is not over (finished or abandoned), or the rematch of one"),
    "game_archived": (409, "the rematch of a game moved to the archive, which names no next game"),
    "seat_taken": (
        409,
        "a join of a seat that is not open (taken by someone, or a bot's), or the leave of an open one",
    ),
    "game_started": (409, "a join or leave once the game no longer waits (it started, or was abandoned)"),
    "game_waiting": (409, "a resign or return before the game has started (a waiting game's seat is left instead)"),
    "game_abandoned": (409, "a move, resign, return or rematch in a game that was abandoned"),
    "seat_away": (409, "a move of a seat that is away (a bot plays it): return to it first"),
    "seat_not_away": (409, "the return to a seat that its person plays"),
    "seat_resigned": (409, "the return to (or second resign of) a seat that resigned"),
    "payload_too_large": (413, "a body over the limit the document's description states"),
    "unsupported_media_type": (415, "a body of another media type than the operation takes"),
    "card_not_in_hand": (422, "the seat holds no such card"),
    "illegal_cauldron": (422, "Poison: the card may not go into that cauldron (the detail names the one it may)"),
    "cannot_close": (422, "the pot game: the pot may not be closed with that card"),
    "idempotency_key_reused": (422, "the same Idempotency-Key with a different move"),
    "invalid_log": (422, "a replayed log the rules could not have written (`at_version` names its first bad event)"),
    "playouts_without_search": (422, "a seat given `playouts` that the mcts bot does not play (a person, another bot)"),
    "search_without_person": (422, "a new game with the mcts bot but no person and no open seat"),
    "seed_with_open_seats": (422, "a new game with a `seed` and an open seat (the service deals such a game)"),
    "search_limit": (422, "a replayed log whose mcts moves would take more playouts to check than a replay searches"),
    "rate_limited": (429, "too many requests from this client or seat (`retry_after`, and Retry-After, say when)"),
    "search_budget": (
        429,
        "the playouts this client's requests search (its bots' answers, its replays' checks) are over its budget: "
        "nothing was searched or appended (`retry_after`, and Retry-After, say when it can pay)",
    ),
    "rebuild_budget": (
        429,
        "the events of the logs this client rebuilds (replays, time-travel reads) are over its budget: nothing was "
        "rebuilt (`retry_after`, and Retry-After, say when it can pay)",
    ),
    "client_gone": (
        499,
        "never received: the client hung up while its request's work waited for a thread, so it was dropped "
        "before it started and nothing was appended (what the request's log line and measure say)",
    ),
    "internal_error": (500, "a bug (none is known): the request changed nothing"),
    "store_unavailable": (
        503,
        "the event store cannot be reached; a move's outcome is then unknown: retry with its key",
    ),
    "too_many_connections": (503, "the worker holds as many connections as it may (the connection is closed)"),
    "too_many_client_connections": (
        429,
        "the client's address holds as many connections to the worker as it may (the connection is closed)",
    ),
    "too_many_streams": (429, "the client's address holds as many live streams as it may (`retry_after` says when)"),
    "streams_full": (503, "the worker's live streams hold their whole share of its connections (`retry_after`)"),
}
#: Why a seed is refused for a game with an open seat (docs/security.md, fair deals): the
#: creator would know every joiner's hand.
SEED_WITH_OPEN_SEATS = (
    "a game with an open seat is dealt from a seed the service draws: with a seed of your own you could "
    "work out the hand of whoever joins; leave out 'seed', or name every seat"
)
#: The status of every code.
STATUS_OF = {code: status for code, (status, _) in PROBLEMS.items()}

_READ = ("invalid_request", "unauthorized", "game_not_found", "store_unavailable")
_BODY = ("payload_too_large", "unsupported_media_type")
#: The codes each operation can answer. (Any path also answers not_found for a path that is
#: none of the API's and method_not_allowed for a method it does not take; any connection may
#: be answered request_timeout, too_many_connections or too_many_client_connections before its
#: request is routed.)
CODES_OF: dict[str, tuple[str, ...]] = {
    "create_game": (
        "invalid_request",
        *_BODY,
        "playouts_without_search",
        "search_without_person",
        "seed_with_open_seats",
        "rate_limited",
        "search_budget",
        "store_unavailable",
    ),
    "list_games": ("invalid_request", "store_unavailable"),
    "get_game": (*_READ, "rebuild_budget"),
    "play_move": (
        *_READ,
        "not_your_turn",
        "game_finished",
        "game_abandoned",
        "seat_away",
        "version_conflict",
        *_BODY,
        "card_not_in_hand",
        "illegal_cauldron",
        "cannot_close",
        "idempotency_key_reused",
        "rate_limited",
        "search_budget",
    ),
    "join_seat": (
        *_READ[:1],
        "game_not_found",
        "seat_taken",
        "game_started",
        *_BODY,
        "idempotency_key_reused",
        "rate_limited",
        "search_budget",
        "store_unavailable",
    ),
    "leave_seat": (*_READ, "game_started", "idempotency_key_reused", "rate_limited"),
    "resign_seat": (
        *_READ,
        "game_waiting",
        "game_finished",
        "game_abandoned",
        "seat_resigned",
        "idempotency_key_reused",
        "rate_limited",
        "search_budget",
    ),
    "return_to_seat": (
        *_READ,
        "game_waiting",
        "game_finished",
        "game_abandoned",
        "seat_resigned",
        "seat_not_away",
        "idempotency_key_reused",
        "rate_limited",
    ),
    "rematch": (*_READ, "game_active", "game_abandoned", "game_archived", "rate_limited", "search_budget"),
    "get_scores": _READ,
    "get_events": _READ,
    "stream_events": (*_READ, "too_many_streams", "streams_full"),
    "export_log": (*_READ, "game_active"),
    "replay_log": ("invalid_request", *_BODY, "invalid_log", "search_limit", "search_budget", "rebuild_budget"),
    "get_health": ("store_unavailable",),
    "get_ready": ("store_unavailable",),
    "get_live": (),
}

#: The name of the token's security scheme (HTTP Bearer), and its description.
BEARER = "bearer"
BEARER_DESCRIPTION = (
    "A seat's token, returned once when the game is created (bots' seats have none: the service plays them). "
    "Required to play; optional on reads, where it adds what that seat may see (its hand and legal moves, its dealt "
    "cards in the log). A token that is malformed or of no seat of the game is 401, never ignored."
)
#: Moves need a seat's token; reads take one if given.
TOKEN_REQUIRED: list[dict[str, list[str]]] = [{BEARER: []}]
TOKEN_OPTIONAL: list[dict[str, list[str]]] = [{BEARER: []}, {}]

#: How long an Idempotency-Key may be (games.play refuses others, 400).
IDEMPOTENCY_KEY_LENGTH = (1, 200)

#: The most playouts checking one replayed log may search (events.replay.search_work: each
#: mcts move logged, at its seat's playouts): about 10 to 15 s of one core at the most, in a
#: search thread. A game at the default budget with one person and three mcts bots needs
#: about 150,000; a log asking more is 422 search_limit (`poison replay` checks any).
REPLAY_PLAYOUTS = 1_000_000


def _idempotency_key(description: str, example: str) -> dict[str, Any]:
    """The Idempotency-Key header of an operation that changes a game."""
    return {
        "name": "Idempotency-Key",
        "in": "header",
        "required": False,
        "description": description,
        "schema": {"type": "string", "minLength": IDEMPOTENCY_KEY_LENGTH[0], "maxLength": IDEMPOTENCY_KEY_LENGTH[1]},
        "example": example,
    }


#: The request headers each operation reads besides Authorization (the security scheme says
#: that one: OpenAPI ignores a header parameter named Authorization).
HEADERS_OF: dict[str, list[dict[str, Any]]] = {
    "play_move": [
        {
            "name": "Idempotency-Key",
            "in": "header",
            "required": False,
            "description": "Makes the move safe to retry: the same key again for this game and seat, with the same "
            "body, gets the first answer, status and body byte for byte (a refusal too), and appends nothing; with "
            "another body it is 422 idempotency_key_reused. Keys are kept 25 hours. After a 503 the move's outcome is "
            "unknown: retry with the same key.",
            "schema": {
                "type": "string",
                "minLength": IDEMPOTENCY_KEY_LENGTH[0],
                "maxLength": IDEMPOTENCY_KEY_LENGTH[1],
            },
            "example": "3f0c6d1e-move-1",
        }
    ],
    "join_seat": [
        _idempotency_key(
            "Makes the join safe to retry: the same key again from the same client address, for this seat and "
            "name, gets the first answer (its token too); from that address with another seat or name it is 422 "
            "idempotency_key_reused. From another address it is a join of its own. Keys are kept 25 hours.",
            "3f0c6d1e-join-1",
        )
    ],
    "leave_seat": [
        _idempotency_key(
            "Makes the leave safe to retry with the same (now refused) token: the same key again gets 204 and "
            "changes nothing; with that token and another seat it is 422 idempotency_key_reused. Another token's "
            "leave under the key is a leave of its own. Keys are kept 25 hours.",
            "3f0c6d1e-leave-1",
        )
    ],
    "resign_seat": [
        _idempotency_key(
            "Makes the resign safe to retry: the same key again with this seat's token gets the first answer, "
            "status and body byte for byte (a refusal too), and appends nothing. Keys are kept 25 hours.",
            "3f0c6d1e-resign-1",
        )
    ],
    "return_to_seat": [
        _idempotency_key(
            "Makes the return safe to retry: the same key again with this seat's token gets the first answer, "
            "status and body byte for byte (a refusal too), and appends nothing. Keys are kept 25 hours.",
            "3f0c6d1e-return-1",
        )
    ],
    "rematch": [
        _idempotency_key(
            "Accepted as on every change; a rematch needs none: every call by a seat gets that seat's same token.",
            "3f0c6d1e-rematch-1",
        )
    ],
    "stream_events": [
        {
            "name": "Last-Event-ID",
            "in": "header",
            "required": False,
            "description": "Resume after this event (the `id` of the last message received; an EventSource sends it "
            "by itself when it reconnects). It wins over `after`. Beyond the game's version it is 400.",
            "schema": {"type": "string", "pattern": "^[0-9]{1,16}$"},
            "example": "5",
        }
    ],
}

#: The headers the service sends, named in the document's components.
WORKER = "X-Poison-Worker"
RESPONSE_HEADERS: dict[str, dict[str, Any]] = {
    WORKER: {
        "description": "The worker process (its id) that answered: for debugging a deployment with several workers.",
        "schema": {"type": "string", "pattern": "^[0-9]+$"},
    },
    "Retry-After": {
        "description": "Seconds to wait before trying again.",
        "schema": {"type": "integer", "minimum": 1},
    },
    "Location": {
        "description": "The new game's path: /v1/games/{game_id}.",
        "schema": {"type": "string", "pattern": "^/v1/games/[^/]+$"},
    },
}


def problems(operation_id: str) -> dict[int, ResponseSpec]:
    """The problem responses of an operation, one per status, each naming its codes."""
    by_status: dict[int, list[str]] = {}
    for code in CODES_OF[operation_id]:
        by_status.setdefault(STATUS_OF[code], []).append(code)
    return {
        status: ResponseSpec(
            data_container=Problem,
            description="; ".join(f"`{code}`: {PROBLEMS[code][1]}" for code in codes),
            media_type="application/problem+json",
            generate_examples=False,
        )
        for status, codes in sorted(by_status.items())
    }


# ---- examples ------------------------------------------------------------------------------

#: The ids and the token of the examples (http-api.md's walkthrough uses the same).
GAME_ID = "9K46SJYydR0cf_B7"
POT_GAME_ID = "q1Vb7XyZ0aB2cD3e"
TOKEN = "rIY-b4S7oxfAz3D9emz_7yDNKwSLgL8mt1ijRgctxW0"
_SEED = 7
#: The examples' salt, fixed so that the document is the same every time it is made.
_SALT = "5a17" * 16
_encode = msgspec.json.Encoder().encode


def _json(value: Any) -> Any:
    return msgspec.to_builtins(value)


def _problem(error: ApiError) -> Any:
    return msgspec.json.decode(problem_body(error))


def _sse(events: list[Any]) -> str:
    return "".join(f"id: {event.version}\nevent: {event.type}\ndata: {_encode(event).decode()}\n\n" for event in events)


@functools.cache
def examples() -> dict[str, Any]:
    """Every example of the document, by name: made by playing seeded games in the engine and
    showing them through the service's views (once per process; figures:
    docs/performance.md)."""
    people = (
        Player(seat=0, name="ana"),
        Player(seat=1, name="bob", bot="greedy"),
        Player(seat=2, name="cy", bot="random"),
    )
    first, created = create_game(
        "poison", GAME_ID, people, seed=_SEED, salt=_SALT, options={"rounds": 3, "cauldrons": "dynamic"}
    )
    card, cauldron = created.game.legal_moves()[0]
    caused, after = play_move(created, 0, (card, cauldron))
    played = move_played(after, created.version + 1, caused, 0)
    numbered = list(enumerate([*first, *caused], start=1))

    table = (Player(seat=0, name="ana"), Player(seat=1), Player(seat=2, name="cy", bot="random"))
    _, waiting = create_game(
        "poison", GAME_ID, table, seed=_SEED, salt=_SALT, options={"rounds": 3, "cauldrons": "dynamic"}
    )
    _, started = join(waiting, 1, "bob")

    pot_people = (Player(seat=0, name="ana"), Player(seat=1, name="bob", bot="greedy"))
    _, pot = create_game("pot", POT_GAME_ID, pot_people, seed=_SEED, salt=_SALT, options={})
    pot_card, pot_close = pot.game.legal_moves()[1]

    bots = tuple(Player(seat=seat, name=name, bot="greedy") for seat, name in enumerate(("ana", "bob", "cy")))
    log, finished = create_game(
        "poison", "H5aQe0rWk3sT9bVx", bots, seed=_SEED, salt=_SALT, options={"rounds": 1, "cauldrons": "dynamic"}
    )
    exported = [to_public(version, event) for version, event in enumerate(log, start=1)]
    pot_bots = (Player(seat=0, name="ana", bot="greedy"), Player(seat=1, name="bob", bot="random"))
    _, pot_finished = create_game("pot", "Zc2mP8uLq0nR4tYe", pot_bots, seed=_SEED, salt=_SALT, options={})

    return {
        "create_poison": {
            "players": [{"name": person.name, **({"bot": person.bot} if person.bot else {})} for person in people],
            "rounds": 3,
            "seed": _SEED,
            "rules": {"cauldrons": "dynamic"},
        },
        "create_pot": {"ruleset": "pot", "players": [{"name": "ana"}, {"name": "bob", "bot": "greedy"}]},
        "create_open": {"players": [{"name": "ana"}, {"open": True}, {"name": "cy", "bot": "random"}], "rounds": 3},
        "create_search": {
            "ruleset": "pot",
            "players": [
                {"name": "ana"},
                {"name": "bob", "bot": "mcts", "playouts": 2000},
                {"name": "cy", "bot": "mcts"},
            ],
        },
        "join": {"name": "bob"},
        "joined": _json(SeatTakenOut(seat=1, name="bob", token=TOKEN, game=game_view(started, seat=1))),
        "created": _json(
            GameCreatedOut(
                game_id=GAME_ID,
                players=[
                    SeatToken(seat=0, name="ana", token=TOKEN),
                    SeatToken(seat=1, name="bob"),
                    SeatToken(seat=2, name="cy"),
                ],
                game=game_view(created),
            )
        ),
        "view_poison": _json(game_view(created, seat=0)),
        "view_pot": _json(game_view(pot, seat=0)),
        "move_poison": {"card": card, "cauldron": cauldron, "expected_version": created.version},
        "move_pot": {"card": pot_card, "close": pot_close},
        "played": _json(played),
        "events": _json(EventLog(events=public_events(numbered[:4], 0, False, after.rules), version=after.version)),
        "stream": _sse(played.events),
        "scores_poison": _json(scores(finished)),
        "scores_pot": _json(scores(pot_finished)),
        "export": "".join(_encode(event).decode() + "\n" for event in exported),
        "replay": {"events": _json(exported)},
        "replayed": _json(
            Replayed(
                version=finished.version,
                game=game_view(finished, everything=True),
                scores=scores(finished),
                commitment=commitment.check(finished.created),
            )
        ),
        "problems": _problems(),
    }


#: A waiting table: ana at seat 0, seat 1 open.
_LOBBY = lobby.Lobby((Player(seat=0, name="ana"), Player(seat=1)))


def _lobby_refusal(refused: Callable[[], object]) -> ApiError:
    """The problem the service answers for a refusal of the lobby's own rules."""
    try:
        refused()
    except errors.RuleError as error:
        return from_rule_error(error)
    raise AssertionError("the lobby accepted what this example says it refuses")


def _away_refusals() -> dict[str, ApiError]:
    """The away seats' refusals, as a real game of ana, bob and a bot, with a clock, makes them."""
    seats = (Player(seat=0, name="ana"), Player(seat=1, name="bob"), Player(seat=2, name="greedy", bot="greedy"))
    _, game = play.create_game(POISON.name, GAME_ID, seats, seed=_SEED, options={}, salt=_SALT, clock=Clock(60))
    _, waiting = play.create_game(
        POISON.name, GAME_ID, (seats[0], Player(seat=1), seats[2]), seed=_SEED, options={}, salt=_SALT
    )
    to_move = game.game.turn
    _, timed_out = play.time_out(game, to_move, "greedy")
    _, resigned = play.resign(game, 1 - to_move, "greedy")
    _, left_alone = play.time_out(timed_out, timed_out.game.turn, "greedy")
    hand = timed_out.game.hand(to_move)
    return {
        "game_waiting": _lobby_refusal(lambda: play.resign(waiting, 0, "greedy")),
        "game_abandoned": _lobby_refusal(lambda: play.come_back(left_alone, 0)),
        "seat_away": _lobby_refusal(lambda: play.play_move(timed_out, to_move, (hand[0], 0))),
        "seat_not_away": _lobby_refusal(lambda: play.come_back(game, to_move)),
        "seat_resigned": _lobby_refusal(lambda: play.come_back(resigned, 1 - to_move)),
    }


def _problems() -> dict[str, Any]:
    """A problem of every code, as the service renders it (its own constructors, where a
    refusal has one)."""
    defaults = Settings()  # the examples' limits are the defaults
    made = {
        "invalid_request": ApiError(400, "invalid_request", "player names must be unique in a game"),
        "unauthorized": ApiError(
            401, "unauthorized", "this needs 'Authorization: Bearer <token>' of a seat of this game"
        ),
        "game_not_found": from_unknown_game(UnknownGame(GAME_ID)),
        "not_found": ApiError(404, "not_found", "Not Found"),
        "method_not_allowed": ApiError(405, "method_not_allowed", "Method Not Allowed"),
        "not_your_turn": from_rule_error(errors.not_your_turn(1, 0)),
        "game_finished": from_rule_error(errors.game_finished()),
        "version_conflict": from_version_conflict(VersionConflict(4, 7)),
        "game_active": ApiError(409, "game_active", "a game's log is exported once the game is finished"),
        "game_archived": from_game_archived(GameArchived(GAME_ID)),
        "seat_taken": _lobby_refusal(lambda: lobby.joined(_LOBBY, 0, "bob")),
        "game_started": _lobby_refusal(lambda: lobby.left(lobby.started(lobby.joined(_LOBBY, 1, "bob")), 0)),
        **_away_refusals(),
        "payload_too_large": ApiError(413, "payload_too_large", "Request Entity Too Large"),
        "unsupported_media_type": ApiError(
            415, "unsupported_media_type", "this route takes a body as application/json, not text/plain"
        ),
        "card_not_in_hand": from_rule_error(errors.card_not_in_hand(0, "R7")),
        "illegal_cauldron": from_rule_error(errors.illegal_cauldron("B2", 2, "blue", ("blue", None, "red"), False)),
        "cannot_close": from_rule_error(errors.cannot_close("T6", "the pot would explode (9 + 6 = 15)")),
        "idempotency_key_reused": from_idempotency(
            IdempotencyKeyReused("idempotency key 'move-1' was used for a different request")
        ),
        "invalid_log": from_invalid_log(InvalidLog(3, "card_played: seat 1 may not play now: it is seat 0's turn")),
        "playouts_without_search": ApiError(
            422,
            "playouts_without_search",
            "players[1].playouts: the greedy bot plays this seat; playouts are the mcts bot's budget alone",
        ),
        "search_without_person": ApiError(
            422, "search_without_person", "players[0] is the mcts bot: a game with it needs a person or an open seat"
        ),
        "seed_with_open_seats": ApiError(422, "seed_with_open_seats", SEED_WITH_OPEN_SEATS),
        "search_limit": ApiError(
            422,
            "search_limit",
            f"checking this log's mcts moves takes 1,200,000 playouts; a replay searches {REPLAY_PLAYOUTS:,} at most",
        ),
        "rate_limited": from_rate_limited(RateLimited(2000, "new games from this address")),
        "search_budget": from_search_budget(SearchBudgetSpent(42_000)),
        "rebuild_budget": from_rebuild_budget(RebuildBudgetSpent(3000)),
        "client_gone": from_client_gone(ClientGone("the client hung up before its work started")),
        "internal_error": INTERNAL,
        "store_unavailable": from_store_unavailable(StoreUnavailable("the event store cannot be reached: timeout")),
        "request_timeout": ApiError(408, "request_timeout", "the request's head did not arrive within 10 s"),
        "too_many_connections": too_many_connections(defaults.max_connections),
        "too_many_client_connections": too_many_client_connections(defaults.client_connections),
        "too_many_streams": too_many_streams(defaults.client_streams),
        "streams_full": streams_full(Streams.of(defaults).most),
    }
    return {code: _problem(error) for code, error in made.items()}
