"""Poison's request and response bodies: a new game's options, its view and score sheet,
built of the parts every ruleset shares (service/schemas.py) and put in the API's unions by
the registry (service/rulesets.py)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, UnsetType

from core.rulesets import POISON
from service.schemas import (
    AwayBot,
    AwayMark,
    CauldronIndex,
    ClockOption,
    Count,
    HandSize,
    NextGame,
    OpenSeat,
    PlayoutsOut,
    Points,
    Request,
    ResignedMark,
    Response,
    ScoreSheet,
    Seat,
    SeatBot,
    SeatName,
    Seed,
    SeedCommitment,
    ViewHead,
    card_meta,
    players_of,
    winners_of,
)

#: A card of Poison: a potion (R, B or P for red, blue, purple, then its value) or a poison (G4).
PoisonCard = Annotated[str, card_meta(POISON, "R5", "B7", "G4")]
Colour = Literal["red", "blue", "purple"]
CauldronRule = Literal["dynamic", "fixed"]
ROUNDS = POISON.option("rounds").bounds or (1, 1)


class RulesIn(Request):
    """Poison's rule options."""

    cauldrons: Annotated[
        CauldronRule,
        msgspec.Meta(
            description="'dynamic': a cauldron takes the colour of the first potion played into it; "
            "'fixed': red, blue and purple all game"
        ),
    ] = "dynamic"


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
    clock: ClockOption = None


# ---- responses ----------------------------------------------------------------------------


class RulesOut(Response):
    """The game's rule options."""

    cauldrons: CauldronRule


class PlayerView(Response):
    """A seat of a game of Poison, as anyone sees it."""

    seat: Seat
    name: SeatName
    bot: SeatBot
    hand_size: HandSize
    taken: Annotated[
        Count, msgspec.Meta(description="how many cards the seat has taken this round (face down: never which)")
    ]
    away: AwayMark = False
    away_bot: AwayBot = UNSET
    resigned: ResignedMark = False
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


class GameView(ViewHead, kw_only=True, tag_field="ruleset", tag=POISON.name):
    """A game of Poison as the caller may see it: the public view, with `you` when the
    request carries a token of one of its seats."""

    rules: RulesOut
    rounds: Annotated[int, msgspec.Meta(ge=ROUNDS[0], le=ROUNDS[1], description="how many rounds the game has")]
    round: Annotated[
        int, msgspec.Meta(ge=1, le=ROUNDS[1], description="the round being played, from 1 (the last once finished)")
    ]
    dealer: Annotated[Seat, msgspec.Meta(description="the seat that dealt this round")]
    turn: Annotated[
        Seat | None,
        msgspec.Meta(description="the seat to move; null once over (or between rounds, seen by time travel)"),
    ]
    players: list[PlayerView]
    cauldrons: Annotated[list[CauldronView], msgspec.Meta(description="cauldrons 0, 1 and 2")]
    scores: Annotated[list[Points], msgspec.Meta(description="one row per finished round, one number per seat")]
    totals: Annotated[Points, msgspec.Meta(description="each seat's sum of `scores`")]
    winners: winners_of(POISON)  # type: ignore[valid-type]
    next_game: NextGame = UNSET
    seed_commitment: SeedCommitment | UnsetType = UNSET
    you: You | UnsetType = UNSET
    all: Annotated[AllHands, msgspec.Meta(description="only in replays")] | UnsetType = UNSET


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


class Scores(ScoreSheet, tag_field="ruleset", tag=POISON.name):
    """Poison's score sheet, round by round (finished rounds only)."""

    winners: winners_of(POISON)  # type: ignore[valid-type]
    rounds: list[RoundScores]
