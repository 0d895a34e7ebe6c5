"""How fast `poison replay --archive` checks an archive, on one core, reading included.

Builds an archive of finished four-player games of Poison of bots (each made through the
event layer, events.play, so that its log is what the store would hold) in a temporary
folder, or in the folder given, then times events.bulk.check_file over each of its files
in this process and prints games/s and moves/s (the issue's goal: 1,000,000 moves/s).

    .venv/bin/python benchmarks/archive_replay.py [--games 2000] [--rounds 6] [--folder DIR]
    .venv/bin/python benchmarks/archive_replay.py --profile      # cProfile's top functions too
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import tempfile
import time
from pathlib import Path

import msgspec

from events.archive import Archive, ArchivedGame
from events.bulk import Checked, check_file
from events.codec import event_data
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
    """Game `number`: four bots dealt from seed `number`, played to its end."""
    players = tuple(Player(seat=seat, name=f"bot {seat}", bot="random") for seat in range(4))
    game_id = f"bench-{number:06d}"
    events, logged = create_game("poison", game_id, players, seed=number, options={"rounds": rounds})
    assert logged.finished
    rules = rules_for("poison")
    stored = records_of(events, rules.codec)
    entries = [entry(version, record) for version, record in enumerate(stored, 1)]
    public = [msgspec.json.encode(event_data(event)) for event in events]
    return ArchivedGame(game_id, "poison", ENDED_MS, entries, public)


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
    parser.add_argument("--profile", action="store_true")
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
        profiler = cProfile.Profile() if args.profile else None
        checked = Checked()
        started = time.perf_counter()
        if profiler is not None:
            profiler.enable()
        for path in files:
            checked.add(check_file(archive.url, path))
        if profiler is not None:
            profiler.disable()
        elapsed = time.perf_counter() - started
        assert not checked.invalid, checked.invalid[:3]
        print(
            f"{checked.games} games, {checked.events} events, {checked.moves} moves in {elapsed:.3f} s: "
            f"{checked.games / elapsed:,.0f} games/s, {checked.moves / elapsed:,.0f} moves/s"
        )
        if profiler is not None:
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
