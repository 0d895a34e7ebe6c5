"""Loading a game from our own store quickly: its stored entries decoded in one pass, and
its state rebuilt by the core in one batch, without re-deriving every event in Python.

The checked rebuild (events.replay) re-derives each event through the rules and compares:
right for a log from outside, but every log in our store was checked event by event when it
was appended, in the same atomic step as everything its move caused. So a whole stored log
may be rebuilt from its moves and deals alone, through the core's batch replay (one C loop),
skipping what those moves caused. What it gives is exactly what the checked rebuild gives
(tests/events/test_restore.py holds the two equal over many random games of every ruleset).

The entries come decoded by events/mapper.py (in one pass for today's stored forms, a
finished game's copy in one call). The batch falls back to the checked rebuild on anything
it does not know: an event kind it does not batch (the lobby's), a game with open seats, a
ruleset without a batch (EventRules.batched), or a move or deal the core refuses.
"""

from __future__ import annotations

from collections.abc import Sequence

from events.codec import Event
from events.play import LoggedGame
from events.replay import rebuild, start


def restore(events: Sequence[tuple[int, Event]]) -> LoggedGame:
    """The game a whole log read back from our own store makes: the same as
    events.replay.rebuild(events), InvalidLog included, but through the core in one batch
    when it can. Only for a whole log as the store holds it (every move with everything it
    caused, as each append writes them), never for a log from outside."""
    restored = batched(events)
    # Every search bot move of our store was judged when appended: taken as logged (still legal).
    return restored if restored is not None else rebuild(events, research=False)


def batched(events: Sequence[tuple[int, Event]]) -> LoggedGame | None:
    """The game the core's batch replay makes of a whole stored log, or None where it does
    not take the log (see the module's words): the checked road then says why."""
    if not events or [version for version, _ in events] != list(range(1, len(events) + 1)):
        return None  # empty, or versions that are not 1, 2, 3, ...: the checked road says why
    logged = start(*events[0])  # game_created's own checks, as the checked road makes them
    if getattr(logged, "lobby", None) is not None:
        return None  # a game created with open seats: the lobby's events are judged one by one
    game = logged.rules.batched(logged.created, events)
    if game is None:
        return None
    logged.game = game
    logged.version = len(events)
    return logged


__all__ = ["batched", "restore"]
