"""Rebuilding a game from its log, and refusing any log the rules could not have written.

Each event is checked as it is applied: versions run 1, 2, 3, … without a gap; the game is
created once, first; a round is dealt only when one is due, with the dealer the rotation
gives and, for a seeded game, exactly the hands its seed deals; every card is a legal move
of the seat to move; and what a move causes (overflow, scores, the end) is exactly what
the rules derive (events.play.consequences). The first broken event is named by its version.
"""

from __future__ import annotations

from collections.abc import Iterable

from core import BOTS, Game, RuleError, derive_seed, seeded_deal
from events.play import LoggedGame, consequences, round_started
from events.schema import CardPlayed, Event, GameCreated, RoundStarted, event_data, event_type


class InvalidLog(ValueError):
    """A log that breaks the rules or is malformed; `at_version` is its first bad event."""

    def __init__(self, at_version: int, reason: str) -> None:
        super().__init__(f"event {at_version}: {reason}")
        self.at_version = at_version
        self.reason = reason


def start(version: int, event: Event) -> LoggedGame:
    if version != 1:
        raise InvalidLog(version, f"a log starts at version 1, not {version}")
    if not isinstance(event, GameCreated):
        raise InvalidLog(1, f"a log starts with game_created, not {event_type(event)}")
    seats = [player.seat for player in event.players]
    if seats != list(range(len(seats))):
        raise InvalidLog(1, f"players must sit at seats 0, 1, 2, … in order, not {seats}")
    if event.seed is not None and event.seed >= 2**64:
        raise InvalidLog(1, f"a seed is below 2**64, not {event.seed}")
    for player in event.players:
        if player.bot is not None and player.bot not in BOTS:
            raise InvalidLog(1, f"seat {player.seat} is played by {player.bot!r}, which is no bot of ours")
    names = [player.name for player in event.players]
    if len(set(names)) != len(names):
        raise InvalidLog(1, "player names must be unique in a game")
    try:
        game = Game(len(event.players), rounds=event.rounds, cauldrons=event.rules.cauldrons)
    except RuleError as refused:
        raise InvalidLog(1, f"game_created: {refused}") from None
    return LoggedGame(event, game, 1)


def apply(logged: LoggedGame, version: int, event: Event) -> None:
    """Apply one event to `logged` in place, or raise InvalidLog leaving it as it was."""
    if version != logged.version + 1:
        raise InvalidLog(version, f"expected event {logged.version + 1} next, not {version}")
    kind = event_type(event)
    if logged.pending:
        if event != logged.pending[0]:
            owed = logged.pending[0]
            raise InvalidLog(
                version, f"the rules derive {event_type(owed)} {_show(owed)} here, not {kind} {_show(event)}"
            )
        logged.pending = logged.pending[1:]
    elif isinstance(event, RoundStarted):
        _deal(logged, version, event)
    elif isinstance(event, CardPlayed):
        _play(logged, version, event)
    elif isinstance(event, GameCreated):
        raise InvalidLog(version, "a game is created only once, by its first event")
    else:
        raise InvalidLog(version, f"{kind} does not follow from the events before it")
    logged.version = version


def _deal(logged: LoggedGame, version: int, event: RoundStarted) -> None:
    game = logged.game
    if game.status != "dealing":
        raise InvalidLog(version, f"round_started while round {game.round} is {game.status}")
    if (event.round, event.dealer) != (game.round, game.dealer):
        raise InvalidLog(
            version,
            f"round {game.round} is due, dealt by seat {game.dealer}: not round {event.round} by {event.dealer}",
        )
    if event.set_aside is None or any(hand is None for hand in event.hands):
        raise InvalidLog(version, "round_started hides hands: only a complete log can be replayed")
    twin = game.copy()
    try:
        twin.deal(event.hands, event.set_aside)
    except RuleError as refused:
        raise InvalidLog(version, f"round_started: {refused}") from None
    seed = logged.created.seed
    if seed is not None:
        expected = seeded_deal(seed, game.players, game.round)
        got = round_started(twin)
        if (got.hands, got.set_aside) != (expected.hands, expected.set_aside):
            raise InvalidLog(version, f"round_started: these are not the hands seed {seed} deals")
    logged.game = twin


def _play(logged: LoggedGame, version: int, event: CardPlayed) -> None:
    bot = logged.created.players[event.seat].bot if event.seat < len(logged.created.players) else None
    if bot is not None and logged.game.turn == event.seat:
        # A bot's move is not a choice the log may make: it is what that bot plays here.
        seed = logged.created.seed or 0
        card, cauldron = logged.game.choose(bot, derive_seed(seed, version - 1))
        if (event.card, event.cauldron) != (card, cauldron):
            raise InvalidLog(
                version,
                f"card_played: seat {event.seat} is the {bot} bot, which plays {card} into cauldron "
                f"{cauldron} here, not {event.card} into {event.cauldron}",
            )
    twin = logged.game.copy()
    round_now = twin.round
    try:
        played = twin.play(event.seat, event.card, event.cauldron)
    except RuleError as refused:
        raise InvalidLog(version, f"card_played: {refused} ({refused.code})") from None
    caused = consequences(twin, round_now, played)
    if event != caused[0]:
        raise InvalidLog(version, f"card_played: the rules make it {_show(caused[0])}, not {_show(event)}")
    logged.game = twin
    logged.pending = tuple(caused[1:])


def _show(event: Event) -> str:
    return str(event_data(event))


def rebuild(events: Iterable[tuple[int, Event]]) -> LoggedGame:
    """A game from its whole log (version, event pairs), checking every event."""
    logged: LoggedGame | None = None
    for version, event in events:
        if logged is None:
            logged = start(version, event)
        else:
            apply(logged, version, event)
    if logged is None:
        raise InvalidLog(1, "the log is empty")
    return logged


def require_complete(logged: LoggedGame) -> None:
    """Refuse a log that stops where the rules still owe events: after a move whose
    consequences are missing, or after a scored round whose next deal is missing."""
    if logged.pending:
        owed = event_type(logged.pending[0])
        raise InvalidLog(logged.version + 1, f"the log ends where the rules derive {owed} {_show(logged.pending[0])}")
    if logged.game.status == "dealing":
        raise InvalidLog(logged.version + 1, f"the log ends before round {logged.game.round} is dealt")


def advance(logged: LoggedGame, events: Iterable[tuple[int, Event]]) -> LoggedGame:
    """`logged` brought forward by newer events, checking each; `logged` is not changed."""
    after = logged.copy()
    for version, event in events:
        apply(after, version, event)
    return after
