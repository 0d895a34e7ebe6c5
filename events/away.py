"""The away seats' rules, whatever the ruleset: a clock running out, resigning, coming back,
and the end of a game nobody is left to play.

A person's seat is away once its clock ran out (seat_timed_out) or its person resigned
(seat_resigned): a bot plays it, at once whenever it is its turn, until its person comes
back (seat_returned; never after resigning). When no person is left who is not away, the
game is abandoned at once (game_abandoned, no winners); so is a game that waited for its
open seats longer than the service lets one wait. `Away` is which seats are away; the
functions here judge each of these events against the game and say what it becomes, the
same for a live request (events.play, events.games) and for a replayed log
(events.replay), so that a log can never say what the table could not have done. Which
seat may time out is a question of the log alone (the seat to move, a person, not away, in
a game with a clock): when its deadline passed is the live service's to know, and a
replay reads no clock.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Protocol

import msgspec

from core.errors import SEARCH_BOT, InvalidArgument, MoveConflict
from events.codec import Event, GameAbandoned, Player, SeatResigned, SeatReturned, SeatTimedOut
from events.ruleset import EventRules

#: The codes of the refusals the API answers 409.
SEAT_RESIGNED = "seat_resigned"
SEAT_AWAY = "seat_away"
NOT_AWAY = "seat_not_away"
GAME_WAITING = "game_waiting"
ABANDONED = "game_abandoned"
#: The bot that plays an away seat unless the service is set otherwise.
DEFAULT_BOT = "greedy"


@dataclass(frozen=True)
class Away:
    """Which seats of a game are away (`bots`: seat -> the bot playing it), which of them
    resigned (they never come back), and whether the game was `abandoned`."""

    bots: tuple[tuple[int, str], ...] = ()
    resigned: frozenset[int] = frozenset()
    abandoned: bool = False

    def bot_of(self, seat: int) -> str | None:
        for away, bot in self.bots:  # a plain loop: asked for each seat on every move
            if away == seat:
                return bot
        return None

    def with_bot(self, seat: int, bot: str) -> Away:
        return replace(self, bots=(*((s, b) for s, b in self.bots if s != seat), (seat, bot)))


NOBODY = Away()


class LoggedGame(Protocol):
    """What these rules read of a game (events.play.LoggedGame, which imports this module)."""

    created: Any
    game: Any
    away: Away | None

    @property
    def waiting(self) -> bool: ...

    @property
    def finished(self) -> bool: ...

    @property
    def rules(self) -> EventRules: ...


def away_of(logged: LoggedGame) -> Away:
    return logged.away if logged.away is not None else NOBODY


def playing_bot(logged: LoggedGame, seat: int) -> str | None:
    """The bot that plays `seat` now: its own (a bot's seat), the one that took it while
    its person is away, or None (its person plays it)."""
    players = logged.created.players
    own = players[seat].bot if 0 <= seat < len(players) else None
    if own is not None or logged.away is None:  # most games: nobody ever went away
        return own
    return logged.away.bot_of(seat)


def playing(logged: LoggedGame, seat: int) -> Player:
    """The seat as its bot plays it: a bot's own seat as game_created has it, an away
    person's seat as the bot that took it (never a search bot: see check_bot)."""
    player: Player = logged.created.players[seat]
    if player.bot is not None or logged.away is None:
        return player
    bot = logged.away.bot_of(seat)
    return player if bot is None else msgspec.structs.replace(player, bot=bot)


def persons_left(logged: LoggedGame) -> tuple[int, ...]:
    """The seats whose person plays them now (a person's seat, not away)."""
    away = away_of(logged)
    return tuple(p.seat for p in logged.created.players if p.bot is None and away.bot_of(p.seat) is None)


def check_bot(bot: str, bots: tuple[str, ...]) -> str | None:
    """What is wrong with `bot` as the bot that takes away seats (`bots`: the ruleset's
    engine bots), or None. A search bot's moves need a budget a person's seat never said."""
    if bot == SEARCH_BOT:
        return f"the {SEARCH_BOT} bot needs a budget of playouts: an away seat is taken by a bot without one"
    if bot not in bots:
        return f"{bot!r} is no bot of this game (its bots: {', '.join(b for b in bots if b != SEARCH_BOT)})"
    return None


def _active(logged: LoggedGame, what: str) -> Away:
    away = away_of(logged)
    if away.abandoned:
        raise MoveConflict(ABANDONED, f"the game was abandoned: no seat may be {what}")
    if logged.waiting:
        raise MoveConflict(
            GAME_WAITING, f"the game waits for its open seats: no seat may be {what} (a seat may be left)"
        )
    if logged.finished:
        raise MoveConflict("game_finished", f"the game is finished: no seat may be {what}")
    to_move = logged.game.turn
    if to_move is None:  # a log out of step: a deal comes in the step of the creation or of the last move
        raise MoveConflict("not_your_turn", f"nobody is to move until the next deal: no seat may be {what} before it")
    if playing_bot(logged, to_move) is not None:  # a log out of step
        raise MoveConflict("not_your_turn", f"seat {to_move}'s bot moves here: no seat may be {what} first")
    return away


def _person(logged: LoggedGame, seat: int) -> None:
    players = logged.created.players
    if not 0 <= seat < len(players):
        raise InvalidArgument("invalid_seat", f"this table has seats 0 to {len(players) - 1}, not {seat}")
    if players[seat].bot is not None:
        raise InvalidArgument("seat_of_bot", f"seat {seat} is the {players[seat].bot} bot's: no person sits there")


def timed_out(logged: LoggedGame, seat: int, bot: str) -> Away:
    """Who is away once the clock of `seat` ran out: only the seat to move, a person's,
    not away, in a game with a clock."""
    away = _active(logged, "timed out")
    if logged.created.clock is msgspec.UNSET:
        raise MoveConflict("no_clock", "the game has no clock: no seat times out")
    _person(logged, seat)
    if logged.game.turn != seat:
        raise MoveConflict("not_your_turn", f"seat {seat} is not to move: only the seat to move times out")
    if away.bot_of(seat) is not None:
        raise MoveConflict(SEAT_AWAY, f"seat {seat} is away already")
    _known_bot(logged, bot)
    return away.with_bot(seat, bot)


def resigned(logged: LoggedGame, seat: int, bot: str) -> Away:
    """Who is away once the person of `seat` resigns: any person's seat not resigned yet,
    whoever is to move. A seat away already keeps the bot that took it."""
    away = _active(logged, "resigned")
    _person(logged, seat)
    if seat in away.resigned:
        raise MoveConflict(SEAT_RESIGNED, f"seat {seat} has resigned already")
    playing_now = away.bot_of(seat)
    if playing_now is not None and playing_now != bot:
        raise MoveConflict(SEAT_AWAY, f"seat {seat} is away: the {playing_now} bot plays it, not {bot!r}")
    _known_bot(logged, bot)
    return replace(away.with_bot(seat, bot), resigned=away.resigned | {seat})


def returned(logged: LoggedGame, seat: int) -> Away:
    """Who is away once the person of `seat` comes back: only a seat that timed out."""
    away = _active(logged, "returned to")
    _person(logged, seat)
    if seat in away.resigned:
        raise MoveConflict(SEAT_RESIGNED, f"seat {seat} resigned: a seat that resigned does not come back")
    if away.bot_of(seat) is None:
        raise MoveConflict(NOT_AWAY, f"seat {seat} is not away: its person plays it")
    return replace(away, bots=tuple((s, b) for s, b in away.bots if s != seat))


def abandoned(logged: LoggedGame) -> Away:
    """The game ended without winners: an active game no person is left to play (owed at
    once, events.play), or a waiting one (the service's limit on waiting is its own)."""
    away = away_of(logged)
    if away.abandoned:
        raise MoveConflict(ABANDONED, "the game was abandoned already")
    if logged.finished:
        raise MoveConflict("game_finished", "the game is finished: it cannot be abandoned")
    if not logged.waiting and persons_left(logged):
        left = ", ".join(map(str, persons_left(logged)))
        raise MoveConflict("game_active", f"seats {left} are still played by their persons")
    if not logged.waiting and all(player.bot is not None for player in logged.created.players):
        # No person ever sat there, so none went away: its bots play it to its end.
        raise MoveConflict("game_active", "a table of bots only is played to its end, never abandoned")
    return replace(away, abandoned=True)


def none_left(logged: LoggedGame) -> bool:
    """An active game whose every person's seat is away: it is abandoned at once."""
    return not logged.waiting and not logged.finished and not persons_left(logged)


def _known_bot(logged: LoggedGame, bot: str) -> None:
    wrong = check_bot(bot, logged.rules.ruleset.engine_bots)
    if wrong is not None:
        raise InvalidArgument("invalid_bot", wrong)


def after_event(logged: LoggedGame, event: Event) -> Away:
    """Who is away after one of these events (core.RuleError if it could not be logged)."""
    if isinstance(event, SeatTimedOut):
        return timed_out(logged, event.seat, event.bot)
    if isinstance(event, SeatResigned):
        return resigned(logged, event.seat, event.bot)
    if isinstance(event, SeatReturned):
        return returned(logged, event.seat)
    assert isinstance(event, GameAbandoned)
    return abandoned(logged)


def seat_fields(logged: LoggedGame) -> dict[str, list[Any]]:
    """Each seat's `away`, `away_bot` (UNSET but on an away seat) and `resigned`, seat by
    seat, for the view."""
    away = logged.away
    seats = range(len(logged.created.players))
    if away is None:  # every view of most games: built without asking seat by seat
        return {"away": [False] * len(seats), "resigned": [False] * len(seats)}
    bots = [away.bot_of(seat) for seat in seats]
    return {
        "away": [bot is not None for bot in bots],
        "away_bot": [msgspec.UNSET if bot is None else bot for bot in bots],
        "resigned": [seat in away.resigned for seat in seats],
    }


__all__ = [
    "ABANDONED",
    "DEFAULT_BOT",
    "GAME_WAITING",
    "NOBODY",
    "NOT_AWAY",
    "SEAT_AWAY",
    "SEAT_RESIGNED",
    "Away",
    "abandoned",
    "after_event",
    "away_of",
    "check_bot",
    "none_left",
    "persons_left",
    "playing",
    "playing_bot",
    "resigned",
    "returned",
    "timed_out",
]
