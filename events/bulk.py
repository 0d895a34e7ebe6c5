"""Checking the archive in bulk (`poison replay --archive`): every archived game rebuilt by
the core's batch replay, file by file, as fast as the engine goes.

A game's stored events are read from its file and made into the one value a finished copy
is (events/mapper.py), decoded in one call and replayed in one C loop (events/restore.py's
`batched`). A game whose events are not all of today's stored forms (an older schema) is
decoded entry by entry instead, as the store reads it: upcast, or its first broken entry
named. The game passes when the core takes every move and deal and the game is over:
finished, with the totals and winners its game_finished names, or abandoned (a waiting
game every person left, which has no game_finished). A game the batch does not take is
rebuilt on the checked road, which names the first broken event.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from events.archive import Archive
from events.codec import GameFinished, InvalidLog
from events.mapper import decode_finished, events_of, finished_copy
from events.records import Entries
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
        for game_id, ruleset, count, moves, stored, entries in Archive(url).games_in(path, counting=MOVES):
            checked.games += 1
            checked.events += count
            checked.moves += moves
            why = why_invalid(ruleset, count, stored, entries)
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


def why_invalid(ruleset: str, count: int, stored: bytes, entries: Callable[[], Entries]) -> str | None:
    """Why a game's `count` stored events (their data one after another, and `entries`
    giving them as raw entries) are not a game over that the rules allow, or None."""
    events = decode_finished(finished_copy(ruleset, count, stored))
    try:
        if events is None:  # not all of today's forms: one by one, upcast or named
            events = events_of(entries())
        logged = batched(events)
        if logged is None:  # not the batch's to take: the checked road names what is wrong
            logged = rebuild(events, research=False)
            require_complete(logged)
    except InvalidLog as error:
        return str(error)
    if not logged.over:
        return "the game does not end"
    if not logged.finished:
        return None  # abandoned: no game_finished to compare with
    end = next((event for _, event in reversed(events) if isinstance(event, GameFinished)), None)
    if end is None:
        return "its log has no game_finished"
    game = logged.game
    if (list(end.totals), list(end.winners)) != (list(game.totals), list(game.winners)):
        return "its game_finished names other totals or winners than the moves make"
    return None


__all__ = ["Checked", "check_file", "why_invalid"]
