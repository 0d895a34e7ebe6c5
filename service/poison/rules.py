"""Poison over HTTP: its options and moves as requests give them, its views and score sheet."""

from __future__ import annotations

from typing import Any

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
from service.ruleset import ServiceRules, invalid_request


class PoisonService(ServiceRules):
    ruleset = POISON
    create_body = PoisonCreate
    view_type = GameView
    scores_type = Scores
    seat_type = PlayerView
    all_type = AllHands
    you_type = You
    move_out_type = MoveOut

    def options(self, body: PoisonCreate) -> dict[str, Any]:
        return {"rounds": body.rounds, "cauldrons": body.rules.cauldrons}

    def left_out(self, field: str) -> Any:
        raise invalid_request("a move of Poison names its 'cauldron' (0, 1 or 2)")  # its one field besides the card

    def view_fields(self, logged: LoggedGame, seen: Any) -> dict[str, Any]:
        game = logged.game
        return {
            "rules": RulesOut(cauldrons=logged.created.rules.cauldrons),
            "rounds": game.rounds,
            "round": game.round,
            "dealer": game.dealer,
            "cauldrons": [CauldronView(color=c.colour, total=c.total, cards=list(c.cards)) for c in seen.cauldrons],
            "scores": [list(row) for row in seen.scores],
        }

    def seat_fields(self, seen: Any) -> dict[str, Any]:
        return {"taken": seen.taken}

    def hidden_fields(self, game: Any) -> dict[str, Any]:
        return {"set_aside": list(game.set_aside())}

    def score_fields(self, game: Any) -> dict[str, Any]:
        rounds = [
            RoundScores(
                round=result.round,
                dealer=result.dealer,
                scores=list(result.scores),
                taken=[TakenOut(**pile._asdict()) for pile in result.taken],
                discarded=[list(colours) for colours in result.discarded],
            )
            for result in game.results()
        ]
        return {"rounds": rounds}


#: Poison's facet of the service, where core.rulesets.FACETS says the service finds it.
SERVICE = PoisonService()
