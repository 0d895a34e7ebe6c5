"""Recorded games for the batch tests and benchmarks: deals and moves of a whole game."""

from typing import Any

from core.poison import engine
from core.results import Deal


def middle_moves(game: Any) -> list[tuple[Any, ...]]:
    """Play `game` (of any ruleset, either implementation) to its end, always the middle
    legal move, and return the moves played, each led by its seat."""
    moves = []
    while game.status != "finished":
        legal = game.legal_moves()
        move = (game.turn, *legal[len(legal) // 2])
        moves.append(move)
        game.play(*move)
    return moves


def outcome(replayed: Any) -> tuple[Any, ...]:
    """All that a `replay` of any ruleset shows, for comparing two: how far it went, its
    error, and the game it left (as the public and each seat see it, its results)."""
    error, game = replayed.error, replayed.game
    return (
        replayed.applied,
        replayed.illegal_at,
        None if error is None else (type(error), error.code, str(error)),
        game.status,
        game.view(),
        tuple(game.view(seat) for seat in range(game.players)),
        game.results(),
        game.totals,
        game.winners,
    )


def record_game(
    players: int, seed: int, *, rounds: int | None = None, cauldrons: str = "dynamic"
) -> tuple[list[Deal], list[tuple[int, str, int]], engine.Game]:
    """Play a seeded game to its end (always the middle legal move) and return its deals,
    its moves and the finished game."""
    game = engine.Game(players, rounds=rounds, cauldrons=cauldrons, seed=seed)
    deals = [engine.seeded_deal(seed, players, number) for number in range(1, game.rounds + 1)]
    return deals, middle_moves(game), game
