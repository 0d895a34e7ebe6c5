"""Checking the archive in bulk (`poison replay --archive`): every archived game rebuilt by
the core's batch replay, file by file, as fast as the engine goes.

A game's stored events are read from its file and made into the one value a finished copy
is (events/mapper.py), decoded in one call and replayed in one C loop (events/restore.py's
`batched`). The game passes when the core takes every move and deal and comes to the end
the log says: finished, with the totals and winners its game_finished names. A game the
batch does not take is rebuilt on the checked road, which names the first broken event.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from events.archive import Archive
from events.codec import GameFinished, InvalidLog
from events.mapper import decode_finished, finished_copy_header
from events.replay import rebuild, require_complete
from events.restore import batched
from events.rulesets import EVENT_RULES

#: The stored types of every ruleset's move (Poison's `card_played`, the pot game's
#: `pot:card_played`), which the report counts.
MOVES = frozenset(
    kind.decode()
    for rules in EVENT_RULES.values()
    for (kind, _), cls in rules.codec.stored_forms.items()
    if cls is rules.played_type
)


@dataclass
class Checked:
    """What checking some of the archive found: games, events and moves read, and each
    invalid game's id and why."""

    games: int = 0
    events: int = 0
    moves: int = 0
    invalid: list[tuple[str, str]] = field(default_factory=list)

    def add(self, other: Checked) -> None:
        self.games += other.games
        self.events += other.events
        self.moves += other.moves
        self.invalid += other.invalid


def check_file(url: str, path: str) -> Checked:
    """Check every game of one archived file (a unit of work for a process of its own)."""
    checked = Checked()
    with collector_paused():
        for game_id, ruleset, count, moves, stored in Archive(url).games_in(path, counting=MOVES):
            checked.games += 1
            checked.events += count
            checked.moves += moves
            why = why_invalid(ruleset, count, stored)
            if why is not None:
                checked.invalid.append((game_id, why))
    return checked


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off for the block: a game's events are hundreds of Structs
    that hold no cycles and go when the game is checked, and the collector's passes over
    them are a measurable share of the check. Reference counting still frees every one."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def why_invalid(ruleset: str, count: int, stored: bytes) -> str | None:
    """Why a game's `count` stored events (their data one after another) are not a
    finished game the rules allow, or None."""
    copy = finished_copy_header(ruleset) + b"\xdd" + count.to_bytes(4, "big") + stored
    events = decode_finished(copy)
    if events is None:
        return "its events do not decode as the ruleset's"
    try:
        logged = batched(events)
        if logged is None:  # not the batch's to take: the checked road names what is wrong
            logged = rebuild(events, research=False)
            require_complete(logged)
    except InvalidLog as error:
        return str(error)
    end = next((event for _, event in reversed(events) if isinstance(event, GameFinished)), None)
    if not logged.finished or end is None:
        return "the game does not end"
    game = logged.game
    if (list(end.totals), list(end.winners)) != (list(game.totals), list(game.winners)):
        return "its game_finished names other totals or winners than the moves make"
    return None


__all__ = ["Checked", "check_file", "why_invalid"]
