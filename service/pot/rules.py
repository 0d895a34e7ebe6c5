"""The pot game over HTTP: its moves as requests give them, its views and pot-by-pot scores."""

from __future__ import annotations

from typing import Any

from msgspec import UNSET

from core.rulesets import POT
from events.play import LoggedGame
from service.pot.schemas import (
    PotAll,
    PotCreate,
    PotGameView,
    PotLine,
    PotMoveOut,
    PotOut,
    PotPlayerView,
    PotScores,
    PotYou,
)
from service.ruleset import ServiceRules, foreign, next_game_of, seat_views
from service.schemas import PlayCard


class PotService(ServiceRules):
    ruleset = POT
    create_body = PotCreate
    view_type = PotGameView
    scores_type = PotScores
    you_type = PotYou
    move_out_type = PotMoveOut

    def move(self, body: PlayCard) -> tuple[Any, ...]:
        if body.cauldron is not UNSET:
            raise foreign("cauldron", self.ruleset)
        return (body.card, False if body.close is UNSET else body.close)

    def public_view(self, logged: LoggedGame, status: str) -> PotGameView:
        game = logged.game
        view = game.view(None)
        return PotGameView(
            game_id=logged.created.game_id,
            version=logged.version,
            status=status,  # type: ignore[arg-type]
            turn=view.turn,
            players=seat_views(logged, PotPlayerView, view.hand_sizes),
            pot=PotOut(cards=list(view.pot), toxicity=view.toxicity),
            draw_pile=view.draw_pile,
            endgame=view.endgame,
            totals=list(view.totals),
            winners=list(view.winners),
            next_game=next_game_of(logged),
        )

    def with_everything(self, view: Any, logged: LoggedGame) -> None:
        game = logged.game
        view.all = PotAll(hands=[list(game.hand(s)) for s in range(game.players)], draw_pile=list(game.draw_order()))

    def scores(self, logged: LoggedGame, status: str) -> PotScores:
        game = logged.game
        return PotScores(
            status=status,  # type: ignore[arg-type]
            totals=list(game.totals),
            winners=list(game.winners),
            pots=[
                PotLine(seat=r.seat, outcome=r.outcome, cards=list(r.cards), toxicity=r.toxicity, points=r.points)
                for r in game.results()
            ],
        )


#: The pot game's facet of the service (core.rulesets.FACETS).
SERVICE = PotService()
