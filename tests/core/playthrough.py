"""Golden playthroughs, as OpenSpiel keeps them: a whole game as text, with the state after
every move. The tests render the same games with the engine and the reference and demand the
files, byte for byte, so that any change of behaviour shows (the first differing line named).

`python -m tests.core.playthrough` writes the files from the engine: it writes a missing
file, leaves an equal one alone, and refuses to overwrite one that differs (naming the first
differing line, exit status 1) unless given `--accept`, so a change of behaviour is never
recorded without a person reading it.

Moves are chosen as `simulate` chooses them: uniformly among the legal moves, from the
game's own random stream.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

from core.poison import reference
from core.rulesets import POISON
from tests.core import golden
from tests.core.golden import cards

HERE = Path(__file__).parent / "playthroughs"

#: (players, rounds, cauldrons, seed) of every golden game.
GAMES = [
    (3, 3, "dynamic", 1),
    (4, 4, "dynamic", 2),
    (4, 2, "fixed", 3),
    (5, 1, "dynamic", 4),
    (6, 1, "fixed", 5),
]


def file_name(players: int, rounds: int, cauldrons: str, seed: int) -> str:
    return f"{players}p-{rounds}r-{cauldrons}-seed{seed}.txt"


def render(rules: ModuleType, players: int, rounds: int, cauldrons: str, seed: int) -> str:
    game = rules.Game(players, rounds=rounds, cauldrons=cauldrons, seed=seed)
    rng = reference.Random(reference.stream_seed(seed, 0))
    lines = [
        f"# Poison playthrough: {players} players, {rounds} rounds, {cauldrons} cauldrons, seed {seed}",
        "# Regenerate with: python -m tests.core.playthrough",
    ]

    def deal() -> None:
        lines.append(f"round {game.round}: dealer {game.dealer}, seat {game.turn} plays first")
        for seat in range(players):
            lines.append(f"  hand {seat}: {cards(game.hand(seat))}")
        if players == 3:
            lines.append(f"  set aside: {cards(game.set_aside())}")

    deal()
    for move, played in golden.moves(game, lambda game: golden.random_move(game, rng)):
        lines.append(f"{move} into cauldron {played.cauldron} -> total {played.total}")
        if played.taken:
            lines.append(f"  overflow: seat {played.seat} takes {cards(played.taken)}")
        if played.round_over:
            result = game.results()[-1]
            lines.append(f"round {result.round} scored:")
            for seat in range(players):
                taken = result.taken[seat]
                lines.append(
                    f"  seat {seat}: took red {taken.red} blue {taken.blue} purple {taken.purple}"
                    f" poison {taken.poison}; discards {cards(result.discarded[seat])};"
                    f" scores {result.scores[seat]}"
                )
            lines.append(f"  totals: {' '.join(map(str, game.totals))}")
            if game.status != "finished":
                deal()  # the next round's, dealt by the move that ended this one
        else:
            pots = " | ".join(
                f"{index}: {c.colour or 'colourless'} {c.total} [{cards(c.cards)}]"
                for index, c in enumerate(game.cauldrons)
            )
            lines.append(f"  cauldrons {pots}")
            lines.append(
                f"  hands {' '.join(map(str, game.hand_sizes))}; piles {' '.join(map(str, game.pile_sizes))};"
                f" turn {game.turn}"
            )
    lines.append(f"winners: {' '.join(map(str, game.winners))}")
    return "\n".join(lines) + "\n"


PLAYTHROUGHS = golden.Playthroughs("Poison", POISON, HERE, GAMES, file_name, render)


if __name__ == "__main__":
    sys.exit(PLAYTHROUGHS.main())
