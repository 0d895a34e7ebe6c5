"""The search bot's bars (issue 16), measured: `python -m benchmarks.mcts_bars [--games N] [--jobs J]`.

- Poison, 4 players, one `mcts` seat at the default budget against three `greedy`, the
  games' seats rotated (each seat is mcts for a quarter of them, on the same deals): mcts
  wins at least 40% of them (parity is 25%).
- The pot game, 2 players, `mcts` against `greedy`, seats swapped half way (same deals):
  mcts wins at least 60%.
- A decision at the default budget takes at most 50 ms, median over the decisions of
  whole games played by mcts (every seat searching, so every stage of a game is timed).

A shared win counts as a win, as `poison simulate` counts it. Each rate is shown with its
95% confidence interval (Wilson). Prints one JSON object (the figures and whether each bar
is met) and exits 1 if any bar is missed. Not a timed test: a run takes minutes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from types import ModuleType

from core.errors import SEARCH_BOT, THREAD_BOUNDS
from core.poison import engine
from core.pot import engine as pot
from service.commands.standings import wilson

POISON_BAR = 0.40
POT_BAR = 0.60
DECISION_BAR_MS = 50.0
SEED = 16  # the number: any fixed seed would do


def rotated_wins(rules: ModuleType, players: int, games: int, jobs: int) -> tuple[int, int]:
    """Games won by the one mcts seat against greedy ones, the seat rotated over every
    position (the same deals for each), and the games played."""
    wins = played = 0
    for seat in range(players):
        share = games * (seat + 1) // players - games * seat // players
        bots = ["greedy"] * players
        bots[seat] = SEARCH_BOT
        result = rules.simulate(players, share, seed=SEED, bots=bots, threads=jobs)
        wins += result.wins[seat]
        played += share
    return wins, played


def decision_times(rules: ModuleType, players: int, games: int) -> list[float]:
    """Milliseconds of every decision of `games` whole games with every seat searching."""
    times = []
    for number in range(games):
        game = rules.Game(players, seed=SEED + number)
        step = 0
        while game.status == "active":
            started = time.perf_counter()
            move = game.choose(SEARCH_BOT, step)
            times.append((time.perf_counter() - started) * 1000)
            game.play(game.turn, *move)
            step += 1
    return times


def rate(wins: int, games: int, bar: float) -> dict:
    low, high = wilson(wins, games)
    return {
        "wins": wins,
        "games": games,
        "rate": wins / games,
        "ci95": [low, high],
        "bar": bar,
        "met": wins / games >= bar,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mcts_bars", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per strength bar (default 1,000)")
    parser.add_argument("--jobs", type=int, default=1, help="threads simulate plays on (default 1)")
    parser.add_argument("--timed-games", type=int, default=2, help="whole games timed per ruleset (default 2)")
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 1_000_000 or not THREAD_BOUNDS[0] <= args.jobs <= THREAD_BOUNDS[1]:
        parser.error(f"--games is 1 to 1,000,000 and --jobs {THREAD_BOUNDS[0]} to {THREAD_BOUNDS[1]}")
    if not 1 <= args.timed_games <= 1_000:  # a median of no decisions is no figure
        parser.error(f"--timed-games is 1 to 1,000, not {args.timed_games}")
    figures: dict = {"playouts": {"poison": engine.DEFAULT_PLAYOUTS, "pot": pot.DEFAULT_PLAYOUTS}}
    for name, rules, players in (("poison", engine, 4), ("pot", pot, 2)):
        times = decision_times(rules, players, args.timed_games)
        median = statistics.median(times)
        figures[f"{name}_decision_ms"] = {
            "decisions": len(times),
            "median": median,
            "p90": statistics.quantiles(times, n=10)[-1],
            "bar": DECISION_BAR_MS,
            "met": median <= DECISION_BAR_MS,
        }
    started = time.perf_counter()
    figures["poison_4p_vs_greedy"] = rate(*rotated_wins(engine, 4, args.games, args.jobs), POISON_BAR)
    figures["pot_2p_vs_greedy"] = rate(*rotated_wins(pot, 2, args.games, args.jobs), POT_BAR)
    figures["seconds"] = time.perf_counter() - started
    print(json.dumps(figures, indent=2))
    return 0 if all(value["met"] for value in figures.values() if isinstance(value, dict) and "met" in value) else 1


if __name__ == "__main__":
    sys.exit(main())
