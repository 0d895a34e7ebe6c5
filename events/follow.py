"""Following games live: one waiter per store (per worker) for every stream that follows.

A live stream must not hold a store connection while it waits: a blocking read per stream
used up redis-py's pool (100 connections) at about a hundred streams, and every other
request of the worker then got 503. Here one task, the waiter, does one blocking XREAD for
every followed game at once, on a connection of its own, and wakes every stream of a game
whose log grew, handing them the new events it read (decoded once for all of them).

A stream first reads what it missed itself (a plain XRANGE on the pipelined connection),
then waits for the waiter. It never misses an event: the waiter reads each game's stream
after the version it last saw, which is never beyond what a new follower has read, so an
event appended between a follower's read and the waiter's next XREAD is in that XREAD's
answer. When a game is followed for the first time while the XREAD is blocked, the waiter
is unblocked (CLIENT UNBLOCK, sent on the pipelined connection) so that it reads again with
the new game included, rather than after its block time. A stream that hears nothing for
`idle` seconds reads the log itself once (so a stalled waiter or a store outage is noticed
by every stream, as a blocking read of its own would have noticed it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from events.codec import Event
from events.pipelined import Argument, PipelinedConnection

if TYPE_CHECKING:
    from events.store import EventStore

log = logging.getLogger("poison.events")

BLOCK_MS = 1000  # one XREAD waits this long at most, then the waiter reads again
COUNT = 500  # entries of one game one XREAD reads at most
IDLE = 5.0  # seconds a stream waits for the waiter before reading the log itself


class _Watch:
    """One followed game: the version the waiter reads after, the events it read last
    (decoded, in order, ending at `position`), and an event set when they change."""

    __slots__ = ("changed", "position", "recent", "users")

    def __init__(self, position: int) -> None:
        self.position = position
        self.recent: list[tuple[int, Event]] = []
        self.changed = asyncio.Event()
        self.users = 0

    def advance(self, position: int, recent: list[tuple[int, Event]]) -> None:
        self.position = position
        self.recent = recent
        changed, self.changed = self.changed, asyncio.Event()
        changed.set()


class Follower:
    """Every live stream of one store and one event loop."""

    def __init__(self, store: EventStore, connection: PipelinedConnection, *, block_ms: int = BLOCK_MS) -> None:
        self.store = store
        self.connection = connection  # the waiter's own: it blocks
        self.block_ms = block_ms
        self._watches: dict[str, _Watch] = {}  # by the key of the game's stream
        self._task: asyncio.Task[None] | None = None
        self._client_id: int | None = None  # the waiter's connection, as the server names it
        self._blocked = False  # an XREAD is out
        self._unblocking = False

    @property
    def followed(self) -> int:
        """How many games are followed now."""
        return len(self._watches)

    async def follow(
        self, game_id: str, after: int, *, idle: float = IDLE
    ) -> AsyncGenerator[list[tuple[int, Event]], None]:
        """The game's events after version `after`, as they come: a batch at a time, in
        order, for as long as the caller iterates (and closes it: `contextlib.aclosing`)."""
        key = self.store._key(game_id, "events")
        watch = self._enter(key, after)
        try:
            check = True  # read the log here: at first, and after an idle wait
            while True:
                changed = watch.changed
                recent = watch.recent
                batch: list[tuple[int, Event]] = []
                if watch.position > after and recent and recent[0][0] <= after + 1:
                    batch = [item for item in recent if item[0] > after]  # what the waiter read
                elif check or watch.position > after:
                    batch = await self.store.read(game_id, after, limit=COUNT)
                check = False
                if batch:
                    after = batch[-1][0]
                    yield batch
                    continue
                try:
                    async with asyncio.timeout(idle):
                        await changed.wait()
                except TimeoutError:
                    check = True
        finally:
            self._leave(key, watch)

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.connection.close()

    # -- the waiter ---------------------------------------------------------------------

    def _enter(self, key: str, after: int) -> _Watch:
        watch = self._watches.get(key)
        if watch is None:
            watch = self._watches[key] = _Watch(after)
            self._wake()
        watch.users += 1
        return watch

    def _leave(self, key: str, watch: _Watch) -> None:
        watch.users -= 1
        if watch.users == 0 and self._watches.get(key) is watch:
            del self._watches[key]  # the waiter's next XREAD leaves it out

    def _wake(self) -> None:
        """A game is newly followed: start the waiter, or have it read again at once."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="poison-follower")
        elif self._blocked and self._client_id is not None and not self._unblocking:
            self._unblocking = True
            asyncio.get_running_loop().create_task(self._unblock(self._client_id))

    async def _unblock(self, client_id: int) -> None:
        try:
            await self.store.wire.execute("CLIENT", "UNBLOCK", client_id, repeatable=True)
        except Exception as error:  # the waiter reads again after its block time anyway
            log.debug("could not unblock the follower: %r", error)
        finally:
            self._unblocking = False

    def _noted_id(self, task: asyncio.Future[Any]) -> None:
        if not task.cancelled() and task.exception() is None:
            self._client_id = int(task.result())

    async def _run(self) -> None:
        delay = 0.0
        while self._watches:
            watches = dict(self._watches)
            command: list[Argument] = ["XREAD", "COUNT", COUNT, "BLOCK", self.block_ms, "STREAMS", *watches]
            command += [f"0-{watch.position}" for watch in watches.values()]
            # CLIENT ID leaves in the same write as the XREAD, on the same connection: the
            # id to unblock is that of the connection the XREAD blocks.
            self._client_id = None
            named = asyncio.ensure_future(self.connection.execute("CLIENT", "ID", repeatable=True))
            named.add_done_callback(self._noted_id)
            reading = asyncio.ensure_future(self.connection.execute(*command, repeatable=True))  # sent second
            self._blocked = True
            try:
                reply = await reading
            except asyncio.CancelledError:
                named.cancel()
                reading.cancel()
                raise
            except Exception as error:  # the store is down: streams find out by reading
                log.debug("the follower's read failed: %r", error)
                delay = min(2.0, max(0.05, delay * 2))
                await asyncio.sleep(delay)
                continue
            finally:
                self._blocked = False
            delay = 0.0
            for key, entries in reply or ():
                watch = self._watches.get(key.decode())
                if watch is None or watch is not watches.get(key.decode()) or not entries:
                    continue
                position = int(entries[-1][0].split(b"-")[1])
                try:
                    recent = self.store._decode(entries)
                except Exception:  # an unreadable event: each stream reads it and is told why
                    recent = []
                watch.advance(position, recent)


__all__ = ["BLOCK_MS", "Follower"]
