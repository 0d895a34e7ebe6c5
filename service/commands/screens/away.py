"""Clocks and away seats in the terminal, the same for every ruleset: what the table's events
of away seats say (a clock that ran out, a resignation, a return, a game abandoned), how a
seat's state is marked in the seats table, and how much time the seat to move has left.

The time left is read from the view's `clock.deadline` (the server's word, RFC 3339 UTC)
against this machine's clock, at the moment the board or the prompt is drawn.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from rich.text import Text

from events.codec import AWAY_EVENTS, Event, GameAbandoned, SeatResigned, SeatReturned, SeatTimedOut
from service.commands.screens.base import Players, said
from service.i18n import words

#: Seconds of time left from which it is said in minutes rather than seconds.
IN_MINUTES = 120


def is_away_event(event: Event) -> bool:
    return isinstance(event, AWAY_EVENTS)


def told(event: Event, players: Players) -> Text | None:
    """What an away seat's event says, in the second person for the reader's own seat, or
    None for any other event."""
    if isinstance(event, SeatTimedOut):
        return players.did("cli.away.timed_out", event.seat, bot=event.bot)
    if isinstance(event, SeatResigned):
        return players.did("cli.away.resigned", event.seat, bot=event.bot)
    if isinstance(event, SeatReturned):
        return players.did("cli.away.returned", event.seat)
    if isinstance(event, GameAbandoned):
        return Text(words()("cli.away.abandoned"), style="bold")
    return None


def away_bots(events: Sequence[Event], known: dict[int, str] | None = None) -> dict[int, str]:
    """Which bot plays each away seat, as the events say it (`known`: before them)."""
    bots = dict(known or {})
    for event in events:
        if isinstance(event, SeatTimedOut | SeatResigned):
            bots[event.seat] = event.bot
        elif isinstance(event, SeatReturned):
            bots.pop(event.seat, None)
    return bots


def deadline_of(view: Any) -> float | None:
    """When the seat to move runs out of time (seconds since the epoch), or None when no
    person's clock runs (no clock, a bot's turn, a game over)."""
    clock = getattr(view, "clock", None)
    if clock is None or clock.deadline is None:
        return None
    return datetime.fromisoformat(clock.deadline.replace("Z", "+00:00")).timestamp()


def seconds_left(view: Any) -> float | None:
    """Seconds until the seat to move runs out of time (never below 0), or None (deadline_of)."""
    deadline = deadline_of(view)
    return None if deadline is None else max(0.0, deadline - time.time())


def time_words(seconds: float) -> str:
    """Time left as a person reads it: "42 seconds", or "3 minutes" from IN_MINUTES on."""
    whole = math.ceil(seconds)  # 0.4 s left is "1 second", never "0 seconds" while it runs
    if whole >= IN_MINUTES:
        return words()("cli.clock.minutes", count=whole // 60)
    return words()("cli.clock.seconds", count=whole)


def clock_line(view: Any, players: Players) -> Text | None:
    """The board's line of the clock: seconds per move, and the time the seat to move has
    left when a person's clock runs; None for a game without a clock."""
    clock = getattr(view, "clock", None)
    if clock is None:
        return None
    per_move = words()("cli.clock.seconds", count=clock.seconds_per_move)
    deadline = deadline_of(view)
    if deadline is None or view.turn is None:
        return said("cli.clock.line", per_move=per_move)
    left = time_words(max(0.0, deadline - time.time()))
    # The moment too, in this machine's time of day: it stays true on a board not redrawn.
    until = datetime.fromtimestamp(deadline).strftime("%H:%M:%S")
    return players.did("cli.clock.left", view.turn, per_move=per_move, left=left, until=until)
