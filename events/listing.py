"""The listing of games: newest first, a page at a time, all of them or one status's.

Its indexes lie outside every game's keys: one of every game, and one per status, each
cut in SHARDS sorted sets of their own hash tag (so that on a Redis Cluster they spread
over the nodes), read together and merged. The append script tells what the listing needs
(the status before and after); the store then moves the game's entry between the status
indexes in calls of their own, the new one first, and the listing, which reads each
listed game's summary anyway, skips and repairs an entry its summary disagrees with, so a
crash between the two never lists a game wrongly for long.
"""

from __future__ import annotations

import asyncio
import binascii
import heapq
import logging
import re

import msgspec

from core.errors import quoted
from core.rulesets import DEFAULT_RULESET
from events.calls import StoreCalls, StoreUnavailable, check_game_id, counted

CURSOR = re.compile(r"^\d{13}:[A-Za-z0-9_-]{1,64}$")
MAX_LISTING_BATCHES = 20  # index entries a listing call reads at most: 20 batches
NEWEST = 9_999_999_999_999  # index members sort by NEWEST - creation ms
#: The listing's indexes are each cut in this many sorted sets of their own hash tag, so
#: that on a Redis Cluster they spread over the nodes (one set would be one node's load)
#: and a listing reads all of them at once and merges them (issue 13).
SHARDS = 16
SUMMARY_FIELDS = ("status", "players", "round", "rounds", "version", "ruleset", "listed")

log = logging.getLogger(__name__)


def shard_of(game_id: str) -> int:
    """Which of the listing's shards holds a game (the same in every index)."""
    return binascii.crc_hqx(game_id.encode(), 0) % SHARDS


class GameSummary(msgspec.Struct, frozen=True):
    game_id: str
    status: str
    players: list[str | None]  # None: an open seat of a waiting game (the lobby)
    round: int | None  # None for a ruleset without rounds (the pot game)
    rounds: int | None
    version: int
    ruleset: str = DEFAULT_RULESET  # games written before the second ruleset say none


def listing_member(game_id: str, created_ms: int) -> str:
    """A game's entry in the listing's indexes: newest first, then by id."""
    return f"{NEWEST - created_ms:013d}:{check_game_id(game_id)}"


class Listing(StoreCalls):
    """The listing's indexes: listing games, and keeping each game under its status."""

    def index(self, shard: int, status: str | None = None) -> str:
        """A shard of the listing's index of every game, or of a status's games."""
        name = f"{self.namespace}:games" if status is None else f"{self.namespace}:games:status:{status}"
        return f"{name}:{{{shard}}}"

    def indexes(self, status: str | None) -> list[str]:
        """Every index a listing reads: the shards."""
        return [self.index(shard, status) for shard in range(SHARDS)]

    async def enter(self, game_id: str, member: str, left: str | None, status: str) -> None:
        """Put a game's entry in its `status`'s index (and the index of every game, when it
        is new: `left` None), then take it out of the index of the status it `left`. In
        that order, so that a crash between the two leaves the entry in both (the listing
        reads each summary, skips the stale one and repairs it), never in neither."""
        shard = shard_of(game_id)
        adding = [self.execute("ZADD", self.index(shard, status), 0, member, repeatable=True)]
        if left is None:
            adding.append(self.execute("ZADD", self.index(shard), "NX", 0, member, repeatable=True))
        await asyncio.gather(*adding)
        if left is not None:
            await self.execute("ZREM", self.index(shard, left), member, repeatable=True)

    async def relist(self, game_id: str, member: str, left: str | None, status: str) -> None:
        """`enter` after an append that changed the game's status. The append is done and
        must be answered as done: an index that cannot be written now is repaired by the
        next listing of the status it left (or, for a new game, was written with it)."""
        try:
            await self.enter(game_id, member, left, status)
        except StoreUnavailable as error:
            log.warning("game %s is %s, but its listing still says %s: %s", game_id, status, left, error)

    @counted
    async def list_games(
        self, *, status: str | None = None, limit: int = 50, cursor: str | None = None
    ) -> tuple[list[GameSummary], str | None]:
        """Games newest first, `limit` at a time; the cursor of the next page, or None.

        With a status, the games come from that status's index, so every page but the last
        is full. Without, from the index of every game: a game indexed but never written (a
        creation refused, or whose append is on its way) is skipped, and a listing that met
        many of them stops after a bounded scan with a cursor. A cursor is
        a game's entry in both indexes alike, so one cursor works with or without a status."""
        if cursor is not None and not CURSOR.match(cursor):
            raise ValueError(f"{quoted(cursor)} is not a cursor of this listing")
        found: list[tuple[str, GameSummary]] = []
        start = f"({cursor}" if cursor else "-"
        batch = limit + 1 if status is not None else max(limit + 1, 100)
        indexes = self.indexes(status)
        repairs: list[tuple[str, str, str | None]] = []  # (entry, index it is wrongly in, its status)
        scanned = None
        for _ in range(MAX_LISTING_BATCHES):  # a sparse listing stops here and hands back a cursor
            entries, more = await self._entries(indexes, start, batch)
            if not entries:
                scanned = None
                break
            rows = await asyncio.gather(
                *(
                    self.execute(
                        "HMGET", self.key(member.split(":", 1)[1], "summary"), *SUMMARY_FIELDS, repeatable=True
                    )
                    for member, _ in entries
                )
            )
            for (member, index), row in zip(entries, rows, strict=True):
                scanned = member
                if row[0] is None:
                    continue  # never written (or its first append is on its way)
                if row[6] is not None and row[6].decode() != member:
                    repairs.append((member, index, None))  # another game of this id: never listed
                    continue
                if status is not None and row[0].decode() != status:
                    repairs.append((member, index, row[0].decode()))  # its status's index is another
                    continue
                game_id = member.split(":", 1)[1]
                summary = GameSummary(
                    game_id,
                    row[0].decode(),
                    msgspec.json.decode(row[1]),
                    None if row[2] is None else int(row[2]),
                    None if row[3] is None else int(row[3]),
                    int(row[4]),
                    DEFAULT_RULESET if row[5] is None else row[5].decode(),
                )
                found.append((member, summary))
                if len(found) > limit:
                    break
            if len(found) > limit or not more:  # a page and one more, or the end
                break
            start = f"({entries[-1][0]}"
        else:
            await self._repair(repairs)
            summaries = [summary for _, summary in found[:limit]]
            return summaries, (found[limit - 1][0] if len(found) >= limit else scanned)
        await self._repair(repairs)
        page = found[:limit]
        following = page[-1][0] if len(found) > limit else None
        return [summary for _, summary in page], following

    async def _entries(self, indexes: list[str], start: str, batch: int) -> tuple[list[tuple[str, str]], bool]:
        """The first `batch` entries from `start` on of these indexes merged (each with the
        index it came from), and whether any index may hold more. Each index is asked for
        `batch` of them, all at once: the first `batch` of the merge are the first of all."""
        answers = await asyncio.gather(
            *(
                self.execute("ZRANGE", index, start, "+", "BYLEX", "LIMIT", 0, batch, repeatable=True)
                for index in indexes
            )
        )
        merged = heapq.merge(
            *([(member.decode(), index) for member in members] for index, members in zip(indexes, answers, strict=True))
        )
        entries: list[tuple[str, str]] = []
        for member, index in merged:
            if len(entries) == batch:
                return entries, True
            entries.append((member, index))
        return entries, any(len(members) == batch for members in answers)

    async def _repair(self, repairs: list[tuple[str, str, str | None]]) -> None:
        """Read repair: an entry found in an index its summary disagrees with leaves it,
        and enters its status's index first (an append whose index write was lost, say in
        a crash, between the two). A failure is left for the next listing to repair."""
        if not repairs:
            return
        adding = [
            self.enter(member.split(":", 1)[1], member, None, status)
            for member, _, status in repairs
            if status is not None
        ]
        done = await asyncio.gather(*adding, return_exceptions=True)
        if not any(isinstance(failed, BaseException) for failed in done):  # only once they are where they belong
            leaving = [self.execute("ZREM", index, member, repeatable=True) for member, index, _ in repairs]
            done = await asyncio.gather(*leaving, return_exceptions=True)
        for failed in done:
            if isinstance(failed, BaseException):
                log.warning("a listing could not repair its index: %s", failed)
