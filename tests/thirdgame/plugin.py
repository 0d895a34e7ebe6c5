"""A pytest plugin that registers high card before any layer reads the registry, and its facts
for the generic suites (tests/rulesets.py's FACTS): `pytest -p tests.thirdgame.plugin`."""

from __future__ import annotations

from core.rulesets import register
from tests.thirdgame.ruleset import HIGH_CARD

register(HIGH_CARD)

from tests import rulesets  # noqa: E402 (after the registration, which the layers then read)
from tests.thirdgame.facts import FACTS  # noqa: E402

rulesets.FACTS[HIGH_CARD.name] = FACTS
