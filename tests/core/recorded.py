"""Recorded games for the batch tests and benchmarks: deals and moves of a whole game."""

from core.poison import engine
from core.results import Deal


def record_game(
    players: int, seed: int, *, rounds: int | None = None, cauldrons: str = "dynamic"
) -> tuple[list[Deal], list[tuple[int, str, int]], engine.Game]:
    """Play a seeded game to its end (always the middle legal move) and return its deals,
    its moves and the finished game."""
    game = engine.Game(players, rounds=rounds, cauldrons=cauldrons, seed=seed)
    deals = [engine.seeded_deal(seed, players, number) for number in range(1, game.rounds + 1)]
    moves = []
    while game.status != "finished":
        legal = game.legal_moves()
        card, cauldron = legal[len(legal) // 2]
        moves.append((game.turn, card, cauldron))
        game.play(game.turn, card, cauldron)
    return deals, moves, game
