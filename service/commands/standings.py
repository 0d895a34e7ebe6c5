"""The arithmetic of comparing bots: a win rate's 95% confidence interval and a rating from
head-to-head results, for `poison ladder` and the search bot's bars (benchmarks/mcts_bars.py).

The interval is Wilson's score interval, which stays inside 0..1 and is honest for rates
near either end (a bot that wins 999 games of 1,000). The rating fits the Bradley-Terry
model (the chance that A beats B is a / (a + b)) by Hunter's MM iteration and shows it on
the Elo scale: 400 points mean ten-to-one odds, and the bots' mean is 1500.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

#: z for a two-sided 95% interval.
Z95 = 1.959963984540054
#: The Elo scale's mean and its points per factor of ten in the odds.
ELO_MEAN = 1500.0
ELO_DECADE = 400.0
#: Half a win given to each side of every pairing before fitting, so that a bot that never
#: lost (or never won) still gets a finite rating.
PRIOR_WINS = 0.5


def wilson(wins: float, games: float, z: float = Z95) -> tuple[float, float]:
    """The 95% confidence interval of a win rate (Wilson score interval); (0, 1) without games."""
    if games <= 0:
        return (0.0, 1.0)
    rate = wins / games
    centre = (rate + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    # At either end the bound is exact: no rounding error may show 1e-18 for nothing.
    low = 0.0 if wins <= 0 else max(0.0, centre - half)
    high = 1.0 if wins >= games else min(1.0, centre + half)
    return (low, high)


def bradley_terry(names: Sequence[str], wins: Mapping[tuple[str, str], float], rounds: int = 2000) -> dict[str, float]:
    """Elo-scaled ratings from `wins[(a, b)]`, how often `a` beat `b` (pairs never played
    are left out of the fit). Bots that met nobody get the mean."""
    strength = dict.fromkeys(names, 1.0)
    pairs = {(a, b) for a, b in wins} | {(b, a) for a, b in wins}
    won = {pair: wins.get(pair, 0.0) + PRIOR_WINS for pair in pairs}
    for _ in range(rounds):
        updated = {}
        for name in names:
            total = sum(won[(name, other)] for other in names if (name, other) in won)
            games = sum(
                (won[(name, other)] + won[(other, name)]) / (strength[name] + strength[other])
                for other in names
                if (name, other) in won
            )
            updated[name] = total / games if games else strength[name]
        # Only ratios matter: keep the geometric mean at 1.
        scale = math.exp(sum(math.log(value) for value in updated.values()) / len(updated))
        strength = {name: value / scale for name, value in updated.items()}
    return {name: ELO_MEAN + ELO_DECADE * math.log10(value) for name, value in strength.items()}
