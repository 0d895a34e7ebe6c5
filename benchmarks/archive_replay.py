"""How fast `poison replay --archive` checks an archive, on one core, reading included.

Builds an archive of finished four-player games of Poison of bots (each made through the
event layer, events.play, so that its log is what the store would hold) in a temporary
folder, or in the folder given, then times events.bulk.check_file over each of its files
in this process, --repeat times, and prints games/s and moves/s of the fastest pass and the
median one (the issue's goal: 1,000,000 moves/s). The fastest is the machine's speed; the
median says how much other work on a shared machine took from it.

    .venv/bin/python benchmarks/archive_replay.py [--games 2000] [--rounds 6] [--folder DIR] [--repeat 7]
    .venv/bin/python benchmarks/archive_replay.py --profile      # cProfile's top functions too
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import tempfile
import time
from pathlib import Path

from events.archive import Archive, ArchivedGame
from events.archiving import archived_game
from events.bulk import Checked, check_file
from events.mapper import records_of
from events.play import create_game
from events.poison.schema import Player
from events.records import entry
from events.rulesets import rules_for

#: Games per batch written (the mover's batches hold up to events.archiving.BATCH_GAMES).
BATCH = 1000
#: When the games ended (ms since the epoch): every one in the same day's partition.
ENDED_MS = 1_800_000_000_000


def finished_game(number: int, rounds: int) -> ArchivedGame:
    """Game `number`: four bots dealt from seed `number`, played to its end, as the mover
    would take it from the store (its raw entries, and the public forms made from them)."""
    players = tuple(Player(seat=seat, name=f"bot {seat}", bot="random") for seat in range(4))
    game_id = f"bench-{number:06d}"
    events, logged = create_game("poison", game_id, players, seed=number, options={"rounds": rounds})
    assert logged.finished
    stored = records_of(events, rules_for("poison").codec)
    entries = [entry(version, record) for version, record in enumerate(stored, 1)]
    return archived_game(game_id, "poison", ENDED_MS, entries)


def build(folder: Path, games: int, rounds: int) -> Archive:
    archive = Archive(str(folder))
    for first in range(0, games, BATCH):
        batch = [finished_game(number, rounds) for number in range(first, min(games, first + BATCH))]
        archive.write(f"bench-{first:06d}", batch)
    return archive


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--folder", type=Path, help="an archive to check (built there if it has no files)")
    parser.add_argument("--repeat", type=int, default=7, help="passes over the archive")
    parser.add_argument("--profile", action="store_true", help="one pass, under cProfile")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.folder or Path(scratch) / "archive"
        archive = Archive(str(folder))
        if not archive.files():
            started = time.perf_counter()
            archive = build(folder, args.games, args.rounds)
            print(f"built {args.games} games in {time.perf_counter() - started:.1f} s at {folder}")
        files = archive.files()
        check_file(archive.url, files[0])  # warm: imports, the decoders' first use
        if args.profile:
            profiler = cProfile.Profile()
            profiler.runcall(check_all, archive.url, files)
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
            return
        passes = sorted((check_all(archive.url, files) for _ in range(args.repeat)), key=lambda done: done[0])
        checked, fastest = passes[0][1], passes[0][0]
        median = passes[len(passes) // 2][0]
        print(
            f"{checked.games} games, {checked.events} events, {checked.moves} moves; fastest of {args.repeat} "
            f"passes {fastest:.3f} s: {checked.games / fastest:,.0f} games/s, {checked.moves / fastest:,.0f} moves/s; "
            f"median {median:.3f} s: {checked.moves / median:,.0f} moves/s"
        )


def check_all(url: str, files: list[str]) -> tuple[float, Checked]:
    """One pass over every file, on this core: how long it took, and what it found."""
    checked = Checked()
    started = time.perf_counter()
    for path in files:
        checked.add(check_file(url, path))
    elapsed = time.perf_counter() - started
    assert not checked.invalid, checked.invalid[:3]
    return elapsed, checked


if __name__ == "__main__":
    main()
