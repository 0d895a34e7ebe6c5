"""The pot game's request and response bodies: a new game, its view and pot-by-pot scores,
built of the parts every ruleset shares (service/schemas.py)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, UnsetType

from core.rulesets import POT
from service.schemas import (
    Count,
    CreateWithoutOptions,
    NextGame,
    Points,
    Response,
    ScoreSheet,
    Seat,
    SeatView,
    SeedCommitment,
    ViewHead,
    card_meta,
    players_of,
    winners_of,
)

#: A card of the pot game: T and its toxicity.
PotCard = Annotated[str, card_meta(POT, "T3", "T0")]


class PotCreate(CreateWithoutOptions, tag_field="ruleset", tag=POT.name):
    """A new pot game. It has no options: `rounds` and `rules` are refused."""

    players: players_of(POT)  # type: ignore[valid-type]


# ---- responses ----------------------------------------------------------------------------


class PotPlayerView(SeatView):
    """A seat of a pot game, as anyone sees it."""


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


class PotGameView(ViewHead, kw_only=True, tag_field="ruleset", tag=POT.name):
    """A pot game as the caller may see it: the public view, with `you` when the request
    carries a token of one of its seats."""

    turn: Annotated[Seat | None, msgspec.Meta(description="the seat to move; null once over (finished or abandoned)")]
    players: list[PotPlayerView]
    pot: PotOut
    draw_pile: Annotated[Count, msgspec.Meta(description="how many cards are left to draw (never their order)")]
    endgame: Annotated[bool, msgspec.Meta(description="true once the draw pile is empty: no more closing or drawing")]
    totals: Annotated[Points, msgspec.Meta(description="running scores (may be negative)")]
    winners: winners_of(POT)  # type: ignore[valid-type]
    next_game: NextGame = UNSET
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


class PotScores(ScoreSheet, tag_field="ruleset", tag=POT.name):
    """The pot game's score sheet, pot by pot."""

    winners: winners_of(POT)  # type: ignore[valid-type]
    pots: list[PotLine]
