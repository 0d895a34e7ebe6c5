"""Speed of the search bot (`mcts`, core/search.pyx over each game's table) at its default budget.

Benchmark group `mcts`: one decision of each game from a position of a seeded game's first
round (Poison, 4 players, 10 moves in; the pot game, 2 players, 6 moves in), at the
ruleset's default playouts. The bar (a median decision within 50 ms) is checked over whole
games by `python -m benchmarks.mcts_bars`, with the strength bars; here each case asserts
its result (a legal move, every playout made, the same move every round), so a fast wrong
answer fails.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from core.poison import engine
from core.pot import engine as pot

SEED = 16


def position(rules: ModuleType) -> Any:
    """A seeded game part way into its first round, greedy moves all the way."""
    game = rules.Game(4, seed=SEED) if rules is engine else rules.Game(2, seed=SEED)
    for _ in range(10 if rules is engine else 6):
        move = game.choose("greedy")
        game.play(game.turn, *move)
    return game


@pytest.mark.benchmark(group="mcts")
@pytest.mark.parametrize("rules", [engine, pot], ids=["poison", "pot"])
def test_mcts_decision(benchmark: BenchmarkFixture, rules: ModuleType) -> None:
    game = position(rules)
    searched = benchmark(game.search, 7)
    assert searched.move in game.legal_moves()
    assert searched.playouts == rules.DEFAULT_PLAYOUTS
    assert searched == game.search(7)
