"""A small typed client of the public HTTP API (docs/http-api.md), over httpx.

It speaks only what the contract promises, and reads every answer into the service's own
response Structs (service/schemas.py), so a client and the service can never disagree on
a body's shape without a test noticing. `poison play --server` plays through it. It must
never reach past the API (no store, no engine): what a seat sees here is exactly what any
integrator's client would see.

Failures come in two kinds, each one line a person can read: `ApiProblem`, the service's
problem+json (its `code` to branch on, its `detail` to show), and `Unreachable`, no answer
or no API's answer. Reads and moves are retried on a dropped connection or a 503: a move
always carries an `Idempotency-Key`, so its retry is answered as the first attempt was
and never plays twice; so do the lobby's requests (taking a seat, leaving it, playing
again). Creating a game is not retried: the API has no key for it.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Mapping
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import quote

import httpx
import msgspec
from httpx_sse import SSEError, connect_sse

from service.answers import GameCreatedOut, MovePlayed, SeatTakenOut
from service.rulesets import AnyGameView, AnyScores
from service.schemas import EventLog, EventOut, GameList, Problem

T = TypeVar("T")

#: Seconds to wait before each retry of a request that may be retried.
RETRY_DELAYS = (0.2, 0.5, 1.0)
#: Seconds for one request's connection, and for its answer.
TIMEOUT = httpx.Timeout(10.0, connect=5.0)
#: The most events one read of the log asks for (the API's own bound for `limit`).
EVENTS_PAGE = 5000
#: How many games one read of the listing asks for (the API takes up to 200).
LISTING_PAGE = 100
#: The events a game's log ends with, and its stream with them.
ENDS = frozenset({"game_finished", "game_abandoned"})


class ClientError(Exception):
    """The service could not do what was asked; the message says why in one line."""


class Unreachable(ClientError):
    """No answer from the service, or an answer that is not the API's."""


class ApiProblem(ClientError):
    """The service's problem+json answer: `code` is stable, `detail` is for people."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail


# Every answer is read strictly into its Struct: a server that is not this API is told apart.
_problem = msgspec.json.Decoder(Problem)
_event = msgspec.json.Decoder(EventOut)
_created = msgspec.json.Decoder(GameCreatedOut)
_view: msgspec.json.Decoder[AnyGameView] = msgspec.json.Decoder(AnyGameView)
_played = msgspec.json.Decoder(MovePlayed)
_scores: msgspec.json.Decoder[AnyScores] = msgspec.json.Decoder(AnyScores)
_log = msgspec.json.Decoder(EventLog)
_listed = msgspec.json.Decoder(GameList)
_seated = msgspec.json.Decoder(SeatTakenOut)
_JSON = {"Content-Type": "application/json"}


def _bearer(token: str | None) -> dict[str, str]:
    return {} if token is None else {"Authorization": f"Bearer {token}"}


class Client:
    """The API at `base_url` ("http://127.0.0.1:8000"). Use it as a context manager, or
    call close(): it keeps one connection pool."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url.rstrip("/")
        self._http = httpx.Client(base_url=self.base_url, timeout=TIMEOUT)

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # -- the endpoints ---------------------------------------------------------------------

    def create_game(self, body: Any) -> GameCreatedOut:
        """POST /v1/games with `body` (a member of service.schemas.CreateGame, or its dict)."""
        content = msgspec.json.encode(body)
        answer = self._send("POST", "/v1/games", retry=False, content=content, headers=_JSON)
        return self._read(answer, _created)

    def game(self, game_id: str, token: str | None = None) -> AnyGameView:
        """GET /v1/games/{id}: the game as the token's seat sees it (with `you`), or public."""
        answer = self._send("GET", _path(game_id), headers=_bearer(token))
        return self._read(answer, _view)

    def move(
        self, game_id: str, token: str, move: Mapping[str, Any], *, expected_version: int | None, key: str
    ) -> MovePlayed:
        """POST /v1/games/{id}/moves: `move` is the ruleset's fields ({"card", "cauldron"} or
        {"card", "close"}); `key` is its Idempotency-Key, the same for every retry of it."""
        body = dict(move) if expected_version is None else {**move, "expected_version": expected_version}
        headers = {**_bearer(token), **_JSON, "Idempotency-Key": key}
        answer = self._send("POST", _path(game_id, "moves"), content=msgspec.json.encode(body), headers=headers)
        return self._read(answer, _played)

    def games(self, status: str | None = None, *, limit: int = LISTING_PAGE) -> GameList:
        """GET /v1/games: the newest games (those of one `status`, like "waiting"), one page."""
        params: dict[str, str | int] = {"limit": limit} | ({} if status is None else {"status": status})
        return self._read(self._send("GET", "/v1/games", params=params), _listed)

    def join(self, game_id: str, seat: int, name: str, *, key: str) -> SeatTakenOut:
        """POST /v1/games/{id}/seats/{seat}: take an open seat of a waiting game as `name`;
        the seat's token and the game as it sees it. `key`: the same for every retry."""
        headers = {**_JSON, "Idempotency-Key": key}
        path = _path(game_id, "seats", str(seat))
        answer = self._send("POST", path, content=msgspec.json.encode({"name": name}), headers=headers)
        return self._read(answer, _seated)

    def leave(self, game_id: str, seat: int, token: str, *, key: str) -> None:
        """DELETE /v1/games/{id}/seats/{seat}: give the seat back while the game waits (it
        opens again; the token stops working)."""
        headers = {**_bearer(token), "Idempotency-Key": key}
        answer = self._send("DELETE", _path(game_id, "seats", str(seat)), headers=headers)
        if answer.status_code >= 400:
            raise self._problem(answer)

    def rematch(self, game_id: str, token: str, *, key: str) -> SeatTakenOut:
        """POST /v1/games/{id}/rematch: the token's seat in the finished game's next game
        (the first seat to ask makes it, the others join it)."""
        headers = {**_bearer(token), "Idempotency-Key": key}
        return self._read(self._send("POST", _path(game_id, "rematch"), headers=headers), _seated)

    def resign(self, game_id: str, seat: int, token: str, *, key: str) -> AnyGameView:
        """POST /v1/games/{id}/seats/{seat}/resign: a bot plays the seat for the rest of the
        game; the game as the seat sees it after. `key`: the same for every retry."""
        return self._seat_step(game_id, seat, token, "resign", key)

    def come_back(self, game_id: str, seat: int, token: str, *, key: str) -> AnyGameView:
        """POST /v1/games/{id}/seats/{seat}/return: a seat whose clock ran out is its
        person's again; the game as the seat sees it after. `key`: the same for every retry."""
        return self._seat_step(game_id, seat, token, "return", key)

    def _seat_step(self, game_id: str, seat: int, token: str, step: str, key: str) -> AnyGameView:
        headers = {**_bearer(token), "Idempotency-Key": key}
        return self._read(self._send("POST", _path(game_id, "seats", str(seat), step), headers=headers), _view)

    def scores(self, game_id: str) -> AnyScores:
        answer = self._send("GET", _path(game_id, "scores"))
        return self._read(answer, _scores)

    def events(self, game_id: str, token: str | None = None, *, after: int = 0) -> list[EventOut]:
        """GET /v1/games/{id}/events: every event after `after`, page after page."""
        events: list[EventOut] = []
        while True:
            params = {"after": after, "limit": EVENTS_PAGE}
            answer = self._send("GET", _path(game_id, "events"), params=params, headers=_bearer(token))
            page = self._read(answer, _log)
            events += page.events
            if not page.events or page.events[-1].version >= page.version:
                return events
            after = page.events[-1].version

    def follow(self, game_id: str, token: str | None = None, *, after: int = 0) -> Generator[EventOut, None, None]:
        """GET /v1/games/{id}/events/stream: the events after `after` as they happen, up to
        the game's end (`game_finished`, `game_abandoned`). Close the iterator
        (contextlib.closing) to stop following. A stream that breaks off before the end is
        opened again from the last event it gave (`Last-Event-ID`), a few times in a row at
        most."""
        # No read timeout: the next event comes when another seat moves, however long it thinks.
        timeout = httpx.Timeout(TIMEOUT.connect, read=None)
        failures = 0
        while True:
            headers = {**_bearer(token), "Last-Event-ID": str(after)}
            try:
                with connect_sse(
                    self._http, "GET", _path(game_id, "events", "stream"), headers=headers, timeout=timeout
                ) as source:
                    if source.response.status_code != 200:
                        source.response.read()
                        raise self._problem(source.response)
                    for message in source.iter_sse():
                        event = _event.decode(message.data)
                        after, failures = event.version, 0
                        yield event
                        if event.type in ENDS:
                            return
                why = "the stream ended before the game did"
            except (httpx.TransportError, SSEError) as error:
                why = _why(error)
            except (msgspec.DecodeError, msgspec.ValidationError) as error:
                raise Unreachable(f"{self.base_url} sent a stream message that is no event: {error}") from None
            if failures == len(RETRY_DELAYS):
                raise Unreachable(f"cannot follow the game at {self.base_url}: {why}")
            time.sleep(RETRY_DELAYS[failures])
            failures += 1

    # -- requests and answers -----------------------------------------------------------------

    def _send(self, method: str, path: str, *, retry: bool = True, **options: Any) -> httpx.Response:
        delays = (0.0, *RETRY_DELAYS) if retry else (0.0,)
        for attempt, delay in enumerate(delays, start=1):
            time.sleep(delay)
            try:
                answer = self._http.request(method, path, **options)
            except httpx.TransportError as error:
                if attempt == len(delays):
                    raise Unreachable(f"cannot reach {self.base_url}: {_why(error)}") from None
                continue
            if answer.status_code != 503 or attempt == len(delays):
                return answer
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _read(self, answer: httpx.Response, decoder: msgspec.json.Decoder[T]) -> T:
        if answer.status_code >= 400:
            raise self._problem(answer)
        try:
            return decoder.decode(answer.content)
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            raise Unreachable(f"{self.base_url} did not answer as the Poison API does ({error})") from None

    def _problem(self, answer: httpx.Response) -> ClientError:
        try:
            problem = _problem.decode(answer.content)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return Unreachable(f"{self.base_url} answered {answer.status_code} {answer.reason_phrase}, not the API")
        return ApiProblem(problem.status, problem.code, problem.detail)


def _path(game_id: str, *rest: str) -> str:
    """A game's path; its id quoted (an id is URL-safe, but one typed by a person may not be)."""
    return "/".join(("/v1/games", quote(game_id, safe=""), *rest))


def _why(error: Exception) -> str:
    """A transport failure in a few words ("[Errno 111] Connection refused", "ReadTimeout")."""
    return str(error) or type(error).__name__
