"""High card's entry in the core's registry: what it is, and where each layer finds its facet
(here, in tests/thirdgame/, not where core.rulesets.FACETS would look for them)."""

from __future__ import annotations

from core.rulesets import Ruleset
from tests.thirdgame import engine

HIGH_CARD = Ruleset(
    name="highcard",
    title="High card",
    summary="Eight cards each; play one a turn. Highest total wins.",
    card_pattern=r"^H(0[1-9]|[12][0-9]|3[0-2])$",
    refusals=("card_not_in_hand",),
    engine=engine,
    reference=engine,
    facets={
        "events": "tests.thirdgame.events:EVENTS",
        "service": "tests.thirdgame.service:SERVICE",
        "screen": "tests.thirdgame.screen:SCREEN",
        "table": None,  # no browser table: the page's games are the product's
    },
    lacks=frozenset({"simulate", "search"}),
)
