"""The archive's benchmark: what a finished game holds of Redis before and after it moves to
the archive, what a read of an archived game costs, and how fast the mover moves them.

    python -m benchmarks.archive [--games 100000] [--reads 2000] [--batch 2000]

On an embedded store of its own (in a temporary folder, with the product's settings: every
append fsynced), it writes `--games` finished games of both rulesets in turn (the logs of a
few hundred distinct games of bots, written under new ids: writing is the store's work,
not the engine's), measures the store's memory (`used_memory`, and `MEMORY USAGE` of each
key a game keeps), moves every game to an archive in another temporary folder with one
mover, and measures again. Then it reads `--reads` archived games at random through the
games layer, each from a new Games and a new Archive (nothing cached: a file's footer and
a row group read each time), and again through one Games (the cache warm).

It prints a table, its bars (the keys an archived game keeps, at most 512 bytes of MEMORY
USAGE all told; an archived read's median at most 5 ms), each PASS or FAIL, and exits 1 when
one fails. The listing's indexes, which every game has whether archived or not, are shown
beside them.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from core.rulesets import RULESETS
from events.archive import Archive
from events.codec import Event, Player
from events.games import Games, listing_member, summary_of
from events.play import LoggedGame, create_game
from events.server import EmbeddedServer
from events.store import EventStore

#: An index entry's bar, bytes of store memory all told (issue 31).
INDEX_BAR = 512
#: An archived read's bar, its median in milliseconds (issue 31).
READ_BAR_MS = 5.0
#: Distinct games whose logs are written again under new ids.
DISTINCT = 400


def logs(count: int) -> list[tuple[list[Event], LoggedGame]]:
    """`count` finished games of bots, both rulesets in turn: (events, game) each."""
    made = []
    rulesets = list(RULESETS.values())
    for n in range(count):
        ruleset = rulesets[n % len(rulesets)]
        players = ruleset.players[0]
        table = tuple(Player(seat=seat, name=f"bot{seat}", bot=ruleset.bots[0]) for seat in range(players))
        events, logged = create_game(ruleset.name, f"x{n}", table, seed=n, options={})
        assert logged.finished
        made.append((events, logged))
    return made


async def write(store: EventStore, games: int) -> list[str]:
    """`games` finished games, 200 appends at a time (they share the server's fsyncs)."""
    distinct = logs(DISTINCT)
    ids = [f"game{n:07d}" for n in range(games)]
    for start in range(0, games, 200):
        await asyncio.gather(
            *(
                store.append(
                    game_id,
                    distinct[n % DISTINCT][0],
                    0,
                    summary={**summary_of(distinct[n % DISTINCT][1]), "listed": listing_member(game_id, n + 1)},
                    codec=distinct[n % DISTINCT][1].rules.codec,
                )
                for n, game_id in enumerate(ids[start : start + 200], start)
            )
        )
    return ids


async def used(store: EventStore) -> int:
    info = await store.recorder.wire.execute("INFO", "memory")
    line = next(row for row in info.decode().splitlines() if row.startswith("used_memory:"))
    return int(line.split(":")[1])


async def keys_of(store: EventStore, game_id: str) -> dict[str, int]:
    """Each key of a game and its MEMORY USAGE."""
    prefix = store.recorder.prefix(game_id)
    found = {}
    for part in ("events", "summary", "tokens", "finished"):
        usage = await store.recorder.wire.execute("MEMORY", "USAGE", prefix + part, "SAMPLES", 0)
        if usage is not None:
            found[part] = int(usage)
    return found


async def listing_bytes(store: EventStore) -> int:
    """The listing's indexes, every shard of every status (MEMORY USAGE, bytes): what every
    game keeps there, archived or not."""
    total = 0
    for status in (None, "finished"):
        for key in store.listing.indexes(status) if store.listing else []:
            total += int(await store.recorder.wire.execute("MEMORY", "USAGE", key, "SAMPLES", 0) or 0)
    return total


async def read_times(url: str, archive_url: str, ids: list[str], reads: int, *, cold: bool) -> list[float]:
    """Milliseconds of each read of a random archived game's view: cold, each by a new Games
    over a new Archive (its whole log read from its file and rebuilt); warm, of fifty games
    read before, by one Games."""
    chance = random.Random(7)
    times = []

    store = EventStore.from_url(url, namespace="bench", archive=Archive(archive_url))
    games = Games(store)
    try:
        if not cold:
            ids = ids[:50]
            for game_id in ids:  # each read once first: the cache holds them
                await games.load(game_id)
        for _ in range(reads):
            game_id = chance.choice(ids)
            if cold:
                store.archive = Archive(archive_url)
                games = Games(store)
            started = time.perf_counter()
            await games.load(game_id)
            times.append((time.perf_counter() - started) * 1000)
    finally:
        await store.close()
    return times


async def run(games: int, reads: int, batch: int) -> int:
    with tempfile.TemporaryDirectory() as folder:
        server = EmbeddedServer(Path(folder) / "store")
        url = server.start()
        archive_url = str(Path(folder) / "archive")
        store = EventStore.from_url(url, namespace="bench", archive=Archive(archive_url))
        try:
            empty = await used(store)
            started = time.perf_counter()
            ids = await write(store, games)
            written = time.perf_counter() - started
            before = await used(store)
            keys_before = await keys_of(store, ids[0])
            started = time.perf_counter()
            moved = await store.archiver(after_ms=0, batch_games=batch).pass_once()
            moving = time.perf_counter() - started
            assert moved.games == games, moved
            after = await used(store)
            keys_after = await keys_of(store, ids[0])
            listing = await listing_bytes(store)
            files = store.archive.files() if store.archive else []
            archive_bytes = sum(store.archive.size(path) for path in files) if store.archive else 0
            cold = await read_times(url, archive_url, ids, reads, cold=True)
            warm = await read_times(url, archive_url, ids, reads, cold=False)
        finally:
            await store.close()
            server.stop()
    per_before, per_after = (before - empty) / games, (after - empty) / games
    print(f"games                     {games:,} ({DISTINCT} distinct logs), written in {written:.1f} s")
    print(f"store memory per game     before {per_before:,.0f} B, after {per_after:,.0f} B (used_memory)")
    print(f"a game's keys before      {keys_before} (MEMORY USAGE, bytes)")
    print(f"a game's keys after       {keys_after}")
    print(f"the listing's indexes     {listing / games:,.0f} B a game (every game's, archived or not)")
    print(f"archive                   {len(files)} files, {archive_bytes / games:,.0f} B a game on disk")
    print(f"moved                     {games / moving:,.0f} games/s ({moving:.1f} s, batches of {batch})")
    for name, times in (("cold", cold), ("warm", warm)):
        ordered = sorted(times)
        p99 = ordered[int(len(ordered) * 0.99) - 1]
        print(f"archived read, {name:4}      median {statistics.median(times):.2f} ms, p99 {p99:.2f} ms")
    bars = [
        ("an archived game's keys, all told", sum(keys_after.values()), INDEX_BAR, "B"),
        ("an archived read's median, cold", statistics.median(cold), READ_BAR_MS, "ms"),
    ]
    failed = False
    for name, value, bar, unit in bars:
        ok = value <= bar
        failed |= not ok
        print(f"{'PASS' if ok else 'FAIL'} {name}: {value:,.2f} {unit} (bar: at most {bar:g} {unit})")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--reads", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=2000)
    args = parser.parse_args(argv)
    return asyncio.run(run(args.games, args.reads, args.batch))


if __name__ == "__main__":
    sys.exit(main())
