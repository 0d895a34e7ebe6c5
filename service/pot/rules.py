"""The pot game over HTTP: its moves as requests give them, its views and pot-by-pot scores."""

from __future__ import annotations

from typing import Any

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
from service.ruleset import ServiceRules


class PotService(ServiceRules):
    ruleset = POT
    create_body = PotCreate
    view_type = PotGameView
    scores_type = PotScores
    seat_type = PotPlayerView
    all_type = PotAll
    you_type = PotYou
    move_out_type = PotMoveOut

    def left_out(self, field: str) -> Any:
        return False  # `close`, the one field besides the card: a move leaves the pot open by default

    def view_fields(self, logged: LoggedGame, seen: Any) -> dict[str, Any]:
        return {
            "pot": PotOut(cards=list(seen.pot), toxicity=seen.toxicity),
            "draw_pile": seen.draw_pile,
            "endgame": seen.endgame,
        }

    def hidden_fields(self, game: Any) -> dict[str, Any]:
        return {"draw_pile": list(game.draw_order())}

    def score_fields(self, game: Any) -> dict[str, Any]:
        pots = [
            PotLine(seat=r.seat, outcome=r.outcome, cards=list(r.cards), toxicity=r.toxicity, points=r.points)
            for r in game.results()
        ]
        return {"pots": pots}


#: The pot game's facet of the service (core.rulesets.FACETS).
SERVICE = PotService()
