"""What the terminal shows of a game, one module per ruleset, chosen by the ruleset's name.

`replay` and `play` know nothing of any ruleset: they ask `screen_for(name)` for its score
sheet, the state of a game, how a move is typed and shown, and what a move's events say
(the interface is `base.Screen`). `seat.Seat` is the one source `play` draws from, whether
the game is played here or on a server. Every text that comes from outside (player names,
game ids, what a person typed) is shown as it is, never read as markup.
"""

from __future__ import annotations

from service.commands.screens.base import Players, Screen
from service.poison.screen import PoisonScreen
from service.pot.screen import PotScreen

#: Every ruleset's screen, by the ruleset's name (one for each of core.rulesets.RULESETS).
SCREENS: dict[str, Screen] = {screen.ruleset.name: screen for screen in (PoisonScreen(), PotScreen())}


def screen_for(ruleset: str) -> Screen:
    return SCREENS[ruleset]


__all__ = ["SCREENS", "Players", "Screen", "screen_for"]
