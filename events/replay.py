"""Rebuilding a game from its log, and refusing any log the rules could not have written.

Each event is checked as it is applied, whatever the ruleset: versions run 1, 2, 3, …
without a gap; the game is created once, first, and its commitment to its deals holds (its
seed and salt hash to its seed_commitment: events.commitment); a deal comes only when one
is due and, for a seeded game, is exactly what its seed deals (Poison: with the dealer the
rotation gives); every card is a legal move of the seat to move, and a bot's is the move
that bot makes; and what a move causes (an overflow or an explosion, scores, the end) is
exactly what the rules derive (the ruleset's `play`). A game created with open seats deals nothing until its
last open seat is joined and game_started follows (events.lobby judges each join and
leave); a rematch_created only follows game_finished, once. The first broken event is
named by its version.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from core import RuleError
from core.errors import SEARCH_BOT, SEED_LIMIT, quoted
from core.rulesets import bot_seed
from events import away, commitment
from events.codec import (
    AWAY_EVENTS,
    Event,
    GameAbandoned,
    GameStarted,
    InvalidLog,
    MalformedEvent,
    PublicEvent,
    RematchCreated,
    SeatJoined,
    SeatLeft,
    event_data,
    event_type,
)
from events.lobby import after_event, check_seating, lobby_of, rematched
from events.play import LoggedGame, bot_choice, playouts_searched, search_budgets
from events.ruleset import InvalidDeal
from events.rulesets import codec_of_log, rules_of


def start(version: int, event: Event) -> LoggedGame:
    if version != 1:
        raise InvalidLog(version, f"a log starts at version 1, not {version}")
    if event_type(event) != "game_created":
        raise InvalidLog(1, f"a log starts with game_created, not {event_type(event)}")
    rules = rules_of(event)
    created: Any = event
    seats = [player.seat for player in created.players]
    if seats != list(range(len(seats))):
        raise InvalidLog(1, f"players must sit at seats 0, 1, 2, … in order, not {seats}")
    if created.seed is not None and not 0 <= created.seed <= SEED_LIMIT:
        raise InvalidLog(1, f"the seed must be 0 to {SEED_LIMIT:,} (2**63 - 1), not {created.seed}")
    try:
        commitment.check(created)
    except commitment.BrokenCommitment as broken:
        raise InvalidLog(1, str(broken)) from None
    for player in created.players:
        if player.bot is not None and player.bot not in rules.ruleset.engine_bots:
            raise InvalidLog(1, f"seat {player.seat} is played by {quoted(player.bot)}, which is no bot of ours")
        if player.bot == SEARCH_BOT and player.playouts is msgspec.UNSET:
            # The budget decides the moves: a log must say the one its searches were made with.
            raise InvalidLog(1, f"seat {player.seat} is the {SEARCH_BOT} bot's: its playouts are missing")
    wrong = check_seating(created.players)
    if wrong is not None:
        raise InvalidLog(1, wrong)
    try:
        game = rules.start(created)
    except RuleError as refused:
        raise InvalidLog(1, f"game_created: {refused}") from None
    return LoggedGame(created, game, 1, lobby=lobby_of(created.players))


def apply(logged: LoggedGame, version: int, event: Event, *, research: bool = True) -> None:
    """Apply one event to `logged` in place, or raise InvalidLog leaving it as it was.
    `research` False takes a search bot's moves as logged, legal moves still (only for a
    log of our own store, each of whose moves was judged when it was appended): re-running
    a search costs milliseconds to seconds, a cheaper bot's choice microseconds."""
    if version != logged.version + 1:
        raise InvalidLog(version, f"expected event {logged.version + 1} next, not {version}")
    kind = event_type(event)
    rules = logged.rules
    if logged.pending:
        if event != logged.pending[0]:
            owed = logged.pending[0]
            raise InvalidLog(
                version, f"the rules derive {event_type(owed)} {_show(owed)} here, not {kind} {_show(event)}"
            )
        logged.pending = logged.pending[1:]
        if isinstance(event, GameAbandoned):  # owed when no person was left: the end
            logged.away = away.abandoned(logged)
    elif logged.abandoned:
        raise InvalidLog(version, f"{kind} after the game was abandoned")
    elif isinstance(event, AWAY_EVENTS):
        _away(logged, version, event)
    elif isinstance(event, SeatJoined | SeatLeft | GameStarted | RematchCreated):
        _lobby(logged, version, event)
    elif _start_due(logged):
        raise InvalidLog(version, f"every seat is taken: the lobby derives game_started here, not {kind}")
    elif logged.waiting:
        raise InvalidLog(version, f"{kind} while the game waits for seats {_open(logged)} to be taken")
    elif isinstance(event, rules.deal_type):
        _deal(logged, version, event)
    elif isinstance(event, rules.played_type):
        _play(logged, version, event, research)
    elif kind == "game_created":
        raise InvalidLog(version, "a game is created only once, by its first event")
    else:
        raise InvalidLog(version, f"{kind} does not follow from the events before it")
    logged.version = version


def _start_due(logged: LoggedGame) -> bool:
    """The last open seat is taken and game_started is not logged yet."""
    return logged.lobby is not None and logged.lobby.waiting and not logged.lobby.open_seats


def _open(logged: LoggedGame) -> str:
    return ", ".join(map(str, logged.lobby.open_seats)) if logged.lobby is not None else ""


def _lobby(logged: LoggedGame, version: int, event: Event) -> None:
    """A lobby event, judged by the lobby's rules; the last open seat joined owes
    game_started next."""
    kind = event_type(event)
    if _start_due(logged) and not isinstance(event, GameStarted):
        raise InvalidLog(version, f"every seat is taken: the lobby derives game_started here, not {kind}")
    try:
        if isinstance(event, RematchCreated):
            rematched(logged.finished, logged.abandoned, logged.next_game)
            logged.next_game = event.game_id
        else:
            logged.lobby = after_event(logged.lobby, event)
    except RuleError as refused:
        raise InvalidLog(version, f"{kind}: {refused} ({refused.code})") from None


def _away(logged: LoggedGame, version: int, event: Event) -> None:
    """An away seat's event (or a waiting game's end), judged by events.away; when it leaves
    no person to play, game_abandoned is owed next."""
    kind = event_type(event)
    if _start_due(logged):
        raise InvalidLog(version, f"every seat is taken: the lobby derives game_started here, not {kind}")
    try:
        logged.away = away.after_event(logged, event)
    except RuleError as refused:
        raise InvalidLog(version, f"{kind}: {refused} ({refused.code})") from None
    if not isinstance(event, GameAbandoned) and away.none_left(logged):
        logged.pending = (GameAbandoned(),)


def _deal(logged: LoggedGame, version: int, event: Event) -> None:
    game = logged.game
    rules = logged.rules
    if not rules.deal_due(game):
        raise InvalidLog(version, f"{event_type(event)} while {rules.stage(game)} is {game.status}")
    try:
        logged.game = rules.dealt(game, event, logged.created.seed)
    except InvalidDeal as refused:
        raise InvalidLog(version, str(refused)) from None


def _play(logged: LoggedGame, version: int, event: Event, research: bool) -> None:
    rules = logged.rules
    seat, recorded = rules.move_of(event)
    players = logged.created.players
    bot = away.playing_bot(logged, seat) if seat < len(players) else None
    if bot is not None and logged.game.turn == seat and (research or bot != SEARCH_BOT):
        # A bot's move is not a choice the log may make: it is what that bot plays here (a
        # search bot's too: its search is deterministic for its seed and playouts; an away
        # seat's bot's, as the bot that took it plays).
        player = away.playing(logged, seat)
        chosen = bot_choice(logged.game, player, bot_seed(logged.created.seed or 0, version - 1))
        if tuple(recorded) != tuple(chosen):
            raise InvalidLog(
                version,
                f"{event_type(event)}: seat {seat} is the {bot} bot, which plays {rules.describe(chosen)} here, "
                f"not {rules.describe(recorded)}",
            )
    twin = logged.game.copy()
    try:
        caused = rules.play(twin, seat, recorded)
    except RuleError as refused:
        raise InvalidLog(version, f"{event_type(event)}: {refused} ({refused.code})") from None
    if event != caused[0]:
        raise InvalidLog(version, f"{event_type(event)}: the rules make it {_show(caused[0])}, not {_show(event)}")
    logged.game = twin
    logged.pending = tuple(caused[1:])


def _show(event: Event) -> str:
    """An event's data as its public form (JSON) shows it, never as a Python repr."""
    return msgspec.json.encode(event_data(event)).decode()


def rebuild(events: Iterable[tuple[int, Event]], *, research: bool = True) -> LoggedGame:
    """A game from its whole log (version, event pairs), checking every event (`research`:
    see apply)."""
    logged: LoggedGame | None = None
    for version, event in events:
        if logged is None:
            logged = start(version, event)
        else:
            apply(logged, version, event, research=research)
    if logged is None:
        raise InvalidLog(1, "the log is empty")
    return logged


def require_complete(logged: LoggedGame) -> None:
    """Refuse a log that stops where the rules still owe events: after a move whose
    consequences are missing, or after a scored round whose next deal is missing."""
    if logged.pending:
        owed = event_type(logged.pending[0])
        raise InvalidLog(logged.version + 1, f"the log ends where the rules derive {owed} {_show(logged.pending[0])}")
    if _start_due(logged):
        raise InvalidLog(logged.version + 1, "the log ends where the lobby derives game_started")
    if not logged.waiting and logged.rules.deal_due(logged.game):
        raise InvalidLog(logged.version + 1, f"the log ends before {logged.rules.stage(logged.game)} is dealt")


def advance(logged: LoggedGame, events: Iterable[tuple[int, Event]], *, research: bool = True) -> LoggedGame:
    """`logged` brought forward by newer events, checking each (`research`: see apply);
    `logged` is not changed."""
    after = logged.copy()
    for version, event in events:
        apply(after, version, event, research=research)
    return after


def search_work(events: Sequence[tuple[int, Event]]) -> int:
    """The playouts checking this log would search: each move logged for a search bot's
    seat, at that seat's playouts (an upper bound: a move out of turn is refused unsearched).
    Known before any search runs, so a caller can refuse a log that asks too much."""
    if not events or event_type(events[0][1]) != "game_created":
        return 0
    created: Any = events[0][1]
    budgets = search_budgets(p for p in created.players if p.playouts is not msgspec.UNSET)
    return playouts_searched(rules_of(created), budgets, (event for _, event in events[1:]))


def decode_log(public: Sequence[PublicEvent]) -> list[tuple[int, Event]]:
    """The events of a public log (an export), decoded by the ruleset its first event names;
    InvalidLog at the first entry that is no event of that ruleset."""
    if not public:
        return []
    try:
        codec = codec_of_log(public[0].type, public[0].data)
    except MalformedEvent as error:
        raise InvalidLog(1, str(error)) from None
    numbered = []
    for position, item in enumerate(public, start=1):
        try:
            numbered.append((item.version, codec.from_public(item)))
        except MalformedEvent as error:
            raise InvalidLog(item.version if item.version >= 1 else position, str(error)) from None
    return numbered
