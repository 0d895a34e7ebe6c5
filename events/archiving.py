"""Moving finished games out of Redis into the archive (events/archive.py), safely under any
crash, by exactly one worker per game however many run.

A game is put in the due index, a sorted set per listing shard scored by when it ended, by
the append that ends it (finished or abandoned), just before that append: so a game over is
always due, and one whose ending append failed is let go when its turn comes. Any worker
may archive a shard's due games; a lease per shard keeps the others off it, and the seal
keeps two of them off one game even when a lease runs out under a slow worker. A batch
goes, step by step:

1. its record (its name, and each game with when it is due) is written beside the shard,
   so that whoever holds the shard next finishes it, games and names unchanged;
2. each game is sealed by the batch, atomically in its slot (SEAL): from then on the
   append script refuses the game (GameArchived), so its log cannot change, and no other
   batch may seal it; the seal hands back the log and the seats' token hashes;
3. the files are written (events/archive.py: whole or not at all), then read back and
   compared with the logs entry by entry;
4. each game is dropped (DROP): its stream, finished copy and tokens row deleted, its
   summary row kept as its index entry, with where it lies and its seats' token hashes;
5. the due entries and the batch's record go.

A crash before 4 leaves every game in Redis (and maybe a file no index names, which the
batch's finishing rewrites under the same name); a crash within 4 leaves each game dropped
or not, its file whole either way. Every step may run twice.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import os
import time
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from events.archive import Archive, ArchivedGame, Placed
from events.calls import Script, StoreCalls, StoreUnavailable, counted
from events.codec import event_data, event_type
from events.listing import SHARDS, shard_of
from events.mapper import events_of
from events.records import Entries
from events.rulesets import rules_for

#: The statuses of a game that is over: only those are archived.
OVER = ("finished", "abandoned")
#: The most games in one batch (a file per day they ended in).
BATCH_GAMES = 2000
#: How many of a batch's seals (or drops) are sent together.
AT_ONCE = 100
#: How long a worker holds a shard once it took it, renewed at every step (ms): longer than
#: any step of a batch takes, short enough that a shard whose worker died waits little.
LEASE_MS = 15_000

#: Seal a game for a batch: refuse another batch's seal, give back the log.
SEAL = Script.of(
    """
-- KEYS: stream, summary, tokens. ARGV: the batch.
local placed = redis.call('HGET', KEYS[2], 'archived')
if placed then return {'archived', placed} end
local sealed = redis.call('HGET', KEYS[2], 'sealed')
if sealed and sealed ~= ARGV[1] then return {'other', sealed} end
local status = redis.call('HGET', KEYS[2], 'status')
if status ~= 'finished' and status ~= 'abandoned' then return {'active'} end
if redis.call('XLEN', KEYS[1]) == 0 then return {'gone'} end
redis.call('HSET', KEYS[2], 'sealed', ARGV[1])
return {'sealed', redis.call('XRANGE', KEYS[1], '-', '+'), redis.call('HGETALL', KEYS[3]),
  redis.call('HGET', KEYS[2], 'ruleset') or ''}
"""
)
#: Drop a sealed game's log, keeping its summary as its index entry.
DROP = Script.of(
    """
-- KEYS: stream, summary, tokens, finished copy. ARGV: the batch, where it lies, its
-- version, then its seats' token hashes as field, value pairs.
if redis.call('HEXISTS', KEYS[2], 'archived') == 1 then return 1 end
if redis.call('HGET', KEYS[2], 'sealed') ~= ARGV[1] then return 0 end
if redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[3]) then return 0 end
if #ARGV > 3 then redis.call('HSET', KEYS[2], unpack(ARGV, 4)) end
redis.call('HSET', KEYS[2], 'archived', ARGV[2])
redis.call('HDEL', KEYS[2], 'sealed')  -- `archived` says as much, in less of the index entry
redis.call('DEL', KEYS[1], KEYS[3], KEYS[4])
return 1
"""
)
#: Take games out of the due index, each only if it is still due when it was read.
SETTLE = Script.of(
    """
for i = 1, #ARGV, 2 do
  if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[i]) or '-1') == tonumber(ARGV[i + 1]) then
    redis.call('ZREM', KEYS[1], ARGV[i])
  end
end
return 1
"""
)
#: Take or keep a shard's lease.
LEASE = Script.of(
    """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0
"""
)

#: Give a shard's lease back (only the holder's).
RELEASE = Script.of("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0")

log = logging.getLogger("poison.archive")

#: A batch's record: its name, and each game with when it is due.
_batch_decoder = msgspec.msgpack.Decoder(tuple[str, list[tuple[str, int]]])

#: The index entry's field of a seat's token hash: `t` and the seat (short: it is in the
#: entry once a seat, and an entry small enough stays in Redis's compact encoding).
SEAT_FIELD = "t%d"
#: A token hash in the index entry: its kind, then its bytes. The service's verifiers
#: ("v1:" and 43 characters of URL-safe base64) and older SHA-256 hex digests are kept as
#: the 32 bytes they spell; anything else (a left seat's mark) as its text.
_VERIFIER, _HEX, _TEXT = b"v", b"h", b"="


def pack_seats(hashes: Mapping[int, str]) -> dict[str, bytes]:
    """The seats' token hashes as the index entry's fields."""
    return {SEAT_FIELD % seat: _packed(digest) for seat, digest in sorted(hashes.items())}


def unpack_seats(row: Mapping[bytes, bytes]) -> dict[int, str]:
    """The seats' token hashes from an index entry's fields (`pack_seats` undone)."""
    seats = {}
    for field, value in row.items():
        if field[:1] == b"t" and field[1:].isdigit():
            kind, raw = value[:1], value[1:]
            if kind == _VERIFIER:
                seats[int(field[1:])] = "v1:" + base64.urlsafe_b64encode(raw).decode().rstrip("=")
            elif kind == _HEX:
                seats[int(field[1:])] = raw.hex()
            else:
                seats[int(field[1:])] = raw.decode()
    return seats


def _packed(digest: str) -> bytes:
    if digest.startswith("v1:"):
        with contextlib.suppress(ValueError):
            raw = base64.urlsafe_b64decode(digest[3:] + "=")
            if "v1:" + base64.urlsafe_b64encode(raw).decode().rstrip("=") == digest:
                return _VERIFIER + raw
    with contextlib.suppress(ValueError):
        raw = bytes.fromhex(digest)
        if raw and raw.hex() == digest:
            return _HEX + raw
    return _TEXT + digest.encode()


@dataclass(frozen=True)
class Archived:
    """What a pass archived: how many games, and the files it wrote."""

    games: int = 0
    files: int = 0


def pass_every(after_s: float) -> float:
    """Seconds between a worker's passes: a tenth of the delay before a game is archived,
    within a second and a minute, so that a game is archived about when it is due."""
    return min(60.0, max(1.0, after_s / 10))


class DueGames(StoreCalls):
    """The due index: games over, each scored by when it ended."""

    def due_key(self, shard: int) -> str:
        return f"{self.namespace}:archive:due:{{{shard}}}"

    @counted
    async def add(self, game_id: str, ended_ms: int) -> None:
        """Put a game that is over, or about to be, in the due index, due `ended_ms` on (a
        later append to it, a rematch's, puts it off)."""
        await self.execute("ZADD", self.due_key(shard_of(game_id)), ended_ms, game_id, repeatable=True)

    @counted
    async def count(self) -> int:
        counts = await asyncio.gather(*(self.execute("ZCARD", self.due_key(s), repeatable=True) for s in range(SHARDS)))
        return sum(int(n) for n in counts)


class Archiver(DueGames):
    """Moves due games of any shard it can take into `archive`, `after_ms` after they
    ended. One per worker; as many as there are may run at once."""

    def __init__(
        self,
        wire: Any,
        archive: Archive,
        *,
        namespace: str = "poison",
        after_ms: int = 3_600_000,
        batch_games: int = BATCH_GAMES,
        lease_ms: int = LEASE_MS,
        holder: str | None = None,
    ) -> None:
        super().__init__(wire, namespace=namespace)
        self.archive = archive
        self.after_ms = after_ms
        self.batch_games = batch_games
        self.lease_ms = lease_ms
        self.holder = holder or f"{os.getpid()}-{os.urandom(4).hex()}"

    def lease_key(self, shard: int) -> str:
        return f"{self.namespace}:archive:lease:{{{shard}}}"

    def batch_key(self, shard: int) -> str:
        return f"{self.namespace}:archive:batch:{{{shard}}}"

    async def lease(self, shard: int) -> bool:
        return bool(await self.script(LEASE, [self.lease_key(shard)], [self.holder, self.lease_ms]))

    async def release(self, shard: int) -> None:
        await self.script(RELEASE, [self.lease_key(shard)], [self.holder])

    async def run(self, every: float = 1.0) -> None:
        """Archive what is due, again and again, until cancelled; a store that cannot be
        reached is tried again later."""
        while True:
            await asyncio.sleep(every)  # (a worker that just started has nothing of its own due)
            try:
                await self.pass_once()
            except StoreUnavailable as error:
                log.warning("archiving waits for the store: %s", error)
            except OSError as error:
                log.warning("archiving waits for the archive: %s", error)

    async def pass_once(self, *, now_ms: int | None = None, everything: bool = False) -> Archived:
        """One pass over every shard this worker can take: each one's batches, until none
        is due. `everything`: what is over, however recently it ended."""
        games = files = 0
        for shard in range(SHARDS):
            if not await self.lease(shard):
                continue
            try:
                while True:
                    moved = await self.shard_once(shard, now_ms=now_ms, everything=everything)
                    games, files = games + moved.games, files + moved.files
                    if moved.games < self.batch_games:
                        break
            finally:
                await self.release(shard)
        return Archived(games, files)

    async def shard_once(self, shard: int, *, now_ms: int | None = None, everything: bool = False) -> Archived:
        """Finish the shard's batch left by a crash, else make one of its due games."""
        left = await self.execute("GET", self.batch_key(shard), repeatable=True)
        if left is not None:
            name, games = _batch_decoder.decode(left)
            log.info("finishing batch %s of %d games", name, len(games))
            return await self.move(shard, name, games)
        now = int(time.time() * 1000) if now_ms is None else now_ms
        upto = "+inf" if everything else now - self.after_ms
        flat = await self.execute(
            "ZRANGE",
            self.due_key(shard),
            "-inf",
            upto,
            "BYSCORE",
            "LIMIT",
            0,
            self.batch_games,
            "WITHSCORES",
            repeatable=True,
        )
        games = [(flat[i].decode(), int(float(flat[i + 1]))) for i in range(0, len(flat), 2)]
        if not games:
            return Archived()
        name = f"{now:013d}-{shard:02d}-{os.urandom(3).hex()}"
        # Only where no batch is: a worker whose lease ran out may be writing its own here.
        if await self.execute("SET", self.batch_key(shard), msgspec.msgpack.encode((name, games)), "NX") is None:
            return Archived()
        return await self.move(shard, name, games)

    async def move(self, shard: int, name: str, games: Sequence[tuple[str, int]]) -> Archived:
        """Steps 2 to 5 of the module's words for the batch `name`: safe to run again."""
        sealed: dict[str, ArchivedGame] = {}
        tokens: dict[str, dict[int, str]] = {}
        placed_before: dict[str, Placed] = {}
        ended = dict(games)
        settled: list[str] = []  # due entries to remove: archived, gone, or not over
        # Each game's seal, and below its drop, is a call in its own slot; sent many at once,
        # they share the server's writes to its append-only file.
        sealing = [
            self.script(SEAL, self._keys(game_id, "events", "summary", "tokens"), [name]) for game_id, _ in games
        ]
        for (game_id, ended_ms), reply in zip(games, await _at_once(sealing), strict=True):
            outcome = reply[0]
            if outcome == b"sealed":
                entries, flat, ruleset = reply[1], reply[2], reply[3].decode()
                tokens[game_id] = {int(flat[i]): flat[i + 1].decode() for i in range(0, len(flat), 2)}
                sealed[game_id] = archived_game(game_id, ruleset, ended_ms, entries)
            elif outcome == b"archived":
                placed = Placed.decode(reply[1].decode())
                if placed.path.endswith(f"/{name}.parquet"):  # by this batch, before a crash
                    placed_before[game_id] = placed
                settled.append(game_id)
            elif outcome == b"other":
                continue  # another batch's: its record finishes it
            else:
                settled.append(game_id)  # gone, or not over: nothing to archive
        await self.lease(shard)
        plan = self.archive.plan(
            name,
            [(game.game_id, ended[game.game_id], len(game.entries)) for game in sealed.values()]
            + [(game_id, ended[game_id], placed.rows) for game_id, placed in placed_before.items()],
        )
        # A file some of whose games were dropped was read back whole before they were:
        # it stays as it is. Every other file of the batch is written now.
        kept = {placed.path for placed in placed_before.values()}
        writing = [game for game in sealed.values() if plan[game.game_id].path not in kept]
        files = {plan[game.game_id].path for game in writing}
        if writing:
            await asyncio.to_thread(self.archive.write, name, writing)
        for path in {plan[game_id].path for game_id in sealed}:
            back = await asyncio.to_thread(self.archive.read_file, path)
            for game in sealed.values():
                if plan[game.game_id].path == path and back.get(game.game_id) != game.entries:
                    raise OSError(f"the archive's copy of game {game.game_id} in {path} differs from its log")
        await self.lease(shard)
        dropping = [
            self.script(
                DROP,
                self._keys(game.game_id, "events", "summary", "tokens", "finished"),
                [
                    name,
                    plan[game.game_id].encode(),
                    len(game.entries),
                    *(part for pair in pack_seats(tokens[game.game_id]).items() for part in pair),
                ],
            )
            for game in sealed.values()
        ]
        for game, dropped in zip(sealed.values(), await _at_once(dropping), strict=True):
            if dropped:
                settled.append(game.game_id)
        if settled:  # each unless it was put off meanwhile (its game may have moved on)
            await self.script(SETTLE, [self.due_key(shard)], [part for g in settled for part in (g, ended[g])])
        await self.execute("DEL", self.batch_key(shard))
        return Archived(len(sealed), len(files))

    def _keys(self, game_id: str, *what: str) -> list[str]:
        prefix = self.prefix(game_id)
        return [prefix + part for part in what]


async def _at_once(calls: list[Coroutine[Any, Any, Any]]) -> list[Any]:
    """The calls' answers, in order, `AT_ONCE` of them sent together at a time (a seal's
    answer is a whole log: all of a batch's at once would outlast the store's timeout)."""
    answers: list[Any] = []
    for start in range(0, len(calls), AT_ONCE):
        answers += await asyncio.gather(*calls[start : start + AT_ONCE])
    return answers


def archived_game(game_id: str, ruleset: str, ended_ms: int, entries: Entries) -> ArchivedGame:
    """A sealed game as the archive takes it: its entries, and each event's public type and
    JSON (the whole event: a game over hides nothing)."""
    rules = rules_for(ruleset)
    events = [event for _, event in events_of(entries)]
    public = [msgspec.json.encode(event_data(rules.visible(event, None, True))) for event in events]
    return ArchivedGame(game_id, ruleset, ended_ms, entries, [event_type(event) for event in events], public)


__all__ = [
    "BATCH_GAMES",
    "LEASE_MS",
    "OVER",
    "Archived",
    "Archiver",
    "DueGames",
    "archived_game",
    "pack_seats",
    "pass_every",
    "unpack_seats",
]
