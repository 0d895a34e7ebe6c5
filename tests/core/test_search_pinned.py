"""The search bot's moves pinned for fixed seeds, in both games.

The search is one loop over a per-game table of rule functions (core/search.pyx); a change
to that loop or to a table that alters what the bot plays, how often it visits each move or
what a simulation with searching seats adds up to, fails here. Pinned figures were read
from the engines before the loop was written once for both games, so these tests prove that
the refactor kept the bot's play (and with it its win rates and decision times).
"""

from __future__ import annotations

from typing import Any

import pytest

from core.poison import engine
from core.pot import engine as pot

# (game, players, deal seed, greedy moves played first, search seed) -> (move, visits).
SEARCHES: list[tuple[Any, int, int, int, int, tuple[object, ...], tuple[int, ...]]] = [
    (
        engine,
        4,
        5,
        0,
        1,
        ("R5", 2),
        (13, 6, 13, 6, 8, 13, 10, 11, 14, 9, 10, 14, 14, 8, 8, 9, 12, 8, 10, 11, 12, 11, 7, 7, 9, 7, 7, 11, 13, 9),
    ),
    (engine, 4, 11, 7, 2, ("R4", 0), (56, 65, 48, 22, 56, 36, 17)),
    (engine, 4, 23, 15, 3, ("R2", 0), (55, 70, 37, 36, 25, 24, 33, 20)),
    (pot, 3, 5, 0, 1, ("T5", False), (81, 11, 75, 18, 102, 13)),
    (pot, 3, 11, 7, 2, ("T3", False), (26, 12, 139, 123)),
    (pot, 3, 23, 15, 3, ("T5", False), (136, 15, 137, 12)),
]

# (game, players, bots, games, seed) -> the Simulation, as a plain tuple.
SIMULATIONS: list[tuple[Any, int, list[str], int, int, int | None, tuple[object, ...]]] = [
    (
        engine,
        4,
        ["mcts", "greedy", "random", "greedy"],
        3,
        7,
        60,
        (3, 600, (1, 2, 0, 1), (46, 40, 181, 54), (794, 554, 11325, 1154)),
    ),
    (
        engine,
        4,
        ["greedy"] * 4,
        50,
        9,
        None,
        (50, 10000, (12, 12, 14, 13), (1424, 1435, 1332, 1410), (44820, 45575, 38298, 45056)),
    ),
    (pot, 3, ["mcts", "greedy", "random"], 3, 7, 60, (3, 131, (3, 2, 0), (15, 12, -118), (99, 54, 5566))),
    (pot, 3, ["greedy"] * 3, 50, 9, None, (50, 2229, (23, 22, 15), (98, 121, 80), (888, 977, 762))),
]


@pytest.mark.parametrize(("game", "players", "seed", "moves", "search_seed", "move", "visits"), SEARCHES)
def test_the_search_bot_chooses_the_pinned_move_with_the_pinned_visits(
    game: Any, players: int, seed: int, moves: int, search_seed: int, move: tuple[object, ...], visits: tuple[int, ...]
) -> None:
    table = game.Game(players, seed=seed)
    for _ in range(moves):
        greedy = table.choose("greedy")
        table.play(table.turn, *greedy)
    searched = table.search(search_seed, playouts=300)
    assert (tuple(searched.move), searched.playouts, searched.visits) == (move, 300, visits)


@pytest.mark.parametrize(("game", "players", "bots", "games", "seed", "playouts", "expected"), SIMULATIONS)
def test_a_simulation_adds_up_to_the_pinned_figures_on_two_threads(
    game: Any, players: int, bots: list[str], games: int, seed: int, playouts: int | None, expected: tuple[object, ...]
) -> None:
    simulation = game.simulate(players, games, seed=seed, bots=bots, playouts=playouts, threads=2)
    assert tuple(simulation) == expected
