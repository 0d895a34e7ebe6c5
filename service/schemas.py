"""Request and response bodies of the HTTP API, as msgspec Structs, for every ruleset.

Requests forbid unknown fields and carry their bounds, so a malformed body is refused (400
`invalid_request`) before a handler runs; a body whose shape depends on the ruleset (a
new game's options, a move) is read in two steps: first its wire form, which admits what
any ruleset admits, then the game's ruleset checks its own fields (service/rulesets.py).
Responses that differ by ruleset (a game's view, its scores) are unions tagged by
`ruleset`, so a client (and the OpenAPI document) tells them apart by that field.
Responses are separate from the event Structs: the API may grow fields without touching
the log. Every bound is the core's (core/rulesets.py, core/errors.py), never retyped here.

These Structs are also the OpenAPI document's schemas (service/openapi.py has msgspec write
them): their docstrings and `Meta` descriptions are what integrators read, and responses
are typed as strictly as requests (a card is a card code, a status one of two words).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

from core.errors import PLAYOUT_BOUNDS, SEARCH_BOT, SEED_LIMIT
from core.rulesets import POISON, POT, RULESETS, Ruleset
from events.commitment import CommitmentStatus

#: The fewest and the most playouts a seat of the search bot may be given through the API
#: (the engine takes up to PLAYOUT_BOUNDS[1]): a decision at the most takes about a quarter
#: of a second of one core, so a request that lets five such bots move stays within seconds.
SERVICE_PLAYOUTS = (PLAYOUT_BOUNDS[0], 20_000)


def _card(ruleset: Ruleset, *examples: str) -> Any:
    return Annotated[
        str,
        msgspec.Meta(pattern=ruleset.card_pattern, examples=list(examples), description=f"a card of {ruleset.title}"),
    ]


# Types made from the core's data at run time; a type checker reads them as what they hold.
if TYPE_CHECKING:
    PoisonCard = str
    PotCard = str
    BotName = str
    RulesetName = str
else:
    #: A card of Poison: a potion (R, B or P for red, blue, purple, then its value) or a poison (G4).
    PoisonCard = _card(POISON, "R5", "B7", "G4")
    #: A card of the pot game: T and its toxicity.
    PotCard = _card(POT, "T3", "T0")
    # Every bot the engines play, the search bot included (service/controllers/games.py
    # refuses one the game's own ruleset lacks).
    BotName = Literal[tuple(sorted({bot for ruleset in RULESETS.values() for bot in ruleset.engine_bots}))]
    RulesetName = Literal[tuple(RULESETS)]
#: A card of any ruleset; the game's ruleset refuses a card of another one.
Card = Annotated[
    str,
    msgspec.Meta(
        pattern=f"{POISON.card_pattern}|{POT.card_pattern}",
        examples=["R5", "G4", "T3"],
        description="a card code: R1 R2 R4 R5 R7, B…, P…, G4 (Poison) or T0…T6 (the pot game)",
    ),
]
CauldronIndex = Annotated[int, msgspec.Meta(ge=0, le=2, description="a cauldron: 0, 1 or 2")]
MAX_SEAT = max(high for _, high in (ruleset.players for ruleset in RULESETS.values())) - 1
Seat = Annotated[int, msgspec.Meta(ge=0, le=MAX_SEAT, description="a seat: 0 for the first player, in order")]
Seats = Annotated[list[Seat], msgspec.Meta(description="seats, in order")]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=32)]
Colour = Literal["red", "blue", "purple"]
GameStatus = Literal["waiting", "active", "finished", "abandoned"]
#: A seat's name in a view or the listing: null while the seat is open (the lobby).
SeatName = Annotated[Name | None, msgspec.Meta(description="the player's name; null: an open seat, nobody sits there")]
OpenSeat = Annotated[bool, msgspec.Meta(description="present (true) only on an open seat, which anyone may join")]
CauldronRule = Literal["dynamic", "fixed"]
ROUNDS = POISON.option("rounds").bounds or (1, 1)
Version = Annotated[int, msgspec.Meta(ge=1, description="the number of events in the game's log")]
GameId = Annotated[str, msgspec.Meta(examples=["9K46SJYydR0cf_B7"], description="the game's id")]
Count = Annotated[int, msgspec.Meta(ge=0)]
_DEFAULT_PLAYOUTS = ", ".join(f"{r.default_playouts:,} ({r.title})" for r in RULESETS.values())
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


class RulesIn(Request):
    """Poison's rule options."""

    cauldrons: Annotated[
        CauldronRule,
        msgspec.Meta(
            description="'dynamic': a cauldron takes the colour of the first potion played into it; "
            "'fixed': red, blue and purple all game"
        ),
    ] = "dynamic"


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


class PoisonCreate(Request, tag_field="ruleset", tag=POISON.name):
    """A new game of Poison. Its `ruleset` may be left out: a game that names none is Poison."""

    players: players_of(POISON)  # type: ignore[valid-type]
    rounds: (
        Annotated[
            int,
            msgspec.Meta(
                ge=ROUNDS[0], le=ROUNDS[1], description="how many rounds; default (null or absent): one per player"
            ),
        ]
        | None
    ) = None
    seed: Seed | None = None
    rules: RulesIn = msgspec.field(default_factory=RulesIn)


class PotCreate(Request, tag_field="ruleset", tag=POT.name):
    """A new pot game. It has no options: `rounds` and `rules` are refused."""

    players: players_of(POT)  # type: ignore[valid-type]
    seed: Seed | None = None


CreateGame = PoisonCreate | PotCreate


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


class RulesOut(Response):
    """The game's rule options."""

    cauldrons: CauldronRule


class PlayerView(Response):
    """A seat of a game of Poison, as anyone sees it."""

    seat: Seat
    name: SeatName
    bot: Annotated[BotName | None, msgspec.Meta(description="the bot that plays this seat; null: a person")]
    hand_size: Annotated[Count, msgspec.Meta(description="how many cards the seat holds")]
    taken: Annotated[
        Count, msgspec.Meta(description="how many cards the seat has taken this round (face down: never which)")
    ]
    open: OpenSeat | UnsetType = UNSET
    playouts: PlayoutsOut | UnsetType = UNSET


class CauldronView(Response):
    """A cauldron, 0 to 2."""

    color: Annotated[Colour | None, msgspec.Meta(description="its colour; null while it has none")]
    total: Annotated[int, msgspec.Meta(ge=0, le=13, description="the sum of its cards' values")]
    cards: Annotated[list[PoisonCard], msgspec.Meta(description="its cards, in the order played")]


class MoveOut(Response):
    """A legal move of Poison: this card into this cauldron."""

    card: PoisonCard
    cauldron: CauldronIndex


class You(Response):
    """What only the caller's seat sees: in a view read (or a move played) with its token."""

    seat: Seat
    hand: Annotated[list[PoisonCard], msgspec.Meta(description="your cards, sorted")]
    legal_moves: Annotated[list[MoveOut], msgspec.Meta(description="empty when it is not your turn")]


class AllHands(Response):
    """Every hand and the set-aside one: only in replays, where everything is shown."""

    hands: Annotated[list[list[PoisonCard]], msgspec.Meta(description="each seat's cards, in seat order")]
    set_aside: Annotated[
        list[PoisonCard], msgspec.Meta(description="the hand dealt to nobody (three players), else empty")
    ]


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


class GameView(Response, kw_only=True, tag_field="ruleset", tag=POISON.name):
    """A game of Poison as the caller may see it: the public view, with `you` when the
    request carries a token of one of its seats."""

    game_id: GameId
    version: Version
    status: GameStatus
    rules: RulesOut
    rounds: Annotated[int, msgspec.Meta(ge=ROUNDS[0], le=ROUNDS[1], description="how many rounds the game has")]
    round: Annotated[
        int, msgspec.Meta(ge=1, le=ROUNDS[1], description="the round being played, from 1 (the last once finished)")
    ]
    dealer: Annotated[Seat, msgspec.Meta(description="the seat that dealt this round")]
    turn: Annotated[
        Seat | None,
        msgspec.Meta(description="the seat to move; null once finished (or between rounds, seen by time travel)"),
    ]
    players: list[PlayerView]
    cauldrons: Annotated[list[CauldronView], msgspec.Meta(description="cauldrons 0, 1 and 2")]
    scores: Annotated[list[Points], msgspec.Meta(description="one row per finished round, one number per seat")]
    totals: Annotated[Points, msgspec.Meta(description="each seat's sum of `scores`")]
    winners: Annotated[Seats, msgspec.Meta(description="the seats with the lowest total once finished; empty before")]
    next_game: (
        Annotated[
            GameId, msgspec.Meta(description="the rematch of this finished game, once one is created; absent before")
        ]
        | UnsetType
    ) = UNSET
    seed_commitment: SeedCommitment | UnsetType = UNSET
    you: You | UnsetType = UNSET
    all: Annotated[AllHands, msgspec.Meta(description="only in replays")] | UnsetType = UNSET


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


class GameCreatedOut(Response):
    """The new game: its id, each seat's token (for people), and the public view (bots that
    move first have already played)."""

    game_id: GameId
    players: list[SeatToken]
    game: AnyGameView


class JoinSeat(Request):
    """Taking an open seat of a waiting game."""

    name: Annotated[Name, msgspec.Meta(description="1 to 32 characters, unique in the game")]


class SeatTakenOut(Response):
    """A seat taken: by a join (the seat of a waiting game), or by a rematch (the same seat
    in the next game). Its token is shown here; `game` is that game with your `you`."""

    seat: Seat
    name: Name
    token: Token
    game: AnyGameView


class EventOut(Response):
    """An event as the API shows it (the document names each type's `data`: see Event)."""

    version: Version
    type: str
    data: dict[str, Any]


class MovePlayed(Response):
    """A move's answer: the events it appended (yours, what followed, the bots' moves after
    it, as your seat may see them) and the game after them, with your `you`."""

    version: Version
    events: list[EventOut]
    game: AnyGameView


class TakenOut(Response):
    """How many cards of each kind a seat took in a round."""

    red: Count
    blue: Count
    purple: Count
    poison: Count


class RoundScores(Response):
    """One finished round of Poison."""

    round: Annotated[int, msgspec.Meta(ge=1, le=ROUNDS[1])]
    dealer: Seat
    scores: Points
    taken: Annotated[list[TakenOut], msgspec.Meta(description="per seat, in seat order")]
    discarded: Annotated[
        list[list[Colour]], msgspec.Meta(description="per seat: the colours it discarded for taking strictly the most")
    ]


class Scores(Response, tag_field="ruleset", tag=POISON.name):
    """Poison's score sheet, round by round (finished rounds only)."""

    status: GameStatus
    totals: Points
    winners: Annotated[Seats, msgspec.Meta(description="the seats with the lowest total once finished; empty before")]
    rounds: list[RoundScores]


# ---- the pot game ------------------------------------------------------------------------


class PotPlayerView(Response):
    """A seat of a pot game, as anyone sees it."""

    seat: Seat
    name: SeatName
    bot: Annotated[BotName | None, msgspec.Meta(description="the bot that plays this seat; null: a person")]
    hand_size: Annotated[Count, msgspec.Meta(description="how many cards the seat holds")]
    open: OpenSeat | UnsetType = UNSET
    playouts: PlayoutsOut | UnsetType = UNSET


class PotOut(Response):
    """The pot on the table."""

    cards: Annotated[list[PotCard], msgspec.Meta(description="in the order played")]
    toxicity: Annotated[Count, msgspec.Meta(description="the sum of its cards")]


class PotMoveOut(Response):
    """A legal move of the pot game: this card, closing the pot or not."""

    card: PotCard
    close: bool


class PotYou(Response):
    """What only the caller's seat sees: in a view read (or a move played) with its token."""

    seat: Seat
    hand: Annotated[list[PotCard], msgspec.Meta(description="your cards, sorted")]
    legal_moves: Annotated[
        list[PotMoveOut], msgspec.Meta(description="by card, false before true; empty when it is not your turn")
    ]


class PotAll(Response):
    """Every hand and the draw pile's order: only in replays, where everything is shown."""

    hands: Annotated[list[list[PotCard]], msgspec.Meta(description="each seat's cards, in seat order")]
    draw_pile: Annotated[list[PotCard], msgspec.Meta(description="the cards left to draw, top first")]


class PotGameView(Response, kw_only=True, tag_field="ruleset", tag=POT.name):
    """A pot game as the caller may see it: the public view, with `you` when the request
    carries a token of one of its seats."""

    game_id: GameId
    version: Version
    status: GameStatus
    turn: Annotated[Seat | None, msgspec.Meta(description="the seat to move; null once finished")]
    players: list[PotPlayerView]
    pot: PotOut
    draw_pile: Annotated[Count, msgspec.Meta(description="how many cards are left to draw (never their order)")]
    endgame: Annotated[bool, msgspec.Meta(description="true once the draw pile is empty: no more closing or drawing")]
    totals: Annotated[Points, msgspec.Meta(description="running scores (may be negative)")]
    winners: Annotated[Seats, msgspec.Meta(description="the seats with the highest total once finished; empty before")]
    next_game: (
        Annotated[
            GameId, msgspec.Meta(description="the rematch of this finished game, once one is created; absent before")
        ]
        | UnsetType
    ) = UNSET
    seed_commitment: SeedCommitment | UnsetType = UNSET
    you: PotYou | UnsetType = UNSET
    all: Annotated[PotAll, msgspec.Meta(description="only in replays")] | UnsetType = UNSET


class PotLine(Response):
    """One pot that ended: closed (by `seat`, for `points`) or exploded (by `seat`'s card)."""

    seat: Seat
    outcome: Literal["closed", "exploded"]
    cards: list[PotCard]
    toxicity: Count
    points: Annotated[int, msgspec.Meta(description="0 for an explosion")]


class PotScores(Response, tag_field="ruleset", tag=POT.name):
    """The pot game's score sheet, pot by pot."""

    status: GameStatus
    totals: Points
    winners: Annotated[Seats, msgspec.Meta(description="the seats with the highest total once finished; empty before")]
    pots: list[PotLine]


AnyGameView = GameView | PotGameView
AnyScores = Scores | PotScores


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


class Replayed(Response):
    """A replayed log: the game it describes, showing everything (`all`), its scores, and
    whether its commitment to its deals holds."""

    version: Version
    game: AnyGameView
    scores: AnyScores
    commitment: Annotated[
        CommitmentStatus,
        msgspec.Meta(
            description='"holds": game_created\'s seed_commitment is the SHA-256 of its "<seed>:<salt>" (a log whose '
            'commitment does not hold is 422 invalid_log); "none": the log makes no commitment to check (it was '
            "written before games committed to their deals)"
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
