"""How the event store's parts call the server: one pipelined connection per store, keys
named under the store's namespace (a game's keys share its hash tag), scripts run by their
SHA1, and every failure to reach or be served by the server raised as StoreUnavailable
(counted once per store call). The Redis recorder, the listing, the idempotency records and
the rate-limit buckets (events/recorder.py, listing.py, idempotency.py, buckets.py) each
build on `StoreCalls`, sharing one connection; events/store.py composes them. The errors
every recorder raises (StoreUnavailable, UnknownGame) are events/records.py's.

Every call is bounded by a timeout; a server that is down or unreachable raises
StoreUnavailable within about `timeout` seconds, never hangs.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Awaitable, Callable, Coroutine
from contextvars import ContextVar
from typing import Any, NamedTuple, ParamSpec, TypeVar

from redis.exceptions import (
    ClusterDownError,
    OutOfMemoryError,
    ReadOnlyError,
    RedisError,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from events.metrics import STORE_ERRORS
from events.pipelined import Argument, PipelinedConnection
from events.records import GAME_ID, StoreUnavailable, UnknownGame, check_game_id

#: Replies that mean the server cannot take a request now: redis-py's exceptions for those
#: it names (OOM, READONLY, MASTERDOWN and CLUSTERDOWN, TRYAGAIN), and the first word of
#: those it leaves a plain ResponseError. (LOADING, NOAUTH and a full server are
#: ConnectionErrors.)
UNAVAILABLE_ERRORS = (OutOfMemoryError, ReadOnlyError, ClusterDownError, TryAgainError)
#: BUSY: another client's script has run past the server's busy threshold (ours are short).
UNAVAILABLE_REPLIES = frozenset({"MISCONF", "NOREPLICAS", "BUSY"})

P = ParamSpec("P")
R = TypeVar("R")


class Script(NamedTuple):
    """A Lua script, run by its SHA1 (its source sent only to a server that lacks it)."""

    source: str
    sha: str

    @classmethod
    def of(cls, source: str) -> Script:
        return cls(source, hashlib.sha1(source.encode()).hexdigest())


def unavailable(error: Exception) -> StoreUnavailable | None:
    """The StoreUnavailable that `error` means, or None when it means something else."""
    if isinstance(error, RedisConnectionError | RedisTimeoutError | OSError | TimeoutError):
        return StoreUnavailable(f"the event store cannot be reached: {error or type(error).__name__}")
    # A server that is out of memory, read-only, unable to write its file or without its
    # primary cannot take the request now: unavailable, not a bug of ours.
    if isinstance(error, UNAVAILABLE_ERRORS) or (
        isinstance(error, ResponseError) and str(error).split(" ", 1)[0] in UNAVAILABLE_REPLIES
    ):
        return StoreUnavailable(f"the event store cannot serve now: {error}")
    return None


def failed(error: Exception) -> Exception:
    """What a command that raised `error` raises: StoreUnavailable when the store could
    not be reached or serve, else the error itself."""
    return unavailable(error) or error


#: Set while a store call runs: the calls and commands it makes are part of it.
_CALLING: ContextVar[bool] = ContextVar("poison_store_call", default=False)


def counted(method: Callable[P, Awaitable[R]]) -> Callable[P, Coroutine[Any, Any, R]]:
    """A store call whose StoreUnavailable is counted once in STORE_ERRORS, however many
    of its commands (a listing reads 17 indexes at once) or inner calls failed."""

    @functools.wraps(method)
    async def call(*args: P.args, **kwargs: P.kwargs) -> R:
        if _CALLING.get():
            return await method(*args, **kwargs)
        outermost = _CALLING.set(True)
        try:
            return await method(*args, **kwargs)
        except StoreUnavailable:
            STORE_ERRORS.inc()
            raise
        finally:
            _CALLING.reset(outermost)

    return call


class StoreCalls:
    """The connection, the namespace and the key names every part of the store shares.

    Every command goes through one pipelined connection (`wire`, one per node on a
    cluster)."""

    def __init__(self, wire: PipelinedConnection, *, namespace: str = "poison") -> None:
        self.wire = wire  # its own timeout bounds every call
        self.namespace = namespace
        self._single = False  # known to be one server, not a cluster's node

    async def execute(self, *command: Argument, repeatable: bool = False, replicated: bool = False) -> Any:
        """One command on the pipelined connection (its own deadline bounds the wait).
        `repeatable`: sending it twice does no harm (a read), so a dropped connection is
        retried once even after it was sent. `replicated`: a write acknowledged as the
        appends are (events.pipelined), so that it outlives its node's primary."""
        try:
            return await self.wire.execute(*command, repeatable=repeatable, replicated=replicated)
        except (RedisError, OSError, TimeoutError) as error:
            raise failed(error) from None

    async def script(
        self, script: Script, keys: list[str], args: list[Any], *, repeatable: bool = False, replicated: bool = True
    ) -> Any:
        """Run `script` (a write, acknowledged as the appends are, unless not `replicated`;
        `repeatable`: running it twice does no harm, as `execute`'s)."""
        try:
            return await self.wire.script(
                script.sha, script.source, keys, args, repeatable=repeatable, replicated=replicated
            )
        except (RedisError, OSError, TimeoutError) as error:
            raise failed(error) from None

    def key(self, game_id: str, what: str) -> str:
        return f"{self.prefix(game_id)}{what}"

    def prefix(self, game_id: str) -> str:
        """What every key of a game starts with (its id checked once: the append names six)."""
        return f"{self.namespace}:{{{check_game_id(game_id)}}}:"

    async def clustered(self, key: str) -> bool:
        """Whether the store is a Redis Cluster (asking the server once, when first used)."""
        if self.wire.cluster is not None:
            return True
        if self._single:
            return False
        try:
            self._single = await self.wire.node_for(key) is self.wire
        except (RedisError, OSError, TimeoutError) as error:
            raise failed(error) from None
        return not self._single


__all__ = [
    "GAME_ID",
    "Script",
    "StoreCalls",
    "StoreUnavailable",
    "UnknownGame",
    "check_game_id",
    "counted",
    "failed",
    "unavailable",
]
