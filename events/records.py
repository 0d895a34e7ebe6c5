"""What a recorder is: the contract every store of raw game logs keeps (events/recorder.py's
Redis one, events/memory.py's in-memory one), and the plain values that cross it.

A recorder keeps each game's log as raw stored events, numbered from version 1, and knows
nothing of games: it never decodes an event (events/mapper.py does, above it). It appends
a batch at an expected version, all or none, or refuses with the version it found; it reads
a log after a version, follows one as it grows, and keeps beside each log what must change
in the same step as it: the idempotency record of the request that appended (an idempotent
retry appends nothing and gets the first answer), two rows of plain fields (`summary`,
`tokens`) and the rate-limit buckets the request takes from.

Reads hand back entries in the one raw form every recorder gives, the form Redis Streams
give (so that the Redis recorder hands its replies on untouched and the mapper decodes them
in one pass): `[b"0-<version>", [b"t", type, b"s", schema, b"d", data]]`, every part bytes.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

import msgspec

from core.errors import quoted
from events.limits import Limit

GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: Raw entries, as every recorder reads them (see above).
Entries = list[Any]
#: What a follower may have each batch of raw entries made into: an item per entry, in order.
MapEntries = Callable[[Entries], list[Any]]
#: The fields of a raw entry, in the order a recorder writes them.
TYPE, SCHEMA, DATA = b"t", b"s", b"d"


class StoreUnavailable(Exception):
    """The event store cannot be reached (down, unreachable, still loading, too slow)."""


class UnknownGame(KeyError):
    """No game has this id (or the id cannot be one)."""


def check_game_id(game_id: str) -> str:
    if not isinstance(game_id, str) or not GAME_ID.match(game_id):
        raise UnknownGame(game_id)
    return game_id


class StoredEvent(NamedTuple):
    """An event as a recorder keeps it: its stored type, schema version and data."""

    kind: str
    schema: int
    data: bytes


def entry(version: int, stored: StoredEvent) -> list[Any]:
    """The raw entry of `stored` at `version`, in the form every recorder reads."""
    return [b"0-%d" % version, [TYPE, stored.kind.encode(), SCHEMA, b"%d" % stored.schema, DATA, stored.data]]


def version_of(raw: list[Any]) -> int:
    """The version of a raw entry."""
    return int(raw[0].split(b"-")[1])


class FinishedCopy(NamedTuple):
    """How to keep a finished game's whole log in one value too (a recorder may, to load
    it in one read): the value's header, and the stored forms it may hold (type, schema)."""

    header: bytes
    forms: tuple[tuple[bytes, bytes], ...]


class VersionConflict(Exception):
    """The game is not at the expected version: another append came first."""

    def __init__(self, expected: int, current: int) -> None:
        super().__init__(f"expected version {expected}, but the game is at version {current}")
        self.expected = expected
        self.current_version = current


class GameArchived(Exception):
    """The game is over and has moved (or is moving) to the archive: its log takes no more
    events (events/archiving.py)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id} is archived: its log takes no more events")
        self.game_id = game_id


class IdempotencyKeyReused(Exception):
    """An idempotency key already used for a different request on this game."""


class Idempotency(NamedTuple):
    """A client's idempotency key, the fingerprint of its request, what the first
    successful attempt answered (opaque to the store), and whose key it is: `scope` (a
    seat, say) keeps one caller's keys apart from every other caller's of the game.
    `unscoped`: whether a record from before keys had a scope may answer it (only where
    its fingerprint names the caller: a move's names its seat, a join's names nobody)."""

    key: str
    fingerprint: str
    result: bytes = b""
    scope: str = ""
    unscoped: bool = True


def reused(idempotency: Idempotency) -> IdempotencyKeyReused:
    return IdempotencyKeyReused(f"idempotency key {quoted(idempotency.key)} was used for a different request")


@dataclass(frozen=True)
class Appended:
    version: int  # the game's version after the append
    count: int  # how many events it appended
    replayed: bool = False  # True: an idempotent retry, nothing was appended now
    result: bytes = b""  # the result recorded with the idempotency key

    @property
    def first_version(self) -> int:
        return self.version - self.count + 1


class Append(msgspec.Struct, frozen=True):
    """One append as a recorder takes it: `records` at exactly `expected_version`, and
    what changes beside the log in the same step. (A Struct: made on every move, and
    cheaper to make than a NamedTuple.)"""

    records: Sequence[StoredEvent]  # at least one
    expected_version: int
    idempotency: Idempotency | None = None  # the request's record (a retry with its key appends nothing)
    summary: Mapping[str, str | int] | None = None  # fields written to the `summary` row
    tokens: Mapping[int, str] | None = None  # seats' token hashes written to the `tokens` row
    limits: Sequence[Limit] = ()  # the rate-limit buckets the request takes a token from
    limited: str = "requests"  # what RateLimited names when one of them is empty
    copy: FinishedCopy | None = None  # how to keep the whole log in one value too


class Moved(NamedTuple):
    """What an append did to its game's `summary` row's `status` and `listed` fields:
    the status before it and after it, and the listing member (the listing's to index)."""

    left: str | None
    status: str
    member: str


class Recorder(Protocol):
    """A store of raw game logs (see the module's words). Game ids are checked: one that
    cannot be a game's raises UnknownGame."""

    async def append(self, game_id: str, append: Append) -> tuple[Appended, Moved | None]:
        """Make `append` on the game's log: all of it or, raising, none. VersionConflict
        (naming the version found), IdempotencyKeyReused, events.limits.RateLimited (naming
        what is `limited`); an idempotent retry returns the first attempt's Appended with
        `replayed` set; GameArchived for a game sealed for the archive. Returns too how the
        summary's status moved (None: it did not)."""
        ...

    async def read(self, game_id: str, after: int = 0, limit: int | None = None) -> Entries:
        """The entries after version `after`, in order, at most `limit` of them."""
        ...

    async def read_log(self, game_id: str) -> bytes | Entries:
        """A whole log: its finished copy when one is kept, else its entries."""
        ...

    async def version(self, game_id: str) -> int:
        """The game's version (0: no such game)."""
        ...

    async def row(self, game_id: str, which: str) -> dict[bytes, bytes]:
        """The fields the appends wrote to the game's row `which` (`summary`, `tokens`)."""
        ...

    def follow(self, game_id: str, after: int, mapping: MapEntries | None = None) -> AsyncGenerator[list[Any], None]:
        """The entries after version `after`, batch by batch as they are appended; each
        batch made into `mapping`'s items (one per entry, in order) when given, which a
        recorder may do once for every follower of the game."""
        ...

    async def ping(self) -> None:
        """Raises StoreUnavailable unless the recorder answers."""
        ...

    async def close(self) -> None: ...


__all__ = [
    "DATA",
    "GAME_ID",
    "SCHEMA",
    "TYPE",
    "Append",
    "Appended",
    "Entries",
    "FinishedCopy",
    "GameArchived",
    "Idempotency",
    "IdempotencyKeyReused",
    "MapEntries",
    "Moved",
    "Recorder",
    "StoreUnavailable",
    "StoredEvent",
    "UnknownGame",
    "VersionConflict",
    "check_game_id",
    "entry",
    "reused",
    "version_of",
]
