"""A bounded pool of worker threads for work that would hold the event loop too long: a
search bot's searches, the rebuild of a big log.

At most `threads` pieces of work run at once; more wait their turn on the loop (a
semaphore), never as threads piling up. A piece of work that waits may be given `gone`, a
coroutine function that returns once its request's client has hung up: when the client
goes first, the work is dropped before it starts (ClientGone) and so appends nothing. Work
that has started runs to its end (C code without the GIL cannot be stopped half-way) and
its result is used as any other's.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

Result = TypeVar("Result")

#: Returns once the request's client has hung up (never, while it is there).
Gone = Callable[[], Awaitable[None]]


class ClientGone(Exception):
    """The client of a request hung up while its work waited for a thread: the work was
    dropped before it started, and nothing was done."""


class Pool:
    """Worker threads, at most `threads` at once (default: the machine's cores)."""

    def __init__(self, threads: int | None = None, name: str = "pool") -> None:
        self.threads = threads or os.cpu_count() or 1
        self.name = name
        #: How many pieces of work wait for a thread now.
        self.waiting = 0
        self._executor: ThreadPoolExecutor | None = None
        self._slots: asyncio.Semaphore | None = None

    async def run(self, work: Callable[..., Result], *args: Any, gone: Gone | None = None) -> Result:
        """`work(*args)` in a worker thread, once one is free; ClientGone if `gone` returns
        first (the work never ran)."""
        if self._slots is None or self._executor is None:
            self._slots = asyncio.Semaphore(self.threads)
            self._executor = ThreadPoolExecutor(self.threads, thread_name_prefix=self.name)
        slots = self._slots
        if gone is not None and slots.locked():
            await self._turn(slots, gone)
        else:
            await slots.acquire()
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, work, *args)
        finally:
            slots.release()

    async def judge(self, offload: bool, work: Callable[..., Result], *args: Any, gone: Gone | None = None) -> Result:
        """`work(*args)` in a worker thread when it is heavy (`offload`), else at once,
        inline: light work never pays for a thread hop."""
        if offload:
            return await self.run(work, *args, gone=gone)
        return work(*args)

    async def _turn(self, slots: asyncio.Semaphore, gone: Gone) -> None:
        """A free thread's slot, taken; ClientGone (and no slot) if the client hangs up first.
        Only work that must wait watches its client: a free slot costs no watching."""
        acquired = asyncio.ensure_future(slots.acquire())
        left = asyncio.ensure_future(gone())
        self.waiting += 1
        try:
            await asyncio.wait((acquired, left), return_when=asyncio.FIRST_COMPLETED)
            if not _gone(left):
                await acquired  # the slot came first (or watching failed): wait for it alone
                return
        except BaseException:  # this request itself was cancelled
            if acquired.done() and not acquired.cancelled():
                slots.release()
            acquired.cancel()
            raise
        finally:
            self.waiting -= 1
            left.cancel()
        if acquired.done() and not acquired.cancelled():
            slots.release()  # both at once: the client is gone, so the slot goes to the next
        acquired.cancel()
        raise ClientGone("the client hung up before its work started")

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)


def _gone(left: asyncio.Future[None]) -> bool:
    return left.done() and not left.cancelled() and left.exception() is None


__all__ = ["ClientGone", "Gone", "Pool"]
