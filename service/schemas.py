"""Request and response bodies of the HTTP API (http-api.md), as msgspec Structs.

Requests forbid unknown fields and carry their bounds, so Litestar refuses a malformed
body (400 `invalid_request`) before a handler runs. Responses are separate from the event
Structs: the API may grow fields without touching the log.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

Card = Annotated[str, msgspec.Meta(pattern=r"^([RBP][12457]|G4)$", examples=["R5", "G4"])]
CauldronIndex = Annotated[int, msgspec.Meta(ge=0, le=2)]
Seat = Annotated[int, msgspec.Meta(ge=0, le=5)]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=32)]
BotName = Literal["random", "greedy"]
Colour = Literal["red", "blue", "purple"]


class Request(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Base of request bodies: unknown fields are errors."""


class Response(msgspec.Struct, kw_only=True):
    """Base of response bodies."""


# ---- requests -----------------------------------------------------------------------------


class PlayerIn(Request):
    name: Name
    bot: BotName | None = None


class RulesIn(Request):
    cauldrons: Literal["dynamic", "fixed"] = "dynamic"


class CreateGame(Request):
    players: Annotated[list[PlayerIn], msgspec.Meta(min_length=3, max_length=6)]
    rounds: Annotated[int, msgspec.Meta(ge=1, le=20)] | None = None
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] | None = None
    rules: RulesIn = msgspec.field(default_factory=RulesIn)
    ruleset: Literal["poison"] = "poison"


class PlayCard(Request):
    card: Card
    cauldron: CauldronIndex
    expected_version: Annotated[int, msgspec.Meta(ge=0)] | None = None


class ReplayBody(Request):
    events: list[dict[str, Any]]


# ---- responses ----------------------------------------------------------------------------


class RulesOut(Response):
    cauldrons: str


class PlayerView(Response):
    seat: int
    name: str
    bot: str | None
    hand_size: int
    taken: int


class CauldronView(Response):
    color: Colour | None
    total: int
    cards: list[str]


class MoveOut(Response):
    card: str
    cauldron: int


class You(Response):
    seat: int
    hand: list[str]
    legal_moves: list[MoveOut]


class AllHands(Response):
    """Every hand and the set-aside one: only in replays, where everything is shown."""

    hands: list[list[str]]
    set_aside: list[str]


class GameView(Response, kw_only=True):
    game_id: str
    version: int
    status: Literal["active", "finished"]
    ruleset: Literal["poison"] = "poison"
    rules: RulesOut
    rounds: int
    round: int
    dealer: int
    turn: int | None
    players: list[PlayerView]
    cauldrons: list[CauldronView]
    scores: list[list[int]]
    totals: list[int]
    winners: list[int]
    you: You | UnsetType = UNSET
    all: AllHands | UnsetType = UNSET


class SeatToken(Response):
    seat: int
    name: str
    token: str | UnsetType = UNSET  # human seats only; shown once, at creation


class GameCreatedOut(Response):
    game_id: str
    players: list[SeatToken]
    game: GameView


class EventOut(Response):
    version: int
    type: str
    data: dict[str, Any]


class MovePlayed(Response):
    version: int
    events: list[EventOut]
    game: GameView


class TakenOut(Response):
    red: int
    blue: int
    purple: int
    poison: int


class RoundScores(Response):
    round: int
    dealer: int
    scores: list[int]
    taken: list[TakenOut]
    discarded: list[list[str]]


class Scores(Response):
    status: Literal["active", "finished"]
    totals: list[int]
    winners: list[int]
    rounds: list[RoundScores]


class EventLog(Response):
    events: list[EventOut]
    version: int


class GameListed(Response):
    game_id: str
    status: str
    players: list[str]
    round: int
    rounds: int
    version: int


class GameList(Response):
    games: list[GameListed]
    next: str | None


class Replayed(Response):
    version: int
    game: GameView
    scores: Scores


class Health(Response):
    status: Literal["ok"]


class Problem(Response):
    """An error (RFC 9457), with the API's stable machine-readable `code`."""

    type: str
    title: str
    status: int
    detail: str
    code: str
