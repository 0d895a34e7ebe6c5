"""Following games live: one waiter per store (per worker) for every stream that follows.

A live stream must not hold a store connection while it waits: a blocking read per stream
used up redis-py's pool (100 connections) at about a hundred streams, and every other
request of the worker then got 503. Here one task, the waiter, does one blocking XREAD for
every followed game at once, on a connection of its own, and wakes every stream of a game
whose log grew, handing them the new entries it read: raw, or mapped by the caller's `mapping`
(the store's decoding into events, events/mapper.py), once for every stream of the game.

A stream first reads what it missed itself (a plain XRANGE on the pipelined connection),
then waits for the waiter. It never misses an event: the waiter reads each game's stream
after the version it last saw, which is never beyond what a new follower has read, so an
event appended between a follower's read and the waiter's next XREAD is in that XREAD's
answer. When a game is followed for the first time while the XREAD is blocked, the waiter
is unblocked (CLIENT UNBLOCK, sent on the pipelined connection) so that it reads again with
the new game included, rather than after its block time. A stream that hears nothing for
`idle` seconds reads the log itself once (so a stalled waiter or a store outage is noticed
by every stream, as a blocking read of its own would have noticed it).

On a Redis Cluster one XREAD may only name keys of one slot (CROSSSLOT otherwise, even
for two slots of one node), so there is a waiter per slot that has followed games, each
with its own blocking connection to the slot's primary (closed when its last game is no
longer followed: a worker holds as many as the slots of the games followed on it, at most
one per game), and CLIENT UNBLOCK goes to that primary. A waiter whose read fails (the
slot moved, its primary was lost) reads the cluster's map again and connects anew.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator
from typing import Any, Protocol

from events.pipelined import Argument, PipelinedConnection
from events.records import Entries, MapEntries, version_of
from events.slots import slot_of

log = logging.getLogger("poison.events")

BLOCK_MS = 1000  # one XREAD waits this long at most, then the waiter reads again
COUNT = 500  # entries of one game one XREAD reads at most
IDLE = 5.0  # seconds a stream waits for the waiter before reading the log itself


class Followed(Protocol):
    """What a follower asks of its recorder (events/recorder.py's RedisRecorder)."""

    wire: PipelinedConnection

    def key(self, game_id: str, what: str) -> str: ...

    async def read(self, game_id: str, after: int = 0, limit: int | None = None) -> Entries: ...

    async def clustered(self, key: str) -> bool: ...


class _Watch:
    """One followed game: the version the waiter reads after, the entries it read last
    (in order, ending at `position`, each with its version), what they were mapped into
    (by mapping, made by the first stream that wanted it), and an event set when they
    change."""

    __slots__ = ("changed", "group", "mapped", "position", "recent", "users")

    def __init__(self, position: int, group: int | None) -> None:
        self.position = position
        self.group = group  # the waiter that reads it: its slot on a cluster, None on one server
        self.recent: list[tuple[int, Any]] = []
        self.mapped: dict[MapEntries, list[Any]] = {}
        self.changed = asyncio.Event()
        self.users = 0

    def advance(self, position: int, recent: list[tuple[int, Any]]) -> None:
        self.position = position
        self.recent = recent
        self.mapped = {}
        changed, self.changed = self.changed, asyncio.Event()
        changed.set()

    def since(self, after: int, mapping: MapEntries | None) -> list[Any]:
        """What the waiter read last after version `after`, mapped (once for every stream
        of the game: an unreadable entry raises here, to each stream that reaches it)."""
        if mapping is None:
            return [raw for version, raw in self.recent if version > after]
        mapped = self.mapped.get(mapping)
        if mapped is None:
            mapped = self.mapped[mapping] = mapping([raw for _, raw in self.recent])
        return [item for (version, _), item in zip(self.recent, mapped, strict=True) if version > after]


class _Waiter:
    """The blocking read of the only server, or of one slot of a cluster."""

    __slots__ = ("blocked", "client_id", "connection", "group", "task", "unblocking")

    def __init__(self, group: int | None, connection: PipelinedConnection) -> None:
        self.group = group
        self.connection = connection  # its own: it blocks
        self.task: asyncio.Task[None] | None = None
        self.client_id: int | None = None  # the connection, as the server names it
        self.blocked = False  # an XREAD is out
        self.unblocking = False

    def noted_id(self, task: asyncio.Future[Any]) -> None:
        if not task.cancelled() and task.exception() is None:
            self.client_id = int(task.result())


class Follower:
    """Every live stream of one recorder and one event loop."""

    def __init__(self, store: Followed, connection: PipelinedConnection, *, block_ms: int = BLOCK_MS) -> None:
        self.store = store
        self.connection = connection  # the waiters' own (a connection per node on a cluster): they block
        self.block_ms = block_ms
        self._watches: dict[str, _Watch] = {}  # by the key of the game's stream
        self._groups: dict[int | None, dict[str, _Watch]] = {}  # the same, by their waiter's group
        self._waiters: dict[int | None, _Waiter] = {}  # by their group (see _Watch)

    @property
    def followed(self) -> int:
        """How many games are followed now."""
        return len(self._watches)

    async def follow(
        self, game_id: str, after: int, mapping: MapEntries | None = None, *, idle: float = IDLE
    ) -> AsyncGenerator[list[Any], None]:
        """The game's entries after version `after`, as they come (each batch made into
        `mapping`'s items, if given): a batch at a time, in order, for as long as the
        caller iterates (and closes it: `contextlib.aclosing`)."""
        key = self.store.key(game_id, "events")
        watch = self._enter(key, after, await self._group_of(key))
        try:
            check = True  # read the log here: at first, and after an idle wait
            while True:
                changed = watch.changed
                recent = watch.recent
                if watch.position > after and recent and recent[0][0] <= after + 1:
                    last = recent[-1][0]
                    batch = watch.since(after, mapping)  # what the waiter read
                elif check or watch.position > after:
                    raw = await self.store.read(game_id, after, limit=COUNT)
                    last = version_of(raw[-1]) if raw else after
                    batch = mapping(raw) if mapping is not None and raw else raw
                else:
                    batch, last = [], after
                check = False
                if batch:
                    after = last
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
        tasks = [waiter.task for waiter in self._waiters.values() if waiter.task is not None]
        self._waiters = {}
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.connection.close()

    # -- the waiters --------------------------------------------------------------------

    async def _group_of(self, key: str) -> int | None:
        """The waiter for `key`'s stream: its slot on a cluster, None on one server.
        StoreUnavailable while the store cannot tell (a stream then fails as its first read
        would): filed under the single server's waiter, a cluster's stream would stay there,
        its XREAD naming keys of several slots."""
        return slot_of(key) if await self.store.clustered(key) else None

    async def _connect(self, group: int | None, key: str) -> PipelinedConnection:
        """A waiter's connection: the follower's own on one server, a new one to the
        slot's primary on a cluster."""
        if group is None:
            return self.connection
        primary = await self.connection.node_for(key)
        return primary.node(primary.options["host"], primary.options["port"])

    def _enter(self, key: str, after: int, group: int | None) -> _Watch:
        watch = self._watches.get(key)
        if watch is None:
            watch = self._watches[key] = self._groups.setdefault(group, {})[key] = _Watch(after, group)
            self._wake(group)
        watch.users += 1
        return watch

    def _leave(self, key: str, watch: _Watch) -> None:
        watch.users -= 1
        if watch.users == 0 and self._watches.get(key) is watch:
            del self._watches[key]  # the waiter's next XREAD leaves it out
            group = self._groups[watch.group]
            del group[key]
            if not group:
                del self._groups[watch.group]

    def _wake(self, group: int | None) -> None:
        """A game is newly followed by the waiter of `group`: start it, or have it
        read again at once."""
        waiter = self._waiters.get(group)
        if waiter is None or waiter.task is None or waiter.task.done():
            loop = asyncio.get_running_loop()
            waiter = self._waiters[group] = _Waiter(group, self.connection)
            waiter.task = loop.create_task(self._run(waiter), name="poison-follower")
        elif waiter.blocked and waiter.client_id is not None and not waiter.unblocking:
            waiter.unblocking = True
            asyncio.get_running_loop().create_task(self._unblock(waiter, waiter.client_id))

    async def _unblock(self, waiter: _Waiter, client_id: int) -> None:
        try:
            # On the store's own connection to the server the waiter blocks on: the node it
            # connected to, which after a failover the store's map may no longer name.
            connection, cluster = waiter.connection, self.store.wire.cluster
            node = (
                self.store.wire
                if cluster is None or connection is self.connection
                else cluster.node(connection.options["host"], connection.options["port"])
            )
            await node.execute("CLIENT", "UNBLOCK", client_id, repeatable=True)
        except Exception as error:  # the waiter reads again after its block time anyway
            log.debug("could not unblock the follower: %r", error)
        finally:
            waiter.unblocking = False

    async def _run(self, waiter: _Waiter) -> None:
        try:
            await self._read(waiter)
        finally:
            # At once, in the step that found no game left: a game followed from now on
            # finds no waiter and starts one.
            if self._waiters.get(waiter.group) is waiter:
                del self._waiters[waiter.group]
            if waiter.connection is not self.connection:
                await waiter.connection.close()

    async def _read(self, waiter: _Waiter) -> None:
        delay = 0.0
        connect = waiter.group is not None  # a cluster's waiter connects first, and after a failure
        while watches := dict(self._groups.get(waiter.group, {})):  # this waiter's games, as they are now
            try:
                if connect:
                    if waiter.connection is not self.connection:
                        await waiter.connection.close()
                    waiter.connection = self.connection
                    waiter.connection = await self._connect(waiter.group, next(iter(watches)))
                    connect = False
                command: list[Argument] = ["XREAD", "COUNT", COUNT, "BLOCK", self.block_ms, "STREAMS", *watches]
                command += [f"0-{watch.position}" for watch in watches.values()]
                # CLIENT ID leaves in the same write as the XREAD, on the same connection:
                # the id to unblock is that of the connection the XREAD blocks.
                waiter.client_id = None
                named = asyncio.ensure_future(waiter.connection.execute("CLIENT", "ID", repeatable=True))
                named.add_done_callback(waiter.noted_id)
                reading = asyncio.ensure_future(waiter.connection.execute(*command, repeatable=True))  # sent second
                waiter.blocked = True
                try:
                    reply = await reading
                except asyncio.CancelledError:
                    named.cancel()
                    reading.cancel()
                    raise
                finally:
                    waiter.blocked = False
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the store is down: streams find out by reading
                log.debug("the follower's read failed: %r", error)
                delay = min(self.block_ms / 1000, max(0.05, delay * 2))  # as often as it would read, at most
                cluster = self.connection.cluster
                if cluster is not None:  # the slot moved, or its primary was lost
                    with contextlib.suppress(Exception):
                        await cluster.refresh()
                    connect = True
                await asyncio.sleep(delay)
                continue
            delay = 0.0
            for key, entries in reply or ():
                watch = self._watches.get(key.decode())
                if watch is None or watch is not watches.get(key.decode()) or not entries:
                    continue
                recent = [(version_of(raw), raw) for raw in entries]  # a stream's ids are always 0-<version>
                watch.advance(recent[-1][0], recent)


__all__ = ["BLOCK_MS", "Follower"]
