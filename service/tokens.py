"""Seat tokens: 256 random bits, shown once, stored only as SHA-256 hashes, compared in
constant time, valid only for their own game and seat.

A rematch's tokens and id are derived instead of drawn, so that every call about one
finished game finds the same next game and each seat the same token in it, without any
plaintext token kept: the next game's id from the finished game's id, a seat's next token
from that seat's stored hash in the finished game (which no answer ever shows) and the
next game's id. Whoever holds the seat's old token proves it by the old hash."""

from __future__ import annotations

import base64
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


def _derived(*parts: str, length: int) -> str:
    """URL-safe text of `length` characters that `parts` always give, never beginning with
    '-' (as url_safe: each redraw hashes again)."""
    digest = hashlib.sha256("\0".join(parts).encode()).digest()
    while True:
        text = base64.urlsafe_b64encode(digest).decode().rstrip("=")[:length]
        if not text.startswith("-"):
            return text
        digest = hashlib.sha256(digest).digest()


def rematch_game_id(game_id: str) -> str:
    """The id of the rematch of game `game_id`: the same for every call (as long as a drawn id)."""
    return _derived("rematch", game_id, length=len(new_game_id()))


def rematch_token(old_hash: str, next_game_id: str) -> str:
    """A seat's token in the rematch `next_game_id`, from the seat's token hash in the
    finished game (as long as a drawn token)."""
    return _derived("rematch", old_hash, next_game_id, length=len(new_token()))


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
