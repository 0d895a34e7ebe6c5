"""Recorded pot games for the batch tests and benchmarks: the deal and the moves of a whole game."""

from core.pot import engine
from core.results import PotDeal
from tests.core.recorded import middle_moves


def record_game(players: int, seed: int) -> tuple[PotDeal, list[tuple[int, str, bool]], engine.Game]:
    """Play a seeded game to its end (always the middle legal move, so it closes now and
    then) and return its deal, its moves and the finished game."""
    game = engine.Game(players, seed=seed)
    return engine.seeded_deal(seed, players), middle_moves(game), game
