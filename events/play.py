"""Turning a new game and each move into the events they cause, for every ruleset.

A game's ruleset (named by its game_created event) turns options, deals and moves into
events through the core; this module strings them together: the first deal, a move and its
consequences, the next deal when one is due, and the moves of bots whose turn it is. The
live service records exactly these events, and replay demands exactly these.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from core import Move
from core.errors import SEARCH_BOT, MoveConflict
from core.rulesets import POISON, bot_seed
from events import away as seats_away
from events.away import Away, away_of, none_left, playing
from events.codec import (
    Clock,
    Event,
    GameAbandoned,
    GameStarted,
    Player,
    RematchCreated,
    SeatJoined,
    SeatLeft,
    SeatResigned,
    SeatReturned,
    SeatTimedOut,
)
from events.commitment import sealed
from events.lobby import GAME_STARTED, Lobby, joined, left, lobby_of, rematched, started
from events.poison.schema import Rules
from events.ruleset import EventRules
from events.rulesets import rules_for, rules_of


@dataclass
class LoggedGame:
    """A game as its log makes it: the creation facts, the engine's state, the version
    (number of events) and the events the log still owes after the last move; for a game
    created with open seats, its `lobby` (who sits where, whether it still waits); once a
    seat is away or the game abandoned, `away` (events.away); once a rematch is created,
    `next_game`. `deadline_ms`: when the clock of this state runs out (the seat to move's,
    or a waiting game's wait), as the live store says (events.games); never the log's.

    Once made, a LoggedGame is never changed (moves and replay work on a copy), so readers
    may keep what they derive from it in `memo` (the service keeps its public view there)."""

    created: Any  # the ruleset's game_created event
    game: Any  # the ruleset's engine Game
    version: int
    pending: tuple[Event, ...] = field(default=())
    lobby: Lobby | None = None
    next_game: str | None = None
    away: Away | None = None
    deadline_ms: int | None = field(default=None, compare=False)
    memo: dict[str, object] = field(default_factory=dict, compare=False, repr=False)

    @property
    def rules(self) -> EventRules:
        return rules_of(self.created)

    @property
    def finished(self) -> bool:
        return self.game.status == "finished"

    @property
    def abandoned(self) -> bool:
        """Ended without winners (game_abandoned), or a waiting game every person left."""
        away = self.away  # asked several times a move: no call when nobody went away
        return (away is not None and away.abandoned) or (self.lobby is not None and self.lobby.abandoned)

    @property
    def over(self) -> bool:
        """Finished, or abandoned (no person left to play it, or a waiting game nobody can
        join any more): its whole log, seed and salt included, is public."""
        return self.finished or self.abandoned

    @property
    def waiting(self) -> bool:
        """Still waiting for an open seat to be taken (abandoned games included)."""
        return self.lobby is not None and self.lobby.waiting

    @property
    def status(self) -> str:
        """`waiting`, `abandoned` (game_abandoned, or a waiting game every person left),
        `active` (between rounds too, seen only by time travel) or `finished`."""
        if self.abandoned:
            return "abandoned"
        if self.lobby is not None and self.lobby.waiting:
            return "waiting"
        return "finished" if self.finished else "active"

    @property
    def clock(self) -> Clock | None:
        """The game's clock, or None."""
        clock = self.created.clock
        return None if clock is msgspec.UNSET else clock

    @property
    def players(self) -> tuple[Player, ...]:
        """Who sits where now: game_created's players, with the lobby's joins and leaves."""
        players: tuple[Player, ...] = self.created.players if self.lobby is None else self.lobby.players
        return players

    def copy(self) -> LoggedGame:
        return LoggedGame(
            self.created, self.game.copy(), self.version, self.pending, self.lobby, self.next_game, self.away
        )


def create_game(
    ruleset: str,
    game_id: str,
    players: tuple[Player, ...],
    *,
    seed: int,
    options: Mapping[str, Any],
    salt: str | None = None,
    clock: Clock | None = None,
) -> tuple[list[Event], LoggedGame]:
    """The first events of a game (its creation, with its `clock` if any, committed to its
    seed under `salt`, a random one if None; the first deal; the moves of bots whose turn
    it is) and its state. Raises core.RuleError for an unknown ruleset or options it refuses."""
    rules = rules_for(ruleset)
    created, game = rules.create(game_id, budgeted(players, rules.ruleset.default_playouts), seed, options)
    if clock is not None:
        created = msgspec.structs.replace(created, clock=clock)
    created = sealed(created, salt)
    lobby = lobby_of(players)
    if lobby is not None:  # it waits for its open seats: nothing is dealt yet
        return [created], LoggedGame(created, game, 1, lobby=lobby)
    first_deal = rules.deal(game, seed)
    logged = LoggedGame(created, game, 2)
    bot_events, logged = bots_play(logged)
    return [created, first_deal, *bot_events], logged


def rematch_game(
    finished: LoggedGame, game_id: str, seed: int, *, salt: str | None = None
) -> tuple[list[Event], LoggedGame]:
    """The first events of the next game of a finished one: the same ruleset, options,
    players and bots (as they sat when it finished), a new id and seed, and its own
    commitment to that seed (under `salt`, a random one if None)."""
    created = msgspec.structs.replace(finished.created, game_id=game_id, players=finished.players, seed=seed)
    created = sealed(created, salt)
    rules = finished.rules
    game = rules.start(created)
    first_deal = rules.deal(game, seed)
    bot_events, logged = bots_play(LoggedGame(created, game, 2))
    return [created, first_deal, *bot_events], logged


def join(logged: LoggedGame, seat: int, name: str) -> tuple[list[Event], LoggedGame]:
    """The events of `name` taking open seat `seat`, and the game after them; the last
    open seat taken starts the game: game_started, the first deal and the moves of bots
    whose turn it is follow in the same step. core.RuleError when the lobby refuses."""
    _not_abandoned(logged, "joined")
    lobby = joined(logged.lobby, seat, name)
    after = logged.copy()
    after.lobby = lobby
    caused: list[Event] = [SeatJoined(seat=seat, name=name)]
    after.version += 1
    if lobby.open_seats:
        return caused, after
    after.lobby = started(lobby)
    caused += [GameStarted(), after.rules.deal(after.game, after.created.seed)]
    after.version += 2
    bot_events, after = bots_play(after)
    return caused + bot_events, after


def leave(logged: LoggedGame, seat: int) -> tuple[list[Event], LoggedGame]:
    """The event of the person at `seat` leaving a waiting game, and the game after it."""
    _not_abandoned(logged, "left")
    after = logged.copy()
    after.lobby = left(logged.lobby, seat)
    after.version += 1
    return [SeatLeft(seat=seat)], after


def _not_abandoned(logged: LoggedGame, what: str) -> None:
    """A waiting game the service abandoned (it waited too long: game_abandoned) takes no
    lobby event, though its lobby, which knows only who sits where, still waits."""
    if away_of(logged).abandoned:
        raise MoveConflict(
            GAME_STARTED, f"the game was abandoned (it waited too long for its open seats): no seat may be {what}"
        )


def rematch_created(logged: LoggedGame, next_game: str) -> tuple[list[Event], LoggedGame]:
    """The event that names a finished game's next game, and the game after it."""
    rematched(logged.finished and not logged.pending, logged.abandoned, logged.next_game)
    after = logged.copy()
    after.next_game = next_game
    after.version += 1
    return [RematchCreated(game_id=next_game)], after


def new_game(
    game_id: str, players: tuple[Player, ...], *, rounds: int | None, rules: Rules, seed: int
) -> tuple[list[Event], LoggedGame]:
    """A new game of Poison (see create_game)."""
    return create_game(
        POISON.name, game_id, players, seed=seed, options={"rounds": rounds, "cauldrons": rules.cauldrons}
    )


def _apply(after: LoggedGame, seat: int, move: tuple[Any, ...]) -> list[Event]:
    rules = after.rules
    caused = rules.play(after.game, seat, move)
    if rules.deal_due(after.game):
        caused.append(rules.deal(after.game, after.created.seed))
    after.version += len(caused)
    return caused


def budgeted(players: tuple[Player, ...], default_playouts: int) -> tuple[Player, ...]:
    """The seats with every search bot's budget said: an `mcts` seat given no playouts
    gets the ruleset's default, so the log records the number each decision was made with
    (and replay re-runs the same search, whatever a later default may be)."""
    return tuple(
        msgspec.structs.replace(player, playouts=default_playouts)
        if player.bot == SEARCH_BOT and player.playouts is msgspec.UNSET
        else player
        for player in players
    )


def searches(players: Iterable[Player]) -> bool:
    """Whether a search bot sits at a table of these seats: its moves cost a search each
    (milliseconds to seconds of CPU), where another bot's cost microseconds."""
    return any(player.bot == SEARCH_BOT for player in players)


def search_budgets(players: Iterable[Player], default_playouts: int = 0) -> dict[int, int]:
    """Each search bot's seat and the playouts of one of its decisions (a seat given none:
    `default_playouts`, as `budgeted` gives it)."""
    return {
        player.seat: default_playouts if player.playouts is msgspec.UNSET else player.playouts
        for player in players
        if player.bot == SEARCH_BOT
    }


def playouts_searched(rules: EventRules, budgets: Mapping[int, int], events: Iterable[Event]) -> int:
    """The playouts searched to decide these events' moves: each move of a search bot's
    seat, at that seat's playouts (`budgets`, as search_budgets gives them)."""
    if not budgets:
        return 0
    return sum(budgets.get(rules.move_of(event)[0], 0) for event in events if isinstance(event, rules.played_type))


def bot_choice(game: Any, player: Player, seed: int) -> tuple[Any, ...]:
    """The move the bot of seat `player` plays in `game` from `seed`: a search bot with
    its seat's playouts, any other bot by its policy alone."""
    assert player.bot is not None
    if player.playouts is msgspec.UNSET:
        return tuple(game.choose(player.bot, seed))
    return tuple(game.choose(player.bot, seed, playouts=player.playouts))


def bots_play(logged: LoggedGame) -> tuple[list[Event], LoggedGame]:
    """Every move the bots make while it is a bot's turn; `logged` is left as it was.
    A bot draws from the game's seed and the log's version (core.rulesets.bot_seed), so
    its choices are reproducible and replay can demand them."""
    after = logged.copy()
    caused: list[Event] = []
    seed = after.created.seed or 0
    while after.game.status == "active" and (player := playing(after, after.game.turn)).bot is not None:
        chosen = bot_choice(after.game, player, bot_seed(seed, after.version))
        caused += _apply(after, after.game.turn, chosen)
    return caused, after


def _away_step(logged: LoggedGame, event: Event) -> tuple[list[Event], LoggedGame]:
    """An away seat's event, and what follows it at once: the end, when no person is left
    to play (game_abandoned), else the moves of the bots whose turn it is (the away seat's
    own, when it is to move)."""
    after = logged.copy()
    after.away = seats_away.after_event(logged, event)
    after.version += 1
    if none_left(after):
        ended, after = abandon(after)
        return [event, *ended], after
    bot_events, after = bots_play(after)
    return [event, *bot_events], after


def time_out(logged: LoggedGame, seat: int, bot: str) -> tuple[list[Event], LoggedGame]:
    """The clock of `seat` (to move) ran out: `bot` takes the seat and moves (events.away).
    core.RuleError when the seat may not time out."""
    return _away_step(logged, SeatTimedOut(seat=seat, bot=bot))


def resign(logged: LoggedGame, seat: int, bot: str) -> tuple[list[Event], LoggedGame]:
    """The person of `seat` gives it up for good: `bot` takes it (a seat away already keeps
    its bot), and moves if it is the seat's turn."""
    return _away_step(logged, SeatResigned(seat=seat, bot=bot))


def come_back(logged: LoggedGame, seat: int) -> tuple[list[Event], LoggedGame]:
    """The person of `seat`, which timed out, plays it again (from its next turn: an away
    seat is never left to move, its bot plays at once)."""
    return _away_step(logged, SeatReturned(seat=seat))


def abandon(logged: LoggedGame) -> tuple[list[Event], LoggedGame]:
    """The game ends without winners: no person is left to play it, or it waited too long."""
    after = logged.copy()
    after.away = seats_away.abandoned(logged)
    after.version += 1
    return [GameAbandoned()], after


def play_move(logged: LoggedGame, seat: int, move: tuple[Any, ...]) -> tuple[list[Event], LoggedGame]:
    """The events of one move (the ruleset's move: Poison's `(card, cauldron)`, the pot
    game's `(card, close)`), and of the bot moves that follow it, and the game after them;
    `logged` is left as it was. Raises core.RuleError when the rules refuse the move."""
    if logged.abandoned:
        raise MoveConflict(seats_away.ABANDONED, "the game was abandoned: nobody moves any more")
    if logged.waiting:
        open_seats = ", ".join(map(str, logged.lobby.open_seats)) if logged.lobby else ""
        raise MoveConflict("not_your_turn", f"it is nobody's turn: the game waits for seats {open_seats} to be taken")
    away = away_of(logged)
    bot = away.bot_of(seat)
    if bot is not None and not logged.finished:  # a finished game's refusal is the rules' own
        until = "for the rest of the game (it resigned)" if seat in away.resigned else "until its person comes back"
        raise MoveConflict(seats_away.SEAT_AWAY, f"seat {seat} is away: the {bot} bot plays it {until}")
    after = logged.copy()
    caused = _apply(after, seat, move)
    bot_events, after = bots_play(after)
    return caused + bot_events, after


def move(logged: LoggedGame, seat: int, *fields: Any) -> tuple[list[Event], LoggedGame]:
    """play_move with the move's fields given one by one: `move(logged, seat, "R5", 0)`."""
    return play_move(logged, seat, tuple(fields))


__all__ = [
    "LoggedGame",
    "Move",
    "abandon",
    "bot_choice",
    "bots_play",
    "budgeted",
    "come_back",
    "create_game",
    "join",
    "leave",
    "move",
    "new_game",
    "play_move",
    "rematch_created",
    "rematch_game",
    "resign",
    "searches",
    "time_out",
]
