"""Golden files that a generator may not overwrite silently, for both games' playthroughs,
and how both play a game through to render it.

A generator writes a missing file and leaves an equal one alone; a file that differs is
refused (naming its first changed line) unless the person running it says `--accept`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.rulesets import Ruleset


def cards(codes: Iterable[str]) -> str:
    """Card codes as a playthrough shows them: spaced, or `-` for none."""
    return " ".join(codes) or "-"


def random_move(game: Any, rng: Any) -> Any:
    """The move a random bot makes, as `simulate` draws it: uniformly among the legal moves,
    from the game's own random stream `rng`."""
    legal = game.legal_moves()
    return legal[rng.below(len(legal))]


def moves(game: Any, choose: Callable[[Any], Any]) -> Iterator[tuple[str, Any]]:
    """Each move of `game` until it is finished, `choose(game)`'s for the seat to move, once
    the game has played it: the start of its line in every game's playthrough (its number
    from 1, its seat and card; the game's own details follow) and what the engine reports."""
    number = 0
    while game.status != "finished":
        number += 1
        played = game.play(game.turn, *choose(game))
        yield f"move {number}: seat {played.seat} plays {played.card}", played


def first_difference(old: str, new: str) -> str | None:
    """The first line where two renderings differ, said for a person; None if equal."""
    if old == new:
        return None
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    for number, (was, now) in enumerate(zip(old_lines, new_lines, strict=False), start=1):
        if was != now:
            return f"line {number}: recorded {was!r}, now {now!r}"
    number = min(len(old_lines), len(new_lines)) + 1
    return f"line {number}: one rendering ends there ({len(old_lines)} recorded lines, {len(new_lines)} now)"


def write(files: Iterable[tuple[Path, str]], *, accept: bool) -> int:
    """Write each (path, text); 1 if a file that differs was refused, else 0."""
    refused = 0
    for path, text in files:
        if path.exists():
            difference = first_difference(path.read_text(), text)
            if difference is None:
                print(f"unchanged {path}")
                continue
            if not accept:
                print(f"REFUSED {path} differs at {difference} (read the diff; --accept to overwrite)")
                refused += 1
                continue
        path.write_text(text)
        print(f"wrote {path}")
    return 1 if refused else 0


@dataclass(frozen=True)
class Playthroughs:
    """One game's golden playthroughs: its folder of files, the specs of its games, each
    spec's file name, and the rendering of a spec by an implementation of the ruleset (its
    engine or its reference); the generator writes them from the engine."""

    game: str  # the game's name, as a person reads it
    ruleset: Ruleset
    folder: Path
    games: Sequence[tuple[Any, ...]]
    file_name: Callable[..., str]
    render: Callable[..., str]

    def name(self, spec: tuple[Any, ...]) -> str:
        return self.file_name(*spec)

    def main(self, argv: list[str] | None = None) -> int:
        """The generator's command line: writes every game's file from the engine."""
        parser = argparse.ArgumentParser(description=f"Write {self.game}'s golden playthroughs from the engine.")
        parser.add_argument("--accept", action="store_true", help="overwrite files that differ (read the diff first)")
        parser.add_argument("--dir", type=Path, default=self.folder, help=argparse.SUPPRESS)
        args = parser.parse_args(argv)
        args.dir.mkdir(exist_ok=True)
        files = ((args.dir / self.name(spec), self.render(self.ruleset.engine, *spec)) for spec in self.games)
        return write(files, accept=args.accept)
