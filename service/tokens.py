"""Seat tokens and every other secret, derived from the server key (`ServerKey`), which
the store never holds: a token is shown once, the store keeps only its verifier (an HMAC
of it under the key, which grants nothing: no token can be made from it), checked in
constant time, valid only for its own game and seat.

A token is the key's HMAC of a random nonce. A nonce grants nothing without the key
either, so where an answer holding a token must be given again (a join retried with its
`Idempotency-Key`), the store keeps the nonce and the service derives the same token.

A rematch's tokens and id are derived instead of drawn, so that every call about one
finished game finds the same next game and each seat the same token in it: the next
game's id from the finished game's id (ids are public), a seat's next token from the key,
the seat's stored verifier in the finished game and the next game's id. Whoever holds the
seat's old token proves it by the old verifier; whoever reads the store cannot, without
the key, make the new token.

Games stored before the server key kept each token's SHA-256 hash: such a hash still
verifies its token (a game in progress survives the upgrade), and anything derived from
it (a rematch's tokens) is derived with the key too.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping

BEARER = re.compile(r"^(?i:bearer) +([A-Za-z0-9_-]{20,128})$")  # the scheme is case-insensitive

#: What a verifier begins with; a stored value without it is a token's plain SHA-256 hash
#: (64 hex digits), as games stored before the server key keep them.
VERIFIER_MARK = "v1:"
#: The fewest characters a server key has (its text; one made by the service has more).
MIN_KEY_LENGTH = 32
#: Random bytes in a server key the service makes, and in a token's nonce.
KEY_BYTES = 32
NONCE_BYTES = 16
#: The verifiers of recent tokens a process keeps (`ServerKey.verifier`): more than a
#: worker's seats in play at once.
VERIFIERS_KEPT = 8192
#: Characters of a caller's scope (the key's HMAC of its address or token) in a record's name.
SCOPE_LENGTH = 22


def url_safe(nbytes: int) -> str:
    """`nbytes` random bytes as URL-safe text that never begins with '-': ids and tokens are
    given on command lines (`poison play --game ID --token T`), where a value beginning with
    '-' reads as an option and is refused. (Redrawing keeps every other text equally likely.)"""
    while True:
        text = secrets.token_urlsafe(nbytes)
        if not text.startswith("-"):
            return text


def new_game_id() -> str:
    return url_safe(12)


#: A token's length: the text of 32 bytes, as a drawn one had.
TOKEN_LENGTH = len(url_safe(32))


def _text(digest: bytes, length: int, again: bytes | None = None) -> str:
    """URL-safe text of `length` characters from `digest`, never beginning with '-': each
    redraw hashes again (keyed by `again` when given), so the same digest always gives the
    same text."""
    while True:
        text = base64.urlsafe_b64encode(digest).decode().rstrip("=")[:length]
        if not text.startswith("-"):
            return text
        digest = hmac.digest(again, digest, "sha256") if again is not None else hashlib.sha256(digest).digest()


def rematch_game_id(game_id: str) -> str:
    """The id of the rematch of game `game_id`: the same for every call (as long as a drawn
    id). Ids are public, so it needs no key."""
    digest = hashlib.sha256("\0".join(("rematch", game_id)).encode()).digest()
    return _text(digest, len(new_game_id()))


def legacy_hash(token: str) -> str:
    """A token's plain SHA-256 hash: what games stored before the server key keep."""
    return hashlib.sha256(token.encode()).hexdigest()


class ServerKey:
    """The server key, and every secret the service derives from it. Each use has a key
    of its own, derived from the server key by its name, so that no value made for one
    use (a verifier, a caller's scope) is ever another's (a token)."""

    __slots__ = ("_scope", "_token", "_verifier", "_verifiers")

    def __init__(self, secret: str) -> None:
        if len(secret) < MIN_KEY_LENGTH:
            raise ValueError(f"a server key has at least {MIN_KEY_LENGTH} characters")
        root = secret.encode()
        self._token = hmac.digest(root, b"poison token", "sha256")
        self._verifier = hmac.digest(root, b"poison verifier", "sha256")
        self._scope = hmac.digest(root, b"poison caller", "sha256")
        # Every request with a token needs its verifier, and a seat sends the same token
        # again and again: an HMAC costs several times a plain hash (docs/performance.md),
        # so the verifiers of recent tokens are kept, a bounded number, in this process.
        self._verifiers: dict[str, str] = {}

    def __repr__(self) -> str:
        return "ServerKey(...)"  # never the key itself, in a log or a traceback

    @staticmethod
    def nonce() -> str:
        """A fresh nonce: what a token is derived from, and all the store may keep of it."""
        return url_safe(NONCE_BYTES)

    def token(self, *parts: str) -> str:
        """The token that `parts` give under this key (as long as a drawn token)."""
        digest = hmac.digest(self._token, "\0".join(parts).encode(), "sha256")
        return _text(digest, TOKEN_LENGTH, self._token)

    def seat_token(self, nonce: str) -> str:
        """A seat's token, from its nonce."""
        return self.token("seat", nonce)

    def new_token(self) -> str:
        """A seat's token from a fresh nonce kept nowhere: 256 bits nobody can guess."""
        return self.seat_token(self.nonce())

    def rematch_token(self, next_game_id: str, seat: int, old_verifier: str) -> str:
        """Seat `seat`'s token in the rematch `next_game_id`, from its verifier in the finished
        game: the same on every call, and made only with the key."""
        return self.token("rematch", next_game_id, str(seat), old_verifier)

    def verifier(self, token: str) -> str:
        """What the store keeps of a token: its HMAC under the key, from which no token can be made."""
        verifier = self._verifiers.get(token)
        if verifier is None:
            verifier = VERIFIER_MARK + _text(hmac.digest(self._verifier, token.encode(), "sha256"), 43)
            if len(self._verifiers) >= VERIFIERS_KEPT:
                self._verifiers.clear()  # a flood of made-up tokens costs an HMAC each, no memory
            self._verifiers[token] = verifier
        return verifier

    def verifies(self, token: str, stored: str) -> bool:
        """Whether `stored` (a verifier, or an older game's plain hash) is `token`'s, in constant time."""
        expected = self.verifier(token) if stored.startswith(VERIFIER_MARK) else legacy_hash(token)
        return hmac.compare_digest(expected, stored)

    def seat_of(self, token: str, stored: Mapping[int, str]) -> int | None:
        """The seat whose stored verifier is `token`'s, looking at every seat (constant time
        in which seat matches)."""
        verifier = self.verifier(token)
        legacy = None
        found = None
        for seat, value in stored.items():
            if value.startswith(VERIFIER_MARK):
                expected = verifier
            else:
                legacy = legacy or legacy_hash(token)
                expected = legacy
            if hmac.compare_digest(expected, value):
                found = seat
        return found

    def scope(self, *parts: str) -> str:
        """Who a caller is, as an idempotency record's name says it: the key's HMAC of
        `parts` (its address, its token), so the store keeps neither in the clear."""
        return _text(hmac.digest(self._scope, "\0".join(parts).encode(), "sha256"), SCOPE_LENGTH)


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer …` header; None when absent. Raises
    ValueError when present but malformed."""
    if authorization is None:
        return None
    match = BEARER.match(authorization.strip())
    if match is None:
        raise ValueError("the Authorization header must be 'Bearer <token>'")
    return match.group(1)
