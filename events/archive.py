"""The archive: finished games' logs as Apache Parquet files, at a URL (a local folder, or
any object store fsspec knows by URL: `s3://...`, `gs://...`), one row per event.

The files are what a person queries with DuckDB or Polars (docs/archive.md); this module
writes them in batches and reads a game back from them, byte for byte as Redis held it.
A batch is one file per day the games in it ended (`day=YYYY-MM-DD/<batch>.parquet`, a
Hive partition), rows sorted by game and version and cut into row groups; a game's place
in it is a `Placed` (the file, its first row, its number of rows), which the mover keeps
in the game's index entry in Redis (events/archiving.py) and which reading goes by.

A file is written whole under a name no reader globs (`….parquet.<random>.partial`),
flushed to stable storage, then renamed: a crash leaves either no file or a whole one. Reading is
cached: the footers of files read, and the entries of games read lately; no file is held open.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from threading import Lock
from typing import Any

import fsspec
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from fsspec.implementations.local import LocalFileSystem

from events.durable import sync_folder
from events.records import DATA, SCHEMA, TYPE, Entries

#: Rows per row group: a game read back reads the groups its rows lie in, so small enough
#: for a read to be quick, large enough for a query engine to scan the files well.
ROW_GROUP_ROWS = 4096
#: How many games' entries a process keeps after reading them from the archive.
CACHED_GAMES = 4096
#: How many files' footers (their row groups' places) a process keeps open.
CACHED_FILES = 256
#: A file being written: no reader's `*.parquet` takes it.
PARTIAL = ".partial"

#: One row per event: the game, its ruleset, when it ended, the event's version and type (as
#: the API names it), the event as JSON (its data as /export gives it), and the event as the
#: store held it: its stored type, schema version and data (msgpack), which reading gives back.
SCHEMA_OF_ROWS = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        pa.field("ruleset", pa.string(), nullable=False),
        pa.field("ended", pa.timestamp("ms", tz="UTC"), nullable=False),
        pa.field("version", pa.int32(), nullable=False),
        pa.field("type", pa.string(), nullable=False),
        pa.field("event", pa.string(), nullable=False),
        pa.field("stored_type", pa.string(), nullable=False),
        pa.field("schema", pa.int16(), nullable=False),
        pa.field("stored", pa.binary(), nullable=False),
    ]
)
#: The columns a game read back needs.
_READ = ["version", "stored_type", "schema", "stored"]


@dataclass(frozen=True)
class ArchivedGame:
    """A game to archive: its id, ruleset, when it ended (ms since the epoch), its raw
    entries as the recorder read them, and each event's public type and JSON data, in the
    same order."""

    game_id: str
    ruleset: str
    ended_ms: int
    entries: Entries
    types: Sequence[str]
    public: Sequence[bytes]


@dataclass(frozen=True)
class Placed:
    """Where a game lies in the archive: a file (relative to the archive's root), its first
    row there and how many rows it has."""

    path: str
    first: int
    rows: int

    def encode(self) -> str:
        return f"{self.path}|{self.first}|{self.rows}"

    @classmethod
    def decode(cls, text: str) -> Placed:
        path, first, rows = text.rsplit("|", 2)
        return cls(path, int(first), int(rows))


def day_of(ended_ms: int) -> str:
    """The partition a game that ended at `ended_ms` lies in."""
    return datetime.fromtimestamp(ended_ms / 1000, UTC).strftime("day=%Y-%m-%d")


class Archive:
    """The Parquet files at one URL. Safe to share between threads (a file read or written
    is one call of the filesystem's, the caches are locked)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.fs, self.root = fsspec.core.url_to_fs(url)
        self.local = isinstance(self.fs, LocalFileSystem)
        self._lock = Lock()
        self._games: OrderedDict[Placed, Entries] = OrderedDict()
        self._files: OrderedDict[str, tuple[pq.FileMetaData, list[int]]] = OrderedDict()

    # -- writing --

    def plan(self, batch: str, games: Sequence[tuple[str, int, int]]) -> dict[str, Placed]:
        """Where each game of a batch will lie, from (game id, ended ms, rows) alone: a file
        per day, named after the batch, rows in order of game id. Known before a byte is
        written, so that the mover can record it first and a crash can finish the batch."""
        placed: dict[str, Placed] = {}
        by_day: dict[str, list[tuple[str, int]]] = {}
        for game_id, ended_ms, rows in games:
            by_day.setdefault(day_of(ended_ms), []).append((game_id, rows))
        for day, members in sorted(by_day.items()):
            path = f"{day}/{batch}.parquet"
            first = 0
            for game_id, rows in sorted(members):
                placed[game_id] = Placed(path, first, rows)
                first += rows
        return placed

    def write(self, batch: str, games: Sequence[ArchivedGame]) -> dict[str, Placed]:
        """Write a batch, a file per day, each whole or not at all; returns where each game
        lies (as `plan` says). Idempotent: writing the same batch again replaces its files
        with the same rows."""
        placed = self.plan(batch, [(game.game_id, game.ended_ms, len(game.entries)) for game in games])
        files: dict[str, list[ArchivedGame]] = {}
        for game in sorted(games, key=lambda game: game.game_id):
            files.setdefault(placed[game.game_id].path, []).append(game)
        for path, members in files.items():
            self._write_file(path, _table(members))
        return placed

    def _write_file(self, path: str, table: pa.Table) -> None:
        final = self._full(path)
        folder = final.rsplit("/", 1)[0]
        self.fs.makedirs(folder, exist_ok=True)
        if self.local:
            # A name of this writer's own: two movers finishing one batch write side by side.
            partial = f"{final}.{os.urandom(4).hex()}{PARTIAL}"
            with open(partial, "wb") as out:
                pq.write_table(table, out, compression="zstd", row_group_size=ROW_GROUP_ROWS)
                out.flush()
                os.fsync(out.fileno())
            os.replace(partial, final)
            # The file's name, the day's folder in the root, the root in its parent: each
            # time, since a crash may have come between a folder's making and its flush.
            for made in (folder, os.path.dirname(folder), os.path.dirname(os.path.dirname(folder))):
                sync_folder(made)
        else:
            # An object store's upload is whole when it returns: no partial object is ever seen.
            with self.fs.open(final, "wb") as out:
                pq.write_table(table, out, compression="zstd", row_group_size=ROW_GROUP_ROWS)
        with self._lock:
            self._files.pop(path, None)  # a rewritten file's footer is read again

    # -- reading --

    def read(self, placed: Placed) -> Entries:
        """A game's raw entries, as the recorder held them (byte for byte)."""
        with self._lock:
            cached = self._games.get(placed)
            if cached is not None:
                self._games.move_to_end(placed)
                return cached
        entries = self._read(placed)
        with self._lock:
            self._games[placed] = entries
            while len(self._games) > CACHED_GAMES:
                self._games.popitem(last=False)
        return entries

    def cached(self, placed: Placed) -> Entries | None:
        """A game's entries if they were read lately (no file is touched)."""
        with self._lock:
            found = self._games.get(placed)
            if found is not None:
                self._games.move_to_end(placed)
            return found

    def read_file(self, path: str) -> tuple[list[str], Entries]:
        """A file's rows read from it now, in one pass, in their order: each row's game id,
        and each row's raw entry as `read` gives it (the mover's read-back of what it wrote)."""
        self.forget(path)
        rows = self._columns(path, ["game_id", *_READ]).to_pydict()
        return rows["game_id"], _entries(rows)

    def _read(self, placed: Placed) -> Entries:
        metadata, starts = self._file(placed.path)
        end = placed.first + placed.rows
        if placed.rows < 1 or placed.first < 0 or end > starts[-1]:
            raise ValueError(f"rows {placed.first} to {end} are not all in {placed.path}, of {starts[-1]} rows")
        groups = [i for i, start in enumerate(starts[:-1]) if start < end and starts[i + 1] > placed.first]
        with self.fs.open(self._full(placed.path), "rb") as source:
            table = pq.ParquetFile(source, metadata=metadata).read_row_groups(groups, columns=_READ)
        return _entries(table.slice(placed.first - starts[groups[0]], placed.rows).to_pydict())

    def _file(self, path: str) -> tuple[pq.FileMetaData, list[int]]:
        """A file's footer (read once: a read of the file then needs no second look at it)
        and where each of its row groups starts."""
        with self._lock:
            known = self._files.get(path)
            if known is not None:
                self._files.move_to_end(path)
                return known
        with self.fs.open(self._full(path), "rb") as source:
            metadata = pq.read_metadata(source)
        starts = [0]
        for i in range(metadata.num_row_groups):
            starts.append(starts[-1] + metadata.row_group(i).num_rows)
        with self._lock:
            self._files[path] = (metadata, starts)
            while len(self._files) > CACHED_FILES:
                self._files.popitem(last=False)
        return metadata, starts

    def forget(self, path: str) -> None:
        """Drop what is cached of a file (it was rewritten or removed)."""
        with self._lock:
            self._files.pop(path, None)
            for placed in [placed for placed in self._games if placed.path == path]:
                del self._games[placed]

    # -- the whole archive --

    def files(self) -> list[str]:
        """Every whole file, relative to the root, in order."""
        if not self.fs.exists(self.root):
            return []
        found = self.fs.glob(self._full("day=*/*.parquet"))
        prefix = self._full("")
        return sorted(str(path)[len(prefix) :] for path in found)

    def size(self, path: str) -> int:
        return int(self.fs.size(self._full(path)))

    def games_in(
        self, path: str, counting: Collection[str] = ()
    ) -> Iterator[tuple[str, str, int, int, bytes, Callable[[], Entries]]]:
        """The games of one file, in order, for bulk work (poison replay --archive): each
        one's id, ruleset, number of events, how many of them are of the stored types
        `counting`, their stored data one after another in version order (as a finished
        copy's list holds them), and a call that gives its rows as raw entries, each with
        its stored type and schema (as `read` gives them), for a game whose data are not
        all of today's forms. The columns are read in one call and cut into games at the
        runs of their game ids (a file's rows are in order of game), each game's data one
        slice of the column's buffer: no Python work per row until the entries are asked."""
        table = self._columns(path, ["game_id", "ruleset", *_READ])
        if table.num_rows == 0:
            return
        runs = pc.run_end_encode(table.column("game_id").combine_chunks())
        ends: list[int] = runs.run_ends.to_pylist()
        starts = [0, *ends[:-1]]
        rulesets = table.column("ruleset").take(starts).to_pylist()
        # The rows of the types counted so far, at each row: a game's count is the difference
        # across it.
        flags = pc.is_in(table.column("stored_type"), value_set=pa.array(sorted(counting), pa.string()))
        so_far = [0, *pc.cumulative_sum(pc.cast(flags, pa.int64())).take([end - 1 for end in ends]).to_pylist()]
        stored = table.column("stored").combine_chunks()
        _, offsets_buffer, data_buffer = stored.buffers()
        offsets = memoryview(offsets_buffer).cast("i")[stored.offset :]
        data = memoryview(data_buffer) if data_buffer is not None else memoryview(b"")

        def entries(start: int, end: int) -> Entries:
            return _entries(table.slice(start, end - start).select(_READ).to_pydict())

        for game, (game_id, ruleset, start, end) in enumerate(
            zip(runs.values.to_pylist(), rulesets, starts, ends, strict=True)
        ):
            counted = so_far[game + 1] - so_far[game]
            stored_data = bytes(data[offsets[start] : offsets[end]])
            yield game_id, ruleset, end - start, counted, stored_data, partial(entries, start, end)

    def counts(self, path: str) -> tuple[int, int]:
        """How many games and events one file holds (its game ids read, nothing else)."""
        ids = self._columns(path, ["game_id"]).column("game_id")
        return pc.count_distinct(ids).as_py(), len(ids)

    def _columns(self, path: str, columns: list[str]) -> pa.Table:
        """Some columns of a whole file, read on this thread alone (bulk work runs a
        process per core, the mover a thread); a local file by its name, through pyarrow's
        own reading."""
        full = self._full(path)
        if self.local:
            return pq.read_table(full, columns=columns, use_threads=False)
        with self.fs.open(full, "rb") as source:
            return pq.read_table(source, columns=columns, use_threads=False)

    def _full(self, path: str) -> str:
        return f"{self.root.rstrip('/')}/{path}"


def _entries(rows: dict[str, list[Any]]) -> Entries:
    """Rows' raw entries, in the one form every recorder reads (events/records.py)."""
    return [
        [b"0-%d" % version, [TYPE, kind.encode(), SCHEMA, b"%d" % schema, DATA, stored]]
        for version, kind, schema, stored in zip(
            rows["version"], rows["stored_type"], rows["schema"], rows["stored"], strict=True
        )
    ]


def _table(games: Sequence[ArchivedGame]) -> pa.Table:
    columns: dict[str, list[Any]] = {field.name: [] for field in SCHEMA_OF_ROWS}
    for game in games:
        for raw, kind, public in zip(game.entries, game.types, game.public, strict=True):
            version, fields = raw[0], raw[1]
            columns["game_id"].append(game.game_id)
            columns["ruleset"].append(game.ruleset)
            columns["ended"].append(game.ended_ms)
            columns["version"].append(int(version.split(b"-")[1]))
            columns["type"].append(kind)
            columns["event"].append(public.decode())
            columns["stored_type"].append(fields[1].decode())
            columns["schema"].append(int(fields[3]))
            columns["stored"].append(fields[5])
    return pa.table(columns, schema=SCHEMA_OF_ROWS)


__all__ = ["CACHED_GAMES", "ROW_GROUP_ROWS", "SCHEMA_OF_ROWS", "Archive", "ArchivedGame", "Placed", "day_of"]
