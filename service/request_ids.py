"""Every request's id: the client's `X-Request-Id` when it is a sane token, else one made
here; returned in the answer's `X-Request-Id` (service/observed.py adds it to every answer,
problems and the hot routes included; service/guards.py to its own refusals), written in
the request's log line and in every log line written while it is served (service/logs.py).

A client's id is taken only if it is 1 to MAX_LENGTH characters of letters, digits and
`-_.:`: anything else (too long, spaces, quotes, control characters) could break a log
line or a log search, and is replaced rather than refused: the id is a convenience, never
a reason to fail a request.
"""

from __future__ import annotations

import os
import re
from contextvars import ContextVar
from random import Random
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a hint only: the CLI imports this module (through service.settings) without Litestar
    from litestar.types import Scope

#: The header, in the lower case of ASGI's scope.
HEADER = b"x-request-id"
#: The longest id taken from a client (a UUID is 36, a W3C trace id 32).
MAX_LENGTH = 128
#: Where the id is kept in a request's scope (service/problems.py names it in an error's log line).
SCOPE_KEY = "poison.request_id"
_SANE = re.compile(rb"[A-Za-z0-9._:-]{1,%d}" % MAX_LENGTH)

#: The id of the request the running task serves (each request has its own task), for log lines.
current: ContextVar[bytes | None] = ContextVar("poison_request_id", default=None)


def new_request_id() -> bytes:
    """A fresh id: 16 hexadecimal digits (64 random bits). An id names a request in the logs
    and guards nothing, so the fast generator serves (reading the system's, os.urandom, cost
    a system call, a sixth of the id's whole cost). It is seeded from the system's in each
    process (and again in a forked child), so workers never share a sequence."""
    return b"%016x" % _ids.getrandbits(64)


_ids = Random()  # seeded from os.urandom; a generator of its own, leaving `random`'s alone
os.register_at_fork(after_in_child=_ids.seed)


def request_id_of(scope: Scope) -> bytes:
    """The client's X-Request-Id if it is sane, else a fresh one."""
    for name, value in scope["headers"]:
        if name == HEADER:
            return value if _SANE.fullmatch(value) else new_request_id()
    return new_request_id()
