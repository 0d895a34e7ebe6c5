"""The store's password: made for an embedded server, and kept out of everything shown.

Every embedded server (events/server.py, and each node of the local cluster,
events/cluster.py) requires a password, so that another user of the machine who finds its
loopback port can neither read the games nor write to them. The password is made here,
afresh for each server (a supervised restart keeps its server's), and given to the server
on its standard input, never on its command line, which every user can read (`ps`). The
service's workers get it in the URL they are handed: `redis://:PASSWORD@127.0.0.1:PORT/0`.

A URL is shown only `redacted`: `poison serve`'s lines, log lines, errors and the health
check say where the store is, never its password (an operator's own URL included).
"""

from __future__ import annotations

import secrets

#: What a password is shown as.
HIDDEN = "***"


def new_password() -> str:
    """A password for a server of ours: 256 random bits, URL-safe (it goes into URLs as is)."""
    return secrets.token_urlsafe(32)


def with_password(host: str, port: int, password: str, db: int = 0) -> str:
    """The URL of a server of ours on `host`, `port` that requires `password`."""
    return f"redis://:{password}@{host}:{port}/{db}"


def redacted(url: str) -> str:
    """`url` as it may be shown: any password in it (after the user name, or a query's
    `password=`) replaced by `***`, the rest as given."""
    scheme, found, rest = url.partition("://")
    if not found:  # no scheme (a mistake shown back to its author): read as an address
        scheme, rest = "", url
    # The address ends where the path, the query or the fragment begins.
    end = min((at for at in (rest.find(mark) for mark in "/?#") if at >= 0), default=len(rest))
    address, tail = rest[:end], rest[end:]
    user_info, at, host = address.rpartition("@")
    if at and ":" in user_info:
        address = f"{user_info.split(':', 1)[0]}:{HIDDEN}@{host}"
    before, question, query = tail.partition("?")
    if question:
        query, hash_, fragment = query.partition("#")
        query = "&".join(_redacted_field(field) for field in query.split("&")) + hash_ + fragment
    return f"{scheme}{found}{address}{before}{question}{query}"


def _redacted_field(field: str) -> str:
    name, equals, _ = field.partition("=")
    return f"{name}={HIDDEN}" if equals and "password" in name.lower() else field
