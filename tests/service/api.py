"""Helpers for the API tests: create games, play moves, follow the reference."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec
from litestar.testing import AsyncTestClient

from core.rulesets import Ruleset, bot_seed
from events.rulesets import rules_for
from tests.rulesets import facts

PROBLEM = "application/problem+json"


def problem(response, status: int, code: str) -> dict:
    """The body of a problem answer (RFC 9457) with this status and code, and a detail."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body = response.json()
    assert (body["code"], body["status"]) == (code, status)
    assert {"type", "title", "detail"} <= body.keys()
    assert body["detail"]
    return body


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def create(client: AsyncTestClient, players: int = 4, *, bots: dict[int, str] | None = None, **options: Any):
    bots = bots or {}
    body = {
        "players": [{"name": f"p{s}", **({"bot": bots[s]} if s in bots else {})} for s in range(players)],
        **options,
    }
    response = await client.post("/v1/games", json=body)
    assert response.status_code == 201, response.text
    created = response.json()
    tokens = {p["seat"]: p["token"] for p in created["players"] if "token" in p}
    return created, tokens


async def view(client: AsyncTestClient, game_id: str, token: str | None = None) -> dict:
    response = await client.get(f"/v1/games/{game_id}", headers=auth(token) if token else {})
    assert response.status_code == 200, response.text
    return response.json()


def parse_stream(text: str) -> list[tuple[int, str, dict]]:
    """A live stream's messages: (id, event, data) each."""
    messages, fields = [], {}
    for line in [*text.splitlines(), ""]:
        if line:
            key, _, value = line.partition(": ")
            fields[key] = value
        elif fields:
            messages.append((int(fields["id"]), fields["event"], msgspec.json.decode(fields["data"])))
            fields = {}
    return messages


# ---- any ruleset's game, followed by its reference ----------------------------------------


def shortest(ruleset: Ruleset) -> dict[str, int]:
    """The options of the ruleset's shortest game: each numbered option at its least."""
    return {option.name: option.bounds[0] for option in ruleset.options if option.bounds}


def body_of(ruleset: Ruleset, move: tuple[Any, ...]) -> dict[str, Any]:
    """A move's request body (`{"card": "R5", "cauldron": 0}`) from its fields."""
    return dict(zip(rules_for(ruleset.name).move_type._fields, move, strict=True))


def move_in(ruleset: Ruleset, data: Mapping[str, Any]) -> tuple[Any, ...]:
    """The move a card_played event's data (or a move's body) names, its fields in order."""
    return tuple(data[name] for name in rules_for(ruleset.name).move_type._fields)


@dataclass
class Table:
    """A game of any ruleset over HTTP, followed move by move by the ruleset's reference
    game (`oracle`), which also demands that every bot played the move it plays."""

    client: AsyncTestClient
    ruleset: Ruleset
    created: dict
    tokens: dict[int, str]
    oracle: Any
    seed: int
    bots: Mapping[int, str]
    rng: random.Random = field(default_factory=random.Random)

    @classmethod
    async def new(
        cls,
        client: AsyncTestClient,
        ruleset: Ruleset,
        players: int,
        *,
        seed: int,
        bots: Mapping[int, str] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Table:
        bots, options = dict(bots or {}), dict(options or {})
        created, tokens = await create(client, players, bots=bots, seed=seed, ruleset=ruleset.name, **options)
        oracle = ruleset.reference.Game(players, seed=seed, **options)
        table = cls(client, ruleset, created, tokens, oracle, seed, bots, random.Random(seed))
        after = (await client.get(f"/v1/games/{table.game_id}/events?after=2&limit=5000")).json()
        table.follow(after["events"])  # the bots' moves made at the creation
        return table

    @property
    def game_id(self) -> str:
        return self.created["game_id"]

    @property
    def finished(self) -> bool:
        return self.oracle.status == "finished"

    def hands(self) -> list[tuple[str, ...]]:
        return [self.oracle.hand(seat) for seat in range(self.oracle.players)]

    def follow(self, events: list[dict]) -> None:
        """Apply the moves of these events to the reference."""
        for event in events:
            if event["type"] != "card_played":
                continue
            seat, move = event["data"]["seat"], move_in(self.ruleset, event["data"])
            bot = self.bots.get(seat)
            if bot is not None:
                assert move == tuple(self.oracle.choose(bot, bot_seed(self.seed, event["version"] - 1))), event
            self.oracle.play(seat, *move)

    async def move(self, move: tuple[Any, ...] | None = None):
        """The move (by default the ruleset's pick) of the seat whose turn it is: 201."""
        seat = self.oracle.turn
        move = facts(self.ruleset).pick(self.oracle, self.rng) if move is None else move
        response = await self.client.post(
            f"/v1/games/{self.game_id}/moves", json=body_of(self.ruleset, move), headers=auth(self.tokens[seat])
        )
        assert response.status_code == 201, response.text
        self.follow(response.json()["events"])
        return response

    async def play_until(self, done: Callable[[Any], bool]) -> None:
        while not done(self.oracle):
            await self.move()


def check_no_leak(ruleset: Ruleset, body, caller: int | None, hands: list[tuple[str, ...]], finished: bool) -> None:
    """Walk an answer: a `hand` is only the caller's own, as the reference holds it; while
    the game is active, dealt hands of other seats, the ruleset's hidden cards (Poison's
    set-aside hand, the pot's draw pile and the cards other seats drew), the seed and its salt are
    hidden; `all` (every hand) is never in a live answer."""
    known = facts(ruleset)

    def walk(node) -> None:
        if isinstance(node, dict):
            if not finished and known.own_cards and known.own_cards <= node.keys() and node["seat"] != caller:
                assert node["cards"] is None, node
            for key, value in node.items():
                if key == "hand":
                    assert caller is not None
                    assert value == list(hands[caller])
                elif key == "hands" and not finished:
                    for index, hand in enumerate(value):
                        assert hand is None or index == caller
                elif key in known.hidden_keys and not finished:
                    assert value is None or (known.hidden_keys[key] and type(value) is int), node
                elif key in ("seed", "salt") and not finished:
                    assert value is None
                elif key == "all":
                    raise AssertionError("a live answer shows every hand")
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(body)


def http_scope(
    method: str,
    path: str,
    headers: Mapping[str, str] | None = None,
    *,
    client: tuple[str, int] = ("127.0.0.1", 50_000),
    raw_path: bytes | None = None,
) -> dict[str, Any]:
    """The ASGI scope of one HTTP/1.1 request of `path` (its query after '?'), for tests that
    call the app's ASGI callable themselves: a live stream under way, a client that hangs up,
    a path exactly as sent (`raw_path`, before any percent-decoding)."""
    route, _, query = path.partition("?")
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": route,
        "raw_path": route.encode() if raw_path is None else raw_path,
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(b"host", b"test"), *((k.lower().encode(), v.encode()) for k, v in (headers or {}).items())],
        "client": client,
        "server": ("test", 80),
        "state": {},
    }
