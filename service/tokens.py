"""Seat tokens: 256 random bits, shown once, stored only as SHA-256 hashes, compared in
constant time, valid only for their own game and seat."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping

BEARER = re.compile(r"^(?i:bearer) +([A-Za-z0-9_-]{20,128})$")  # the scheme is case-insensitive


def url_safe(nbytes: int) -> str:
    """`nbytes` random bytes as URL-safe text that never begins with '-': ids and tokens are
    given on command lines (`poison play --game ID --token T`), where a value beginning with
    '-' reads as an option and is refused. (Redrawing keeps every other text equally likely.)"""
    while True:
        text = secrets.token_urlsafe(nbytes)
        if not text.startswith("-"):
            return text


def new_token() -> str:
    return url_safe(32)


def new_game_id() -> str:
    return url_safe(12)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer …` header; None when absent. Raises
    ValueError when present but malformed."""
    if authorization is None:
        return None
    match = BEARER.match(authorization.strip())
    if match is None:
        raise ValueError("the Authorization header must be 'Bearer <token>'")
    return match.group(1)


def seat_of(token: str, hashes: Mapping[int, str]) -> int | None:
    """The seat whose stored hash matches `token`, looking at every seat (constant time
    in which seat matches)."""
    digest = token_hash(token)
    found = None
    for seat, stored in hashes.items():
        if hmac.compare_digest(digest, stored):
            found = seat
    return found
