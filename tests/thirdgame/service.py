"""High card over HTTP: its create body, view and score sheet, and its ServiceRules, the
service's facet of the game (SERVICE)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import UNSET, UnsetType

from events.play import LoggedGame
from service.ruleset import ServiceRules
from service.schemas import (
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
from tests.thirdgame.ruleset import HIGH_CARD

HighCard = Annotated[str, card_meta(HIGH_CARD, "H07")]


class HighCardCreate(CreateWithoutOptions, tag_field="ruleset", tag=HIGH_CARD.name):
    """A new game of high card."""

    players: players_of(HIGH_CARD)  # type: ignore[valid-type]


class HighCardSeat(SeatView):
    """A seat of a game of high card."""


class HighCardMoveOut(Response):
    card: HighCard


class HighCardYou(Response):
    seat: Seat
    hand: list[HighCard]
    legal_moves: list[HighCardMoveOut]


class HighCardAll(Response):
    hands: list[list[HighCard]]


class HighCardView(ViewHead, kw_only=True, tag_field="ruleset", tag=HIGH_CARD.name):
    turn: Seat | None
    players: list[HighCardSeat]
    played: Annotated[list[HighCard], msgspec.Meta(description="the cards played, in order")]
    totals: Points
    winners: winners_of(HIGH_CARD)  # type: ignore[valid-type]
    next_game: NextGame = UNSET
    seed_commitment: SeedCommitment | UnsetType = UNSET
    you: HighCardYou | UnsetType = UNSET
    all: HighCardAll | UnsetType = UNSET


class HighCardScores(ScoreSheet, tag_field="ruleset", tag=HIGH_CARD.name):
    winners: winners_of(HIGH_CARD)  # type: ignore[valid-type]


class HighCardService(ServiceRules):
    ruleset = HIGH_CARD
    create_body = HighCardCreate
    view_type = HighCardView
    scores_type = HighCardScores
    seat_type = HighCardSeat
    all_type = HighCardAll
    you_type = HighCardYou
    move_out_type = HighCardMoveOut

    def view_fields(self, logged: LoggedGame, seen: Any) -> dict[str, Any]:
        return {"played": [card for _, card in seen.played]}


SERVICE = HighCardService()
