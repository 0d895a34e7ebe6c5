"""The lobby's rules, whatever the ruleset: open seats, joining, leaving, starting, rematch.

A game created with a seat left open (a Player without a name) waits: nothing is dealt
and nobody moves until every open seat is taken. `Lobby` is who sits where while it
waits; the functions here judge each lobby event against it and say what it becomes, the
same for a live request (events.games) and for a replayed log (events.replay), so a log
can never say something the lobby could not have done. A refusal is a core.RuleError: a
state in the way (a taken seat, a game no longer waiting) is a MoveConflict (409), a
value no table could accept an InvalidArgument (400).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import msgspec

from core.errors import SEARCH_BOT, InvalidArgument, MoveConflict, quoted
from events.away import ABANDONED
from events.codec import Event, GameStarted, Player, SeatJoined, SeatLeft

#: The codes of the lobby's refusals that the API answers 409.
SEAT_TAKEN = "seat_taken"
GAME_STARTED = "game_started"


@dataclass(frozen=True)
class Lobby:
    """Who sits where in a game created with open seats; `waiting` until its last open seat
    is taken (then never again), `left` once any seat has been left."""

    players: tuple[Player, ...]
    waiting: bool = True
    left: bool = False

    @property
    def open_seats(self) -> tuple[int, ...]:
        return tuple(player.seat for player in self.players if player.name is None)

    @property
    def abandoned(self) -> bool:
        """A waiting game that every person left: no seat but bots' is taken any more."""
        return self.waiting and self.left and all(p.name is None for p in self.players if p.bot is None)


def lobby_of(players: tuple[Player, ...]) -> Lobby | None:
    """The lobby of a new game: None when every seat is taken (it starts at once, as
    every game did before the lobby)."""
    return Lobby(players) if any(player.name is None for player in players) else None


def check_seating(players: tuple[Player, ...]) -> str | None:
    """What is wrong with a new game's seats (open seats, names), or None."""
    for player in players:
        if player.name is None and player.bot is not None:
            return f"seat {player.seat} is the {player.bot} bot's: a bot's seat is never open"
        if player.playouts is not msgspec.UNSET and player.bot != SEARCH_BOT:
            who = "a person" if player.bot is None else f"the {player.bot} bot"
            return f"seat {player.seat} has playouts, but {who} plays it: playouts are the {SEARCH_BOT} bot's budget"
    names = [player.name for player in players if player.name is not None]
    if len(set(names)) != len(names):
        return "player names must be unique in a game"
    return None


def _still_waiting(lobby: Lobby | None, what: str) -> Lobby:
    if lobby is None or not lobby.waiting:
        raise MoveConflict(GAME_STARTED, f"the game has started: no seat may be {what} any more")
    if lobby.abandoned:
        raise MoveConflict(GAME_STARTED, f"the game was abandoned (every person left it): no seat may be {what}")
    return lobby


def _seat(lobby: Lobby, seat: int) -> Player:
    # A seat beyond this table (a seat number any table may have) is one that is not open:
    # a state of this game, not a malformed request.
    if not 0 <= seat < len(lobby.players):
        raise MoveConflict(SEAT_TAKEN, f"seat {seat} is not open: this table has seats 0 to {len(lobby.players) - 1}")
    return lobby.players[seat]


def joined(lobby: Lobby | None, seat: int, name: str) -> Lobby:
    """The lobby once `name` takes open seat `seat`; when no seat is open any more, the
    game_started event (and the first deal) must follow at once."""
    waiting = _still_waiting(lobby, "joined")
    player = _seat(waiting, seat)
    if player.name is not None or player.bot is not None:
        raise MoveConflict(SEAT_TAKEN, f"seat {seat} is not open: {player.name or player.bot} sits there")
    if any(other.name == name for other in waiting.players):
        raise InvalidArgument(
            "name_taken", f"{quoted(name)} already sits at this table: player names are unique in a game"
        )
    players = tuple(msgspec.structs.replace(p, name=name) if p.seat == seat else p for p in waiting.players)
    return replace(waiting, players=players)


def left(lobby: Lobby | None, seat: int) -> Lobby:
    """The lobby once the person at `seat` leaves it (the seat is open again)."""
    waiting = _still_waiting(lobby, "left")
    player = _seat(waiting, seat)
    if player.bot is not None:
        raise InvalidArgument("seat_of_bot", f"seat {seat} is the {player.bot} bot's: nobody sits there to leave")
    if player.name is None:
        raise MoveConflict(SEAT_TAKEN, f"seat {seat} is open: nobody sits there to leave")
    players = tuple(msgspec.structs.replace(p, name=None) if p.seat == seat else p for p in waiting.players)
    return replace(waiting, players=players, left=True)


def started(lobby: Lobby | None) -> Lobby:
    """The lobby once its game starts: only when no seat is open any more."""
    waiting = _still_waiting(lobby, "taken")
    if waiting.open_seats:
        raise MoveConflict(GAME_STARTED, f"seats {_listed(waiting.open_seats)} are still open")
    return replace(waiting, waiting=False)


def after_event(lobby: Lobby | None, event: Event) -> Lobby | None:
    """The lobby after one event of its game's log: a join, a leave or the start judged as
    above (core.RuleError if the lobby could not have logged it); any other event leaves it
    as it was."""
    if isinstance(event, SeatJoined):
        return joined(lobby, event.seat, event.name)
    if isinstance(event, SeatLeft):
        return left(lobby, event.seat)
    if isinstance(event, GameStarted):
        return started(lobby)
    return lobby


def rematched(finished: bool, abandoned: bool, next_game: str | None) -> None:
    """A game's rematch may be created once, after the game is finished: an abandoned game
    ended without a result, its people gone, so nobody plays it again."""
    if abandoned:
        raise MoveConflict(ABANDONED, "an abandoned game has no rematch")
    if not finished:
        raise MoveConflict("game_active", "a rematch follows a finished game")
    if next_game is not None:
        raise MoveConflict("rematch_exists", f"the rematch of this game is {next_game!r} already")


def _listed(seats: tuple[int, ...]) -> str:
    return ", ".join(map(str, seats))


__all__ = [
    "GAME_STARTED",
    "SEAT_TAKEN",
    "Lobby",
    "after_event",
    "check_seating",
    "joined",
    "left",
    "lobby_of",
    "rematched",
    "started",
]
