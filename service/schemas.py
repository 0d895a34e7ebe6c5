"""Request and response bodies of the HTTP API that every ruleset shares, as msgspec Structs,
and the field types each ruleset's own bodies are made of (service/<game>/schemas.py).

Requests forbid unknown fields and carry their bounds, so a malformed body is refused (400
`invalid_request`) before a handler runs; a body whose shape depends on the ruleset (a
new game's options, a move) is read in two steps: first its wire form, which admits what
any ruleset admits, then the game's ruleset checks its own fields (service/rulesets.py).
Responses that differ by ruleset (a game's view, its scores) are each ruleset's own, told
apart by `ruleset`; their unions, and the answers that hold them, are made from the registry
(service/rulesets.py, service/answers.py). Responses are separate from the event Structs:
the API may grow fields without touching the log. Every bound is the core's
(core/rulesets.py, core/errors.py), never retyped here.

These Structs are also the OpenAPI document's schemas (service/openapi.py has msgspec write
them): their docstrings and `Meta` descriptions are what integrators read, and responses
are typed as strictly as requests (a card is a card code, a status one of two words).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

from core.errors import CLOCK_BOUNDS, PLAYOUT_BOUNDS, SEARCH_BOT, SEED_LIMIT
from core.rulesets import RULESETS, Ruleset

#: The fewest and the most playouts a seat of the search bot may be given through the API
#: (the engine takes up to PLAYOUT_BOUNDS[1]): a decision at the most takes about a quarter
#: of a second of one core, so a request that lets five such bots move stays within seconds.
SERVICE_PLAYOUTS = (PLAYOUT_BOUNDS[0], 20_000)


def card_meta(ruleset: Ruleset, *examples: str) -> msgspec.Meta:
    """What a card of `ruleset` is checked against (its pattern) and shown with: a game's card
    type is `Annotated[str, card_meta(...)]`, which a type checker reads as a string."""
    return msgspec.Meta(pattern=ruleset.card_pattern, examples=list(examples), description=f"a card of {ruleset.title}")


# Types made from the core's data at run time; a type checker reads them as what they hold.
if TYPE_CHECKING:
    BotName = str
    RulesetName = str
else:
    # Every bot the engines play, the search bot included (service/controllers/games.py
    # refuses one the game's own ruleset lacks).
    BotName = Literal[tuple(sorted({bot for ruleset in RULESETS.values() for bot in ruleset.engine_bots}))]
    RulesetName = Literal[tuple(RULESETS)]
#: A card of any ruleset; the game's ruleset refuses a card of another one.
Card = Annotated[
    str,
    msgspec.Meta(
        pattern="|".join(ruleset.card_pattern for ruleset in RULESETS.values()),
        examples=["R5", "G4", "T3"],
        description="a card code: R1 R2 R4 R5 R7, B…, P…, G4 (Poison) or T0…T6 (the pot game)",
    ),
]
CauldronIndex = Annotated[int, msgspec.Meta(ge=0, le=2, description="a cauldron: 0, 1 or 2")]
MAX_SEAT = max(high for _, high in (ruleset.players for ruleset in RULESETS.values())) - 1
Seat = Annotated[int, msgspec.Meta(ge=0, le=MAX_SEAT, description="a seat: 0 for the first player, in order")]
Seats = Annotated[list[Seat], msgspec.Meta(description="seats, in order")]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=32)]
GameStatus = Literal["waiting", "active", "finished", "abandoned"]
#: A seat's name in a view or the listing: null while the seat is open (the lobby).
SeatName = Annotated[Name | None, msgspec.Meta(description="the player's name; null: an open seat, nobody sits there")]
OpenSeat = Annotated[bool, msgspec.Meta(description="present (true) only on an open seat, which anyone may join")]
Version = Annotated[int, msgspec.Meta(ge=1, description="the number of events in the game's log")]
GameId = Annotated[str, msgspec.Meta(examples=["9K46SJYydR0cf_B7"], description="the game's id")]
Count = Annotated[int, msgspec.Meta(ge=0)]
_DEFAULT_PLAYOUTS = ", ".join(
    f"{r.default_playouts:,} ({r.title})" for r in RULESETS.values() if SEARCH_BOT in r.engine_bots
)
Playouts = Annotated[
    int,
    msgspec.Meta(
        ge=SERVICE_PLAYOUTS[0],
        le=SERVICE_PLAYOUTS[1],
        examples=[2000],
        description=f"the {SEARCH_BOT} bot only: the playouts of each of its decisions (more plays stronger and "
        f"slower); default: the ruleset's, {_DEFAULT_PLAYOUTS}",
    ),
]
#: A seat's playouts in a view: present on a search bot's seat alone.
PlayoutsOut = Annotated[
    int,
    msgspec.Meta(
        ge=PLAYOUT_BOUNDS[0],
        le=PLAYOUT_BOUNDS[1],
        description=f"the {SEARCH_BOT} bot's seat only: the playouts of each of its decisions (the default "
        "included, as the log records it); absent on every other seat",
    ),
]
Points = Annotated[list[int], msgspec.Meta(description="one number per seat, in seat order")]
SecondsPerMove = Annotated[int, msgspec.Meta(ge=CLOCK_BOUNDS[0], le=CLOCK_BOUNDS[1])]


class Request(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Base of request bodies: unknown fields are errors."""


class Response(msgspec.Struct, kw_only=True):
    """Base of response bodies."""


# ---- requests -----------------------------------------------------------------------------


class PlayerIn(Request):
    """A seat of a new game: a person (who gets a token), a bot (which the service plays), or
    an open seat (`{"open": true}`: anyone may join it; the game waits until none is open)."""

    name: Annotated[Name | None, msgspec.Meta(description="1 to 32 characters, unique in the game")] = None
    bot: Annotated[
        BotName | None,
        msgspec.Meta(description="a bot plays this seat at once whenever it is its turn; null or absent: a person"),
    ] = None
    open: Annotated[
        Literal[True] | UnsetType,
        msgspec.Meta(description="true: leave the seat open for someone to join (no name, never a bot)"),
    ] = UNSET
    playouts: Playouts | UnsetType = UNSET


Seed = Annotated[
    int,
    msgspec.Meta(
        ge=0,
        le=SEED_LIMIT,
        description="makes every deal (and every random bot) reproducible; default: a random seed",
        examples=[12345],
    ),
]


def players_of(ruleset: Ruleset) -> Any:
    low, high = ruleset.players
    return Annotated[
        list[PlayerIn], msgspec.Meta(min_length=low, max_length=high, description=f"{low} to {high} seats, in order")
    ]


class PlayCard(Request):
    """A move of the seat whose token is sent. Poison's names a `cauldron`; the pot game's may
    `close` the pot (default false). A field of the other ruleset is refused (400)."""

    card: Card
    cauldron: Annotated[CauldronIndex, msgspec.Meta(description="Poison only: the cauldron the card goes into")] | (
        UnsetType
    ) = UNSET
    close: Annotated[bool, msgspec.Meta(description="the pot game only: close the pot with this card")] | (
        UnsetType
    ) = UNSET
    expected_version: (
        Annotated[
            int,
            msgspec.Meta(
                ge=0,
                description="play only if the game is still at this version, else 409 version_conflict; "
                "without it, a move that loses a race is checked again against the new state",
            ),
        ]
        | None
    ) = None


class ReplayBody(Request):
    """A log to replay, as JSON (NDJSON is the other form: the same events, one per line)."""

    events: list[dict[str, Any]]


# ---- responses ----------------------------------------------------------------------------


#: A game's commitment to its deals, as its view shows it (events.commitment makes it).
SeedCommitment = Annotated[
    str,
    msgspec.Meta(
        pattern="^[0-9a-f]{64}$",
        description='the game\'s commitment to its deals: the lowercase hex SHA-256 of "<seed>:<salt>", whose seed '
        "and salt the log reveals once the game is over (docs/security.md says how to check it); absent for a game "
        "created before games committed to their deals",
    ),
]


# ---- what every game's bodies, view and score sheet hold (each game's own, service/<game>/schemas.py)


class ClockIn(Request):
    """A new game's clock."""

    seconds_per_move: Annotated[
        SecondsPerMove,
        msgspec.Meta(
            examples=[60],
            description="how long each person has for each move; when it runs out, a bot takes the seat (it is "
            "`away`) and moves at once",
        ),
    ]


#: A new game's `clock`, in every game's body.
ClockOption = Annotated[
    ClockIn | None,
    msgspec.Meta(
        description="the game's clock; none when absent or null (a server may give a game with open seats one of "
        "its own)"
    ),
]


class CreateWithoutOptions(Request):
    """What a new game of a ruleset without options is: its seats and its seed. Each game's
    body redeclares `players` in its bounds (`players_of`), in this place."""

    players: list[PlayerIn]
    seed: Seed | None = None
    clock: ClockOption = None


class ClockView(Response):
    """A game's clock, and when it runs out for the seat to move."""

    seconds_per_move: SecondsPerMove
    deadline: Annotated[
        str | None,
        msgspec.Meta(
            examples=["2026-12-02T18:04:05.250Z"],
            description="when the seat to move, a person's, runs out of time (RFC 3339, UTC): a bot then takes it; "
            "null when no person is to move (a bot's turn, waiting, over, or a past version)",
        ),
    ]


class ViewHead(Response, kw_only=True):
    """What every game's view begins with; each game's view adds its own fields after."""

    game_id: GameId
    version: Version
    status: GameStatus
    clock: Annotated[ClockView | None, msgspec.Meta(description="the game's clock; null: it has none")] = None


#: A view's `next_game`: present once the finished game has a rematch.
NextGame = (
    Annotated[GameId, msgspec.Meta(description="the rematch of this finished game, once one is created; absent before")]
    | UnsetType
)

SeatBot = Annotated[BotName | None, msgspec.Meta(description="the bot that plays this seat; null: a person")]
AwayMark = Annotated[
    bool,
    msgspec.Meta(
        description="true while the seat's person is away (its clock ran out, or it resigned): a bot plays it"
    ),
]
ResignedMark = Annotated[bool, msgspec.Meta(description="true once the seat's person resigned: it never comes back")]
AwayBot = (
    Annotated[
        BotName,
        msgspec.Meta(description="the bot that plays this seat while its person is away; absent on every other seat"),
    ]
    | UnsetType
)
HandSize = Annotated[Count, msgspec.Meta(description="how many cards the seat holds")]


def winners_of(ruleset: Ruleset) -> Any:
    """The winners of a game of `ruleset`, in its words: the lowest or the highest total."""
    best = "lowest" if ruleset.lowest_wins else "highest"
    return Annotated[Seats, msgspec.Meta(description=f"the seats with the {best} total once finished; empty before")]


class SeatView(Response):
    """A seat of a game, as anyone sees it: what every game shows of a seat (Poison adds what
    it has taken)."""

    seat: Seat
    name: SeatName
    bot: SeatBot
    hand_size: HandSize
    away: AwayMark = False
    away_bot: AwayBot = UNSET
    resigned: ResignedMark = False
    open: OpenSeat | UnsetType = UNSET
    playouts: PlayoutsOut | UnsetType = UNSET


class ScoreSheet(Response):
    """What every game's score sheet begins with; each game's sheet redeclares `winners` in
    its words (`winners_of`), in this place, and adds its own lines after."""

    status: GameStatus
    totals: Points
    winners: Seats


Token = Annotated[
    str,
    msgspec.Meta(
        pattern="^[A-Za-z0-9_-]{20,128}$",
        description="the seat's secret, shown only here, once: send it as `Authorization: Bearer <token>`",
    ),
]


class SeatToken(Response):
    """A seat of the new game; a person's carries its token. A bot's seat has none: the
    service plays it, so nobody may send its moves."""

    seat: Seat
    name: SeatName
    open: OpenSeat | UnsetType = UNSET
    token: Token | UnsetType = UNSET


class JoinSeat(Request):
    """Taking an open seat of a waiting game."""

    name: Annotated[Name, msgspec.Meta(description="1 to 32 characters, unique in the game")]


class EventOut(Response):
    """An event as the API shows it (the document names each type's `data`: see Event)."""

    version: Version
    type: str
    data: dict[str, Any]


class EventLog(Response):
    """A page of the event log, redacted for the caller while the game is active."""

    events: list[EventOut]
    version: Annotated[
        Version, msgspec.Meta(description="the game's version: ask again with `after` while your last event is below")
    ]


class GameListed(Response):
    """A game in the listing; `ruleset` is shown for any game but Poison's (as before the
    pot game, an entry without one is Poison's)."""

    game_id: GameId
    status: GameStatus
    players: Annotated[list[SeatName], msgspec.Meta(description="the players' names, in seat order; null: open")]
    round: Annotated[int | None, msgspec.Meta(description="the round being played; null for the pot game")]
    rounds: Annotated[int | None, msgspec.Meta(description="how many rounds; null for the pot game")]
    version: Version
    ruleset: RulesetName | UnsetType = UNSET


class GameList(Response):
    """A page of games, newest first."""

    games: list[GameListed]
    next: Annotated[
        str | None,
        msgspec.Meta(
            description="pass it as `cursor` for the next page; null on the last page. A page may hold "
            "fewer games than `limit` and still have a next one"
        ),
    ]


class Health(Response):
    status: Literal["ok"]


class Problem(Response):
    """An error (RFC 9457), with the API's stable machine-readable `code`: branch on `code`,
    never on `detail`, which is written for people and may change."""

    type: Annotated[str, msgspec.Meta(description="a URI naming the problem: its base and the code")]
    title: Annotated[str, msgspec.Meta(description="the problem's kind, for people")]
    status: Annotated[int, msgspec.Meta(ge=400, le=599, description="the HTTP status")]
    detail: Annotated[str, msgspec.Meta(description="what went wrong this time, for people")]
    code: str
    current_version: (
        Annotated[Version, msgspec.Meta(description="version_conflict only: the game's version now")] | UnsetType
    ) = UNSET
    at_version: (
        Annotated[Version, msgspec.Meta(description="invalid_log only: the version of the first bad event")] | UnsetType
    ) = UNSET
    reason: (
        Annotated[
            str,
            msgspec.Meta(
                description="invalid_request from the rules engine only: the engine's own code "
                "(e.g. unknown_card, seat_out_of_range)",
                examples=["unknown_ruleset"],
            ),
        ]
        | UnsetType
    ) = UNSET
    retry_after: (
        Annotated[
            int,
            msgspec.Meta(
                ge=1,
                description="the refusals of limits only (429, 503 streams_full): seconds to wait (as Retry-After)",
            ),
        ]
        | UnsetType
    ) = UNSET
