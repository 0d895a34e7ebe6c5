"""Waiting for the event itself, never for a fixed time: a busy machine (the suite runs on
every core at once, beside other work) stretches any fixed sleep past what it was meant to
cover. `until` (and `until_async`) polls a condition until it holds, within a generous
deadline; the observers below are what the tests wait on or measure by, each read from
outside the code under test: a Valkey's clients (CLIENT LIST: each one's last command and
whether it is blocked) and its command counts, a service's /metrics, a process's or a
thread's CPU time, and whether a process is gone.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import httpx
import redis
from prometheus_client.parser import text_string_to_metric_families

T = TypeVar("T")

#: Seconds a wait gives its event: far beyond what it takes on a loaded machine, so that
#: only an event that never comes fails the test (and then names what it waited for).
DEADLINE = 30.0
#: Seconds between two looks at the condition.
INTERVAL = 0.02


def until(condition: Callable[[], T], *, deadline: float = DEADLINE, interval: float = INTERVAL, what: str = "") -> T:
    """condition()'s first true value, asked every `interval` s; AssertionError naming
    `what` if it is not true within `deadline` s."""
    ends = time.monotonic() + deadline
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > ends:
            raise AssertionError(f"not within {deadline:g} s: {what or getattr(condition, '__name__', condition)}")
        time.sleep(interval)


async def until_async(
    condition: Callable[[], T | Awaitable[T]],
    *,
    deadline: float = DEADLINE,
    interval: float = INTERVAL,
    what: str = "",
) -> T:
    """`until` in an event loop, which runs on between two looks; `condition` may be a
    coroutine function."""
    ends = time.monotonic() + deadline
    while True:
        value = condition()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value  # type: ignore[return-value]
        if time.monotonic() > ends:
            raise AssertionError(f"not within {deadline:g} s: {what or getattr(condition, '__name__', condition)}")
        await asyncio.sleep(interval)


async def wall_clock_past(moment_ms: int) -> None:
    """Until the wall clock reads later than `moment_ms` (ms since the epoch). A test that
    fires deadlines at a `now` of its own, a little past the last one it made, waits for
    this first: each deadline a firing then sets runs from a later real moment, so it comes
    after that `now` (else a firing within the same millisecond would leave its next seat's
    deadline due at once, and a retrying caller would rightly fire it too)."""
    await until_async(lambda: int(time.time() * 1000) > moment_ms, interval=0.001, what=f"past {moment_ms} ms")


# ---- a Valkey, as it sees its clients -----------------------------------------------------------


def _client(server: str | int) -> redis.Redis:
    """A connection to a server given by URL, or by its port on 127.0.0.1."""
    if isinstance(server, int):
        return redis.Redis(host="127.0.0.1", port=server, socket_timeout=10)
    return redis.Redis.from_url(server, socket_timeout=10)


def clients(server: str | int) -> list[dict[str, str]]:
    """CLIENT LIST: each client's `id`, `cmd` (its last command, or the one it is blocked
    in, lower case: `xread`, `evalsha`, `client|unblock`), `flags` (`b`: blocked, as by a
    blocking read or CLIENT PAUSE), ... This look's own connection left out."""
    with _client(server) as client:
        own = str(client.client_id())
        return [entry for entry in client.client_list() if entry["id"] != own]


def blocked(server: str | int, command: str, *, client_id: int | None = None) -> list[dict[str, str]]:
    """The clients blocked in `command` (as CLIENT LIST names it), or only client `client_id`."""
    return [
        entry
        for entry in clients(server)
        if entry["cmd"] == command and "b" in entry["flags"] and client_id in (None, int(entry["id"]))
    ]


def calls(server: str | int, command: str) -> int:
    """How many times the server has run `command` (INFO commandstats, `client|unblock`)."""
    with _client(server) as client:
        return int(client.info("commandstats").get(f"cmdstat_{command}", {}).get("calls", 0))


# ---- a service, as its /metrics sees it -----------------------------------------------------------


def metric(base: str, name: str, **labels: str) -> float:
    """The sum of the samples `name` (with these labels) of `GET {base}/metrics`, 0 if none."""
    text = httpx.get(f"{base}/metrics", timeout=10).text
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name and labels.items() <= sample.labels.items()
    )


# ---- processes and threads ------------------------------------------------------------------------

_TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int, thread: int | None) -> list[str] | None:
    path = Path(f"/proc/{pid}/stat") if thread is None else Path(f"/proc/{pid}/task/{thread}/stat")
    try:
        return path.read_text().rsplit(")", 1)[1].split()  # after the command's name, which may hold spaces
    except (FileNotFoundError, ProcessLookupError):
        return None


def cpu_seconds(pid: int, thread: int | None = None) -> float:
    """The CPU time (user and system, in clock ticks of 10 ms) process `pid` has used, all its
    threads together, or only its thread `thread` (a native id). A busy machine leaves it
    as it is: what a process did, not how long the machine took to let it."""
    fields = _stat(pid, thread)
    if fields is None:
        raise ProcessLookupError(pid if thread is None else f"{pid}/{thread}")
    return (int(fields[11]) + int(fields[12])) / _TICK


def gone(pid: int) -> bool:
    """Whether process `pid` has ended (no longer there, or a zombie not yet reaped)."""
    fields = _stat(pid, None)
    return fields is None or fields[0] in ("Z", "X")


#: The read system call's number on this machine's processor.
READ_CALL = {"x86_64": 0, "aarch64": 63}[os.uname().machine]


def reading_input(pid: int) -> bool:
    """Whether the process's main thread waits in a read of its standard input (as `input()`
    does, waiting for a person): /proc's note of the system call it is in (read, fd 0)."""
    try:
        call = Path(f"/proc/{pid}/syscall").read_text().split()
    except OSError:
        return False
    return len(call) > 1 and call[0] == str(READ_CALL) and int(call[1], 16) == 0
