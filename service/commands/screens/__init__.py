"""What the terminal shows of a game, one module per ruleset, chosen by the ruleset's name:
each ruleset's entry in the core's registry says where its screen is (core.rulesets.FACETS:
`service/<game>/screen.py`'s SCREEN). They are gathered on first use, not at import, since a
game's screen is made of this package's `base`.

`replay` and `play` know nothing of any ruleset: they ask `screen_for(name)` for its score
sheet, the state of a game, how a move is typed and shown, and what a move's events say
(the interface is `base.Screen`). `seat.Seat` is the one source `play` draws from, whether
the game is played here or on a server. Every text that comes from outside (player names,
game ids, what a person typed) is shown as it is, never read as markup.
"""

from __future__ import annotations

import functools
from typing import Any

from core.rulesets import facets_of
from service.commands.screens.base import Players, Screen


@functools.cache
def _screens() -> dict[str, Screen]:
    return facets_of("screen")


def screen_for(ruleset: str) -> Screen:
    return _screens()[ruleset]


def __getattr__(name: str) -> Any:
    """SCREENS: every ruleset's screen, by the ruleset's name, once gathered."""
    if name == "SCREENS":
        return _screens()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["SCREENS", "Players", "Screen", "screen_for"]
