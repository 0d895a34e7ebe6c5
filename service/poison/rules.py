"""Poison over HTTP: its options and moves as requests give them, its views and score sheet."""

from __future__ import annotations

from typing import Any

from msgspec import UNSET

from core.rulesets import POISON
from events.play import LoggedGame
from service.poison.schemas import (
    AllHands,
    CauldronView,
    GameView,
    MoveOut,
    PlayerView,
    PoisonCreate,
    RoundScores,
    RulesOut,
    Scores,
    TakenOut,
    You,
)
from service.ruleset import ServiceRules, foreign, invalid_request, next_game_of, seat_views
from service.schemas import PlayCard


class PoisonService(ServiceRules):
    ruleset = POISON
    create_body = PoisonCreate
    view_type = GameView
    scores_type = Scores
    you_type = You
    move_out_type = MoveOut

    def options(self, body: PoisonCreate) -> dict[str, Any]:
        return {"rounds": body.rounds, "cauldrons": body.rules.cauldrons}

    def move(self, body: PlayCard) -> tuple[Any, ...]:
        if body.close is not UNSET:
            raise foreign("close", self.ruleset)
        if body.cauldron is UNSET:
            raise invalid_request("a move of Poison names its 'cauldron' (0, 1 or 2)")
        return (body.card, body.cauldron)

    def public_view(self, logged: LoggedGame, status: str) -> GameView:
        game = logged.game
        view = game.view(None)
        created = logged.created
        return GameView(
            game_id=created.game_id,
            version=logged.version,
            status=status,  # type: ignore[arg-type]
            rules=RulesOut(cauldrons=created.rules.cauldrons),
            rounds=game.rounds,
            round=game.round,
            dealer=game.dealer,
            turn=view.turn,
            players=seat_views(logged, PlayerView, view.hand_sizes, taken=view.taken),
            cauldrons=[CauldronView(color=c.colour, total=c.total, cards=list(c.cards)) for c in view.cauldrons],
            scores=[list(row) for row in view.scores],
            totals=list(view.totals),
            winners=list(view.winners),
            next_game=next_game_of(logged),
        )

    def with_everything(self, view: Any, logged: LoggedGame) -> None:
        game = logged.game
        view.all = AllHands(hands=[list(game.hand(s)) for s in range(game.players)], set_aside=list(game.set_aside()))

    def scores(self, logged: LoggedGame, status: str) -> Scores:
        game = logged.game
        return Scores(
            status=status,  # type: ignore[arg-type]
            totals=list(game.totals),
            winners=list(game.winners),
            rounds=[
                RoundScores(
                    round=result.round,
                    dealer=result.dealer,
                    scores=list(result.scores),
                    taken=[TakenOut(**pile._asdict()) for pile in result.taken],
                    discarded=[list(colours) for colours in result.discarded],
                )
                for result in game.results()
            ],
        )


#: Poison's facet of the service, where core.rulesets.FACETS says the service finds it.
SERVICE = PoisonService()
