"""Golden playthroughs of the pot game, as OpenSpiel keeps them: a whole game as text, with
the state after every move. The tests render the same games with the engine and the
reference and demand the files, byte for byte, so that any change of behaviour shows.

`python -m tests.core.pot.playthrough` writes the files from the engine; it refuses to
overwrite a file that differs (and names the first differing line) unless given `--accept`.

Moves are chosen as `simulate` chooses them: each seat's bot draws from the game's own
random stream (`stream_seed(seed, 0)`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

from core.poison.reference import Random, stream_seed
from core.rulesets import POT
from tests.core import golden
from tests.core.golden import cards

HERE = Path(__file__).parent / "playthroughs"

#: (players, seed, bots) of every golden game.
GAMES = [
    (2, 1, ("random", "random")),
    (3, 2, ("greedy", "random", "greedy")),
    (4, 3, ("random", "greedy", "random", "random")),
    (6, 4, ("greedy", "random", "random", "greedy", "random", "random")),
]


def file_name(players: int, seed: int, bots: tuple[str, ...]) -> str:
    return f"{players}p-seed{seed}-{'-'.join(bots)}.txt"


def result_line(result) -> str:
    return (
        f"{result.outcome} by seat {result.seat}: [{cards(result.cards)}] toxicity {result.toxicity},"
        f" {result.points} points"
    )


def render(rules: ModuleType, players: int, seed: int, bots: tuple[str, ...]) -> str:
    game = rules.Game(players, seed=seed)
    rng = Random(stream_seed(seed, 0))
    lines = [
        f"# Pot game playthrough: {players} players, seed {seed}, bots {' '.join(bots)}",
        "# Regenerate with: python -m tests.core.pot.playthrough (--accept to overwrite)",
    ]
    for seat in range(players):
        lines.append(f"hand {seat}: {cards(game.hand(seat))}")
    lines.append(f"pot: {cards(game.pot)}")
    lines.append(f"draw pile: {cards(game.draw_order())}")

    def choose(game) -> tuple[str, bool]:
        if bots[game.turn] != "greedy":
            return golden.random_move(game, rng)
        move = max(game.legal_moves(), key=lambda move: game_key(game, move))
        assert move == game.choose("greedy")
        return move

    for move, played in golden.moves(game, choose):
        lines.append(f"{move}{' and closes' if played.close else ''} -> toxicity {played.toxicity}")
        if played.ended:
            lines.append(f"  {result_line(played.ended)}")
        if played.started:
            lines.append(f"  new pot: {played.started}")
        if played.drawn:
            lines.append(f"  draws {cards(played.drawn)}")
        if played.final:
            lines.append(f"  last pot {result_line(played.final)}")
        lines.append(
            f"  pot [{cards(game.pot)}] {game.toxicity}; pile {game.draw_pile}{' (endgame)' if game.endgame else ''};"
            f" hands {' '.join(map(str, game.hand_sizes))}; totals {' '.join(map(str, game.totals))};"
            f" turn {game.turn}"
        )
    lines.append(f"pots: {len(game.results())}")
    lines.append(f"winners: {' '.join(map(str, game.winners))}")
    return "\n".join(lines) + "\n"


def game_key(game, move) -> int:
    """The greedy bot's rule (core/pot/engine.pyi), written again here so the file shows it."""
    card, close = move
    toxicity = game.toxicity + int(card[1])
    if close:
        cards_in_pot = len(game.pot) + 1
        points = 1 + cards_in_pot if toxicity <= cards_in_pot else 1 - toxicity
        return 1000 + points if points > 0 else -1000 + points
    return -int(card[1]) if toxicity > 14 else 100 + int(card[1])


PLAYTHROUGHS = golden.Playthroughs("the pot game", POT, HERE, GAMES, file_name, render)


if __name__ == "__main__":
    sys.exit(PLAYTHROUGHS.main())
