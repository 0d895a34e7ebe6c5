"""Request and response bodies of the HTTP API, as msgspec Structs, for every ruleset.

Requests forbid unknown fields and carry their bounds, so a malformed body is refused (400
`invalid_request`) before a handler runs; a body whose shape depends on the ruleset (a
new game's options, a move) is read in two steps: first its wire form, which admits what
any ruleset admits, then the game's ruleset checks its own fields (service/rulesets.py).
Responses that differ by ruleset (a game's view, its scores) are unions tagged by
`ruleset`, so a client (and the OpenAPI document) tells them apart by that field.
Responses are separate from the event Structs: the API may grow fields without touching
the log. Every bound is the core's (core/rulesets.py), never retyped here.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

from core.rulesets import POISON, POT, RULESETS, Ruleset

#: A card of any ruleset; the game's ruleset refuses a card of another one.
Card = Annotated[
    str,
    msgspec.Meta(
        pattern=f"{POISON.card_pattern}|{POT.card_pattern}",
        examples=["R5", "G4", "T3"],
        description="a card code: R1 R2 R4 R5 R7, B…, P…, G4 (Poison) or T0…T6 (the pot game)",
    ),
]
CauldronIndex = Annotated[int, msgspec.Meta(ge=0, le=2)]
Seat = Annotated[int, msgspec.Meta(ge=0, le=5)]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=32)]
BotName = Literal[tuple(sorted({bot for ruleset in RULESETS.values() for bot in ruleset.bots}))]  # type: ignore[valid-type]
RulesetName = Literal[tuple(RULESETS)]  # type: ignore[valid-type]
Colour = Literal["red", "blue", "purple"]
ROUNDS = POISON.option("rounds").bounds or (1, 1)


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


Seed = Annotated[
    int, msgspec.Meta(ge=0, le=2**63 - 1, description="makes every deal (and every random bot) reproducible")
]


def players_of(ruleset: Ruleset) -> Any:
    low, high = ruleset.players
    return Annotated[
        list[PlayerIn], msgspec.Meta(min_length=low, max_length=high, description=f"{low} to {high} seats, in order")
    ]


class PoisonCreate(Request, tag_field="ruleset", tag=POISON.name):
    """A new game of Poison. Its `ruleset` may be left out: a game that names none is Poison."""

    players: players_of(POISON)  # type: ignore[valid-type]
    rounds: Annotated[int, msgspec.Meta(ge=ROUNDS[0], le=ROUNDS[1])] | None = None
    seed: Seed | None = None
    rules: RulesIn = msgspec.field(default_factory=RulesIn)


class PotCreate(Request, tag_field="ruleset", tag=POT.name):
    """A new pot game. It has no options: `rounds` and `rules` are refused."""

    players: players_of(POT)  # type: ignore[valid-type]
    seed: Seed | None = None


CreateGame = PoisonCreate | PotCreate


class PlayCard(Request):
    """A move: Poison's names a `cauldron`; the pot game's may ask to `close` the pot."""

    card: Card
    cauldron: CauldronIndex | UnsetType = UNSET
    close: bool | UnsetType = UNSET
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


class GameView(Response, kw_only=True, tag_field="ruleset", tag=POISON.name):
    """A game of Poison as the caller may see it."""

    game_id: str
    version: int
    status: Literal["active", "finished"]
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
    game: AnyGameView


class EventOut(Response):
    version: int
    type: str
    data: dict[str, Any]


class MovePlayed(Response):
    version: int
    events: list[EventOut]
    game: AnyGameView


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


class Scores(Response, tag_field="ruleset", tag=POISON.name):
    """Poison's score sheet, round by round."""

    status: Literal["active", "finished"]
    totals: list[int]
    winners: list[int]
    rounds: list[RoundScores]


# ---- the pot game ------------------------------------------------------------------------


class PotPlayerView(Response):
    seat: int
    name: str
    bot: str | None
    hand_size: int


class PotOut(Response):
    cards: list[str]
    toxicity: int


class PotMoveOut(Response):
    card: str
    close: bool


class PotYou(Response):
    seat: int
    hand: list[str]
    legal_moves: list[PotMoveOut]


class PotAll(Response):
    """Every hand and the draw pile's order: only in replays, where everything is shown."""

    hands: list[list[str]]
    draw_pile: list[str]


class PotGameView(Response, kw_only=True, tag_field="ruleset", tag=POT.name):
    """A pot game as the caller may see it."""

    game_id: str
    version: int
    status: Literal["active", "finished"]
    turn: int | None
    players: list[PotPlayerView]
    pot: PotOut
    draw_pile: int
    endgame: bool
    totals: list[int]
    winners: list[int]
    you: PotYou | UnsetType = UNSET
    all: PotAll | UnsetType = UNSET


class PotLine(Response):
    """One pot that ended: closed (by `seat`, for `points`) or exploded (by `seat`'s card)."""

    seat: int
    outcome: Literal["closed", "exploded"]
    cards: list[str]
    toxicity: int
    points: int


class PotScores(Response, tag_field="ruleset", tag=POT.name):
    """The pot game's score sheet, pot by pot."""

    status: Literal["active", "finished"]
    totals: list[int]
    winners: list[int]
    pots: list[PotLine]


AnyGameView = GameView | PotGameView
AnyScores = Scores | PotScores


class EventLog(Response):
    events: list[EventOut]
    version: int


class GameListed(Response):
    """A game in the listing; `ruleset` is shown for any game but Poison's (as before the
    pot game, an entry without one is Poison's)."""

    game_id: str
    status: str
    players: list[str]
    round: int | None  # null for a game without rounds (the pot game)
    rounds: int | None
    version: int
    ruleset: RulesetName | UnsetType = UNSET


class GameList(Response):
    games: list[GameListed]
    next: str | None


class Replayed(Response):
    version: int
    game: AnyGameView
    scores: AnyScores


class Health(Response):
    status: Literal["ok"]


class Problem(Response):
    """An error (RFC 9457), with the API's stable machine-readable `code`."""

    type: str
    title: str
    status: int
    detail: str
    code: str
