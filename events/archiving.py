"""Moving finished games out of Redis into the archive (events/archive.py), safely under any
crash, by exactly one batch per game however many workers run.

A game is put in the due index, a sorted set per listing shard scored by when it ended, just
before the append that ends it (finished or abandoned): so a game over is always due, and
one whose ending append failed is let go once it is clearly not over. Any worker may archive
a shard's due games; a lease per shard keeps the others off it, and the seal keeps two
batches off one game even when a lease runs out under a slow worker. A batch goes, step by
step:

1. its record (its name, and each game with when it is due) is set beside the shard, where
   none is, so that whoever holds the shard next finishes this batch and no other;
2. each game is sealed by the batch, atomically in its slot (SEAL): from then on the append
   script refuses the game (GameArchived), so its log cannot change, and no other batch may
   seal it; the seal hands back the log and the seats' token hashes;
3. the record is frozen: rewritten with the games sealed and their sizes, only if it is still
   what was read. From then on the batch is those games, in files whose every row's place is
   known (Archive.plan), whoever finishes it;
4. the files are written (events/archive.py: whole or not at all), then read back and each
   game's rows compared, at their place, with its log entry by entry;
5. each game is dropped (DROP): its stream, finished copy and tokens row deleted, its
   summary row kept as its index entry, with where it lies and its seats' token hashes;
6. the due entries go (each only if still what was read) and then the record (only if it is
   still this batch's).

A crash before 5 leaves every game in Redis (and maybe a file no index names, which the
batch's finishing writes again, the same rows in the same places); a crash within 5 leaves
each game dropped or not, its file whole either way, and a file any of whose games was
dropped is never written again. Every step may run twice, by two workers at once.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import os
import time
from collections.abc import AsyncIterator, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from events.archive import Archive, ArchivedGame, Placed
from events.calls import Script, StoreCalls, StoreUnavailable, counted
from events.codec import event_data, event_type
from events.listing import SHARDS, Listing, shard_of
from events.mapper import events_of
from events.records import Entries
from events.rulesets import rules_for

#: The statuses of a game that is over: only those are archived.
OVER = ("finished", "abandoned")
#: The most games in one batch (a file per day they ended in).
BATCH_GAMES = 2000
#: How many of a batch's seals (or drops) are sent together.
AT_ONCE = 100
#: How long after a game was entered as due its seal may find it still not over before its
#: entry goes (ms): the append that was to end it has landed or failed long before.
ACTIVE_GRACE_MS = 30_000
#: How long a worker's lease of a shard lasts (ms), renewed a few times a lease while it
#: works there: short enough that a shard whose worker died waits little.
LEASE_MS = 15_000

#: Seal a game for a batch: refuse another batch's seal, give back the log.
SEAL = Script.of(
    """
-- KEYS: stream, summary, tokens. ARGV: the batch, then the statuses of a game over.
local placed = redis.call('HGET', KEYS[2], 'archived')
if placed then return {'archived', placed} end
local sealed = redis.call('HGET', KEYS[2], 'sealed')
if sealed and sealed ~= ARGV[1] then return {'other', sealed} end
local status = redis.call('HGET', KEYS[2], 'status')
local over = false
for i = 2, #ARGV do if status == ARGV[i] then over = true end end
if not over then return {'active'} end
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
#: Undo a batch's seal of a game it did not archive (a batch frozen without it).
UNSEAL = Script.of(
    """
-- KEYS: summary. ARGV: the batch.
if redis.call('HGET', KEYS[1], 'sealed') == ARGV[1] and redis.call('HEXISTS', KEYS[1], 'archived') == 0 then
  redis.call('HDEL', KEYS[1], 'sealed')
  return 1
end
return 0
"""
)
#: Set a key to a new value only if it still holds the one read (ARGV: read, new; '' deletes).
SWAP = Script.of(
    """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2]) end
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


#: The index entry's field of a seat's token hash: `t` and the seat (short: it is in the
#: entry once a seat, and an entry small enough stays in Redis's compact encoding).
SEAT_PREFIX = b"t"
SEAT_FIELD = SEAT_PREFIX.decode() + "%d"
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
        if field.startswith(SEAT_PREFIX) and field[len(SEAT_PREFIX) :].isdigit():
            seat, kind, raw = int(field[len(SEAT_PREFIX) :]), value[:1], value[1:]
            if kind == _VERIFIER:
                seats[seat] = "v1:" + base64.urlsafe_b64encode(raw).decode().rstrip("=")
            elif kind == _HEX:
                seats[seat] = raw.hex()
            else:
                seats[seat] = raw.decode()
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


class Batch(msgspec.Struct, array_like=True, frozen=True):
    """A batch's record: its name, each game with when it is due, and once frozen (step 3)
    each game's rows: from then on the batch is exactly those games."""

    name: str
    games: list[tuple[str, int]]
    rows: list[int] | None = None


_batch_encoder = msgspec.msgpack.Encoder()
_batch_decoder = msgspec.msgpack.Decoder(Batch)


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
        """Put a game that is over, or about to be, in the due index, due from `ended_ms`
        (the first time it was entered: it ended then)."""
        await self.execute("ZADD", self.due_key(shard_of(game_id)), "NX", ended_ms, game_id, repeatable=True)

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
        """Archive what is due, again and again, until cancelled. Whatever goes wrong is
        logged and tried again next time: the mover must outlive any one bad pass."""
        while True:
            await asyncio.sleep(every)  # (a worker that just started has nothing of its own due)
            try:
                await self.pass_once()
            except StoreUnavailable as error:
                log.warning("archiving waits for the store: %s", error)
            except Exception:
                log.exception("an archiving pass failed")

    async def pass_once(self, *, now_ms: int | None = None, everything: bool = False) -> Archived:
        """One pass over every shard this worker can take: each one's batches, until none
        is due. `everything`: every game that is over, however recently it ended, those the
        due index never heard of included (games that ended before there was an archive).
        A shard whose batch fails is logged and left for the next pass; the others go on."""
        if everything:
            await self.enter_over_games()
        games = files = 0
        for shard in range(SHARDS):
            if not await self.lease(shard):
                continue
            async with self.holding(shard):
                try:
                    while True:
                        moved = await self.shard_once(shard, now_ms=now_ms, everything=everything)
                        games, files = games + moved.games, files + moved.files
                        if moved.games < self.batch_games:
                            break
                except StoreUnavailable:
                    raise
                except Exception:
                    log.exception("archiving shard %d failed; its batch is finished later", shard)
        return Archived(games, files)

    async def enter_over_games(self) -> int:
        """Enter in the due index every listed game that is over and not archived; how many."""
        listing = Listing(self.wire, namespace=self.namespace)
        now = int(time.time() * 1000)
        entered = 0
        for status in OVER:
            for shard in range(SHARDS):
                members = await self.execute("ZRANGE", listing.index(shard, status), 0, -1, repeatable=True)
                over = await self._over_and_here([member.decode().split(":", 1)[1] for member in members])
                await _at_once([self.add(game_id, now) for game_id in over])
                entered += len(over)
        return entered

    async def _over_and_here(self, ids: list[str]) -> list[str]:
        """Those of the games whose summary says they are over, neither archived nor sealed."""
        rows = await _at_once(
            [self.execute("HMGET", self.key(game_id, "summary"), "status", "archived", "sealed") for game_id in ids]
        )
        return [
            game_id
            for game_id, (status, archived, sealed) in zip(ids, rows, strict=True)
            if status is not None and status.decode() in OVER and not archived and not sealed
        ]

    async def shard_once(self, shard: int, *, now_ms: int | None = None, everything: bool = False) -> Archived:
        """Finish the shard's batch left by a crash (or by a worker still at it), else make
        one of its due games."""
        now = int(time.time() * 1000) if now_ms is None else now_ms
        record = await self.execute("GET", self.batch_key(shard), repeatable=True)
        if record is not None:
            batch = _batch_decoder.decode(record)
            log.info("finishing batch %s of %d games", batch.name, len(batch.games))
            return await self.move(shard, batch, record, now)
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
        batch = Batch(f"{now:013d}-{shard:02d}-{os.urandom(3).hex()}", games)
        record = _batch_encoder.encode(batch)
        # Only where no batch is: a worker whose lease ran out may be at its own here.
        if await self.execute("SET", self.batch_key(shard), record, "NX") is None:
            return Archived()
        return await self.move(shard, batch, record, now)

    async def move(self, shard: int, batch: Batch, record: bytes, now: int) -> Archived:
        """Steps 2 to 6 of the module's words for `batch`, whose record reads `record`:
        safe to run again, and by two workers at once."""
        name = batch.name
        sealing = [
            self.script(SEAL, self._keys(game_id, "events", "summary", "tokens"), [name, *OVER])
            for game_id, _ in batch.games
        ]
        sealed: dict[str, tuple[Entries, dict[int, str], str]] = {}
        dropped: dict[str, Placed] = {}
        settled: list[tuple[str, int]] = []  # due entries to take out: archived, gone, not over
        for (game_id, due), reply in zip(batch.games, await _at_once(sealing), strict=True):
            outcome = reply[0]
            if outcome == b"sealed":
                flat = reply[2]
                hashes = {int(flat[i]): flat[i + 1].decode() for i in range(0, len(flat), 2)}
                sealed[game_id] = (reply[1], hashes, reply[3].decode())
            elif outcome == b"archived":
                placed = Placed.decode(reply[1].decode())
                if batch.rows is not None and placed.path.endswith(f"/{name}.parquet"):
                    dropped[game_id] = placed  # by this batch, before a crash
                settled.append((game_id, due))
            elif outcome == b"active":
                if due < now - ACTIVE_GRACE_MS:  # its ending append failed: it is not over
                    settled.append((game_id, due))
            elif outcome == b"gone":
                settled.append((game_id, due))
            # b"other": another batch's, which its own record finishes
        if batch.rows is None:  # 3: freeze the batch as the games sealed now
            frozen = Batch(
                name,
                [(game_id, due) for game_id, due in batch.games if game_id in sealed],
                [len(sealed[game_id][0]) for game_id, _ in batch.games if game_id in sealed],
            )
            encoded = _batch_encoder.encode(frozen)
            if not await self.script(SWAP, [self.batch_key(shard)], [record, encoded]):
                await self._unseal_lost(shard, name, sealed)
                return Archived()  # another worker froze or finished it: it is theirs
            batch, record = frozen, encoded
        assert batch.rows is not None
        missing = [game_id for game_id, _ in batch.games if game_id not in sealed and game_id not in dropped]
        if missing:
            raise RuntimeError(f"batch {name}'s games {missing} are neither sealed by it nor archived")
        plan = self.archive.plan(name, [(g, due, rows) for (g, due), rows in zip(batch.games, batch.rows, strict=True)])
        # From here on the batch is fixed: going on is safe even if the lease runs out (a
        # second worker would write the same rows and make the same drops), and giving up
        # could leave a slow batch to be given up by every worker in turn.
        written = await asyncio.to_thread(self._write_and_check, name, plan, sealed, set(dropped), batch)
        dropping = [
            self.script(
                DROP,
                self._keys(game_id, "events", "summary", "tokens", "finished"),
                [
                    name,
                    plan[game_id].encode(),
                    len(entries),
                    *(part for pair in pack_seats(hashes).items() for part in pair),
                ],
            )
            for game_id, (entries, hashes, _) in sealed.items()
        ]
        due_of = dict(batch.games)
        kept_back = []
        for game_id, done in zip(sealed, await _at_once(dropping), strict=True):
            if done:
                settled.append((game_id, due_of[game_id]))
            else:
                kept_back.append(game_id)
        if settled:  # each unless it was entered anew meanwhile
            await self.script(SETTLE, [self.due_key(shard)], [part for pair in settled for part in pair])
        if kept_back:  # the record stays, so that the batch is tried again, not forgotten
            raise RuntimeError(f"batch {name} could not drop {kept_back}")
        await self.script(SWAP, [self.batch_key(shard)], [record, ""])
        return Archived(len(sealed), written)

    async def _unseal_lost(self, shard: int, name: str, sealed: Mapping[str, object]) -> None:
        """After another worker froze (or finished) this batch first: undo this worker's
        seals of the games it froze without, which no record would ever finish (a game that
        was not over for the other worker's seal and is over for this one's)."""
        record = await self.execute("GET", self.batch_key(shard), repeatable=True)
        current = _batch_decoder.decode(record) if record is not None else None
        frozen = {game_id for game_id, _ in current.games} if current is not None and current.name == name else set()
        lost = [game_id for game_id in sealed if game_id not in frozen]
        await _at_once([self.script(UNSEAL, [self.key(game_id, "summary")], [name]) for game_id in lost])

    @contextlib.asynccontextmanager
    async def holding(self, shard: int) -> AsyncIterator[None]:
        """The shard's lease kept while the block runs (renewed a few times a lease), then
        given back: a long batch is not taken over for being long."""

        async def renew() -> None:
            while True:
                await asyncio.sleep(self.lease_ms / 3000)
                with contextlib.suppress(StoreUnavailable):
                    await self.lease(shard)

        renewing = asyncio.create_task(renew())
        try:
            yield
        finally:
            renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewing
            await self.release(shard)

    def _write_and_check(
        self,
        name: str,
        plan: Mapping[str, Placed],
        sealed: Mapping[str, tuple[Entries, dict[int, str], str]],
        dropped: set[str],
        batch: Batch,
    ) -> int:
        """Step 4, in a thread: write each file of the batch none of whose games was dropped,
        then read back every file that holds a sealed game and compare each such game's rows,
        at its place, with its log. How many files it wrote; OSError when any differs."""
        due_of = dict(batch.games)
        kept = {plan[game_id].path for game_id in dropped}
        writing = [
            archived_game(game_id, ruleset, due_of[game_id], entries)
            for game_id, (entries, _, ruleset) in sealed.items()
            if plan[game_id].path not in kept
        ]
        if writing:
            self.archive.write(name, writing)
        for path in {plan[game_id].path for game_id in sealed}:
            ids, entries = self.archive.read_file(path)
            for game_id, (logged, _, _) in sealed.items():
                placed = plan[game_id]
                if placed.path != path:
                    continue
                rows = slice(placed.first, placed.first + placed.rows)
                if ids[rows] != [game_id] * placed.rows or entries[rows] != logged:
                    raise OSError(f"the archive's copy of game {game_id} in {path} differs from its log")
        return len({plan[game.game_id].path for game in writing})

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
    "Batch",
    "DueGames",
    "archived_game",
    "pack_seats",
    "pass_every",
    "unpack_seats",
]
