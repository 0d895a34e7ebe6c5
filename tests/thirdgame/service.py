"""High card over HTTP: its create body, view and score sheet, and its ServiceRules, the
service's facet of the game (SERVICE)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import msgspec
from msgspec import UNSET, UnsetType

from events.play import LoggedGame
from service.ruleset import ServiceRules, foreign, next_game_of, seat_views
from service.schemas import (
    GameId,
    GameStatus,
    NextGame,
    PlayCard,
    Points,
    Request,
    Response,
    ScoreSheet,
    Seat,
    SeatView,
    Seed,
    SeedCommitment,
    Version,
    card_of,
    players_of,
    winners_of,
)
from tests.thirdgame.ruleset import HIGH_CARD

if TYPE_CHECKING:
    HighCard = str
else:
    HighCard = card_of(HIGH_CARD, "H07")


class HighCardCreate(Request, tag_field="ruleset", tag=HIGH_CARD.name):
    """A new game of high card."""

    players: players_of(HIGH_CARD)  # type: ignore[valid-type]
    seed: Seed | None = None


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


class HighCardView(Response, kw_only=True, tag_field="ruleset", tag=HIGH_CARD.name):
    game_id: GameId
    version: Version
    status: GameStatus
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
    you_type = HighCardYou
    move_out_type = HighCardMoveOut

    def move(self, body: PlayCard) -> tuple[Any, ...]:
        if body.cauldron is not UNSET:
            raise foreign("cauldron", self.ruleset)
        if body.close is not UNSET:
            raise foreign("close", self.ruleset)
        return (body.card,)

    def public_view(self, logged: LoggedGame, status: str) -> HighCardView:
        game = logged.game
        return HighCardView(
            game_id=logged.created.game_id,
            version=logged.version,
            status=status,  # type: ignore[arg-type]
            turn=game.turn,
            players=seat_views(logged, HighCardSeat, game.hand_sizes),
            played=[card for _, card in game.results()],
            totals=list(game.totals),
            winners=list(game.winners),
            next_game=next_game_of(logged),
        )

    def with_everything(self, view: Any, logged: LoggedGame) -> None:
        game = logged.game
        view.all = HighCardAll(hands=[list(game.hand(seat)) for seat in range(game.players)])

    def scores(self, logged: LoggedGame, status: str) -> HighCardScores:
        game = logged.game
        return HighCardScores(status=status, totals=list(game.totals), winners=list(game.winners))  # type: ignore[arg-type]


SERVICE = HighCardService()
