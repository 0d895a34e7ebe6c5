"""High card over HTTP: its create body, view and score sheet, and its ServiceRules, the
service's facet of the game (SERVICE)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import msgspec
from msgspec import UNSET, UnsetType

from events.play import LoggedGame
from service.ruleset import ServiceRules, foreign, next_game_of, open_mark
from service.schemas import (
    BotName,
    Count,
    GameId,
    GameStatus,
    OpenSeat,
    PlayCard,
    PlayoutsOut,
    Points,
    Request,
    Response,
    Seat,
    SeatName,
    Seats,
    Seed,
    SeedCommitment,
    Version,
    card_of,
    players_of,
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


class HighCardSeat(Response):
    seat: Seat
    name: SeatName
    bot: BotName | None
    hand_size: Count
    open: OpenSeat | UnsetType = UNSET
    playouts: PlayoutsOut | UnsetType = UNSET


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
    winners: Seats
    next_game: GameId | UnsetType = UNSET
    seed_commitment: SeedCommitment | UnsetType = UNSET
    you: HighCardYou | UnsetType = UNSET
    all: HighCardAll | UnsetType = UNSET


class HighCardScores(Response, tag_field="ruleset", tag=HIGH_CARD.name):
    status: GameStatus
    totals: Points
    winners: Seats


class HighCardService(ServiceRules):
    ruleset = HIGH_CARD
    create_body = HighCardCreate
    view_type = HighCardView
    scores_type = HighCardScores

    def options(self, body: HighCardCreate) -> dict[str, Any]:
        return {}

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
            players=[
                HighCardSeat(
                    seat=player.seat,
                    name=player.name,
                    open=open_mark(player),
                    bot=player.bot,
                    hand_size=game.hand_sizes[player.seat],
                )
                for player in logged.players
            ],
            played=[card for _, card in game.results()],
            totals=list(game.totals),
            winners=list(game.winners),
            next_game=next_game_of(logged),
        )

    def with_you(self, view: Any, logged: LoggedGame, seat: int) -> None:
        game = logged.game
        moves = game.legal_moves() if view.turn == seat else ()
        view.you = HighCardYou(
            seat=seat, hand=list(game.hand(seat)), legal_moves=[HighCardMoveOut(card=move.card) for move in moves]
        )

    def with_everything(self, view: Any, logged: LoggedGame) -> None:
        game = logged.game
        view.all = HighCardAll(hands=[list(game.hand(seat)) for seat in range(game.players)])

    def scores(self, logged: LoggedGame, status: str) -> HighCardScores:
        game = logged.game
        return HighCardScores(status=status, totals=list(game.totals), winners=list(game.winners))  # type: ignore[arg-type]


SERVICE = HighCardService()
