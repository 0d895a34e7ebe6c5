"""`python -m core`: play one seeded game of random legal moves and print it round by round.

The engine alone, without the event log or the service: it shows only what the rules
compute (taken piles, discards, scores, totals, winners).
"""

from __future__ import annotations

import argparse
import sys

from core import derive_seed
from core.errors import SEED_LIMIT, RuleError
from core.plain import Random
from core.poison import engine
from core.results import CauldronRule


def play(players: int, rounds: int | None, cauldrons: CauldronRule, seed: int) -> engine.Game:
    """Play the game `simulate` would play for this game seed."""
    game = engine.Game(players, rounds=rounds, cauldrons=cauldrons, seed=seed)
    rng = Random(derive_seed(seed, 0))
    while game.status != "finished":
        legal = game.legal_moves()
        assert game.turn is not None  # an active game always has a seat to play
        game.play(game.turn, *legal[rng.below(len(legal))])
    return game


def report(game: engine.Game) -> str:
    seats = range(game.players)
    lines = [
        f"Poison: {game.players} players, {game.rounds} rounds, {game.cauldron_rule} cauldrons, seed {game.seed}",
        "",
        "round  dealer  " + "  ".join(f"{'seat ' + str(s):>22}" for s in seats),
    ]
    for result in game.results():
        cells = []
        for seat in seats:
            red, blue, purple, poison = result.taken[seat]
            gone = "".join(colour[0].upper() for colour in result.discarded[seat]) or "-"
            cells.append(f"{red:>2}r{blue:>2}b{purple:>2}p{poison:>2}g -{gone:<3}{result.scores[seat]:>3}")
        lines.append(f"{result.round:>5}  {result.dealer:>6}  " + "  ".join(f"{c:>22}" for c in cells))
    lines.append("total          " + "  ".join(f"{t:>22}" for t in game.totals))
    lines += ["", f"winners: {', '.join(f'seat {s}' for s in game.winners)} (lowest total wins)"]
    lines.append("each cell: cards taken (red, blue, purple, poison), colours discarded, round score")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m core", description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4, help="3 to 6 (default 4)")
    parser.add_argument("--rounds", type=int, default=None, help="1 to 20 (default: one per player)")
    parser.add_argument(
        "--cauldrons", default="dynamic", choices=engine.CAULDRON_RULES, help="dynamic (default) or fixed"
    )
    parser.add_argument("--seed", type=int, default=2026, help=f"0 to {SEED_LIMIT:,} (default 2026)")
    args = parser.parse_args(argv)
    try:
        game = play(args.players, args.rounds, args.cauldrons, args.seed)
    except RuleError as refused:
        print(f"python -m core: {refused} ({refused.code})", file=sys.stderr)
        return 2
    print(report(game))
    return 0


if __name__ == "__main__":
    sys.exit(main())
