"""The rules of Poison: a compiled engine (`core.poison.engine`) and a readable reference
(`core.poison.reference`) that behave identically.

`core` imports nothing from the rest of the product; events and service build on it.
"""

from core.errors import IllegalMove, InvalidArgument, RuleError
from core.poison.engine import BOTS, CARD_CODES, Game, derive_seed, replay, score_round, seeded_deal, simulate
from core.results import (
    Cauldron,
    Deal,
    Move,
    Played,
    Replayed,
    RoundResult,
    Simulation,
    Taken,
    View,
)

__all__ = [
    "BOTS",
    "CARD_CODES",
    "Cauldron",
    "Deal",
    "Game",
    "IllegalMove",
    "InvalidArgument",
    "Move",
    "Played",
    "Replayed",
    "RoundResult",
    "RuleError",
    "Simulation",
    "Taken",
    "View",
    "derive_seed",
    "replay",
    "score_round",
    "seeded_deal",
    "simulate",
]
