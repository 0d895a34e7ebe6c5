"""The commitment every game makes to its deals, for every ruleset: made, sealed, checked.

A game's first event carries `seed_commitment`, the lowercase hex SHA-256 of the UTF-8 text
`"<seed>:<salt>"`, where the salt is a random string drawn for that game alone. While the
game is active its seed and salt are secret (events.ruleset.EventRules.visible hides both),
so the commitment says nothing of the deals; once it is over both are public, and anyone
who noted the commitment at the start can check that the game was dealt from the seed it
committed to then (replay does: `check`). The salt is what keeps the commitment from
naming its seed: a seed alone has few enough values to try them all against the hash.

Logs written before games committed to their deals have neither field; they replay as
before, and `status` says there is nothing to check rather than that a check passed.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Annotated, Any, Literal

import msgspec

#: Random bytes in a salt (written as twice as many hex digits): far beyond guessing.
SALT_BYTES = 32
#: A salt as a log holds it: hex digits, as `new_salt` writes them (a log with another
#: form is no log of ours).
Salt = Annotated[str, msgspec.Meta(pattern=f"^[0-9a-f]{{{2 * SALT_BYTES}}}$")]
#: A commitment: a SHA-256, as 64 lowercase hex digits.
Commitment = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]

#: What replay says of a log's commitment: it holds, or the log has none to check.
CommitmentStatus = Literal["holds", "none"]
HOLDS: CommitmentStatus = "holds"
NONE: CommitmentStatus = "none"


class BrokenCommitment(ValueError):
    """A game_created whose seed, salt and commitment disagree; the message says how."""


def new_salt() -> str:
    return secrets.token_hex(SALT_BYTES)


def seed_commitment(seed: int, salt: str) -> str:
    """The commitment to `seed` under `salt`: the hex SHA-256 of `"<seed>:<salt>"`."""
    return hashlib.sha256(f"{seed}:{salt}".encode()).hexdigest()


def sealed(created: Any, salt: str | None = None) -> Any:
    """`created` (any ruleset's game_created) committed to its seed under `salt` (a new
    random one if None)."""
    salt = new_salt() if salt is None else salt
    return msgspec.structs.replace(created, salt=salt, seed_commitment=seed_commitment(created.seed, salt))


def check(created: Any) -> CommitmentStatus:
    """Whether a game_created's commitment holds (HOLDS), or it makes none (NONE: a log
    written before games committed to their deals); BrokenCommitment saying which part is
    missing or wrong when seed, salt and commitment disagree."""
    commitment, salt, seed = created.seed_commitment, created.salt, created.seed
    if commitment is None:
        if salt is not None:
            raise BrokenCommitment("game_created has a salt but no seed_commitment: the commitment was removed")
        return NONE
    if seed is None and salt is None:
        raise BrokenCommitment(
            "game_created commits to its deals but shows neither seed nor salt: they are public once the "
            "game is over, so replay the game's export"
        )
    if seed is None:
        raise BrokenCommitment("game_created has a seed_commitment and a salt but no seed: the seed was removed")
    if salt is None:
        raise BrokenCommitment("game_created has a seed_commitment and a seed but no salt: the salt was removed")
    expected = seed_commitment(seed, salt)
    if expected != commitment:
        raise BrokenCommitment(
            f"the seed_commitment {commitment} is not the SHA-256 of {f'{seed}:{salt}'!r} ({expected}): "
            "the seed, the salt or the commitment was changed"
        )
    return HOLDS


__all__ = [
    "HOLDS",
    "NONE",
    "SALT_BYTES",
    "BrokenCommitment",
    "Commitment",
    "CommitmentStatus",
    "Salt",
    "check",
    "new_salt",
    "sealed",
    "seed_commitment",
]
