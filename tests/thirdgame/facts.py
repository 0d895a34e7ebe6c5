"""What the generic suites need to know of high card beyond its registry entry (tests/rulesets.py)."""

from __future__ import annotations

import random
from typing import Any

from tests.rulesets import Facts, Log, Tampered, changed, first, own_hand
from tests.thirdgame.events import HighCardPlayed, Tallied


def redact(kind: str, data: dict[str, Any], reader: int | None) -> dict[str, Any]:
    if kind == "hands_dealt":
        return {**data, "hands": own_hand(data["hands"], reader)}
    return data


def tamperings(log: Log) -> dict[str, Tampered]:
    played = first(log, HighCardPlayed)
    event = log[played]
    assert isinstance(event, HighCardPlayed)
    return {"a wrong total": Tampered(played, changed(log, played, total=event.total + 1))}


def pick(game: Any, rng: random.Random) -> tuple[Any, ...]:
    return tuple(rng.choice(game.legal_moves()))


FACTS = Facts(
    pick=pick,
    redact=redact,
    redacted_types=("hands_dealt",),
    hidden_keys={},
    own_cards=None,
    cuts=lambda log: [first(log, Tallied)],
    tamperings=tamperings,
)
