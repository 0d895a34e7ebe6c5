"""Recorded pot games for the batch tests and benchmarks: the deal and the moves of a whole game."""

from core.pot import engine
from core.results import PotDeal


def record_game(players: int, seed: int) -> tuple[PotDeal, list[tuple[int, str, bool]], engine.Game]:
    """Play a seeded game to its end (always the middle legal move, so it closes now and
    then) and return its deal, its moves and the finished game."""
    game = engine.Game(players, seed=seed)
    moves = []
    while game.status != "finished":
        legal = game.legal_moves()
        card, close = legal[len(legal) // 2]
        moves.append((game.turn, card, close))
        game.play(game.turn, card, close)
    return engine.seeded_deal(seed, players), moves, game
