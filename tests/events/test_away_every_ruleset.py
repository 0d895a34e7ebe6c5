"""Logs with away seats rebuild to the game that wrote them, every ruleset: random games
(open seats or not, a clock or not, bots or not) where at random moments the seat to move
times out, any person resigns, a seat that timed out comes back, played through events.play
as the service plays them. Each log rebuilds, by the checked road (events.replay) and by the
store's road (events.restore), to exactly the state events.play reached (the engine's game,
who is away, the status), and so does its public form (export, decode_log, rebuild)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import SEARCH_BOT
from core.rulesets import RULESETS, Ruleset
from events.away import persons_left
from events.codec import Clock, Event, Player, decode_public_line, encode_public, to_public
from events.play import LoggedGame, abandon, come_back, create_game, join, leave, play_move, resign, time_out
from events.replay import decode_log, rebuild, require_complete
from events.restore import restore

EVERY_RULESET = pytest.mark.parametrize("ruleset", list(RULESETS.values()), ids=list(RULESETS))
#: Hypothesis's examples per ruleset: each is a whole game or most of one.
EXAMPLES = 60
#: The most steps (moves and away events) of a drawn game: enough to end most games.
STEPS = 400


def table(ruleset: Ruleset, draw: random.Random) -> tuple[tuple[Player, ...], dict[str, Any]]:
    """A table of the ruleset's size, its bots drawn (never the search bot: its moves cost a
    search each), at least one person, one seat maybe open; and its options drawn."""
    count = draw.randint(*ruleset.players)
    bots = [draw.choice([None, None, *ruleset.bots]) for _ in range(count)]
    bots[draw.randrange(count)] = None
    seated = [Player(seat=seat, name=f"p{seat}", bot=bot) for seat, bot in enumerate(bots)]
    people = [player.seat for player in seated if player.bot is None]
    if len(people) > 1 and draw.random() < 0.3:
        opened = draw.choice(people[1:])
        seated[opened] = Player(seat=opened)
    options: dict[str, Any] = {}
    for option in ruleset.options:
        if option.bounds is not None:
            options[option.name] = draw.randint(option.bounds[0], min(option.bounds[1], 2))
        elif option.choices:
            options[option.name] = draw.choice(option.choices)
    return tuple(seated), options


def away_bots(ruleset: Ruleset) -> list[str]:
    return [bot for bot in ruleset.engine_bots if bot != SEARCH_BOT]


def played(ruleset: Ruleset, seed: int) -> tuple[list[Event], LoggedGame]:
    """A game drawn from `seed` and played through events.play at random, with seats
    timing out, resigning and coming back, up to a random point or its end."""
    draw = random.Random(seed)
    players, options = table(ruleset, draw)
    clock = Clock(seconds_per_move=draw.randint(1, 86_400)) if draw.random() < 0.8 else None
    log, logged = create_game(ruleset.name, f"g{seed}", players, seed=seed, options=options, clock=clock)
    log = list(log)
    bots = away_bots(ruleset)
    if logged.waiting:
        opened = next(player.seat for player in players if player.name is None)
        roll = draw.random()
        if roll < 0.1:
            caused, logged = abandon(logged)  # it waited too long
            return log + caused, logged
        if roll < 0.2:  # its first person leaves (maybe the last: abandoned) and comes back
            first = next(player.seat for player in players if player.name is not None and player.bot is None)
            caused, logged = leave(logged, first)
            log += caused
            if logged.over:
                return log, logged
            caused, logged = join(logged, first, "back")
            log += caused
        caused, logged = join(logged, opened, "joiner")
        log += caused
    for _ in range(draw.randint(0, STEPS)):
        if logged.over:
            break
        step = random_step(logged, draw, bots)
        caused, logged = step(logged)
        log += caused
    return log, logged


def random_step(logged: LoggedGame, draw: random.Random, bots: list[str]) -> Any:
    """One of what a live game may do next, drawn: mostly a move by the seat to move."""
    turn = logged.game.turn
    players = logged.created.players
    away = logged.away
    people = [p.seat for p in players if p.bot is None]
    timed_out = [s for s in people if away is not None and away.bot_of(s) is not None and s not in away.resigned]
    resignable = [s for s in people if away is None or s not in away.resigned]
    roll = draw.random()
    if roll < 0.04 and logged.clock is not None and turn in persons_left(logged):
        bot = draw.choice(bots)
        return lambda g: time_out(g, turn, bot)
    if roll < 0.06 and resignable:
        seat = draw.choice(resignable)
        playing = away.bot_of(seat) if away is not None else None
        bot = playing or draw.choice(bots)
        return lambda g: resign(g, seat, bot)
    if roll < 0.09 and timed_out:
        seat = draw.choice(timed_out)
        return lambda g: come_back(g, seat)
    move = tuple(draw.choice(logged.game.legal_moves()))
    return lambda g: play_move(g, turn, move)


def state(logged: LoggedGame) -> list[Any]:
    """What a game is, hidden parts included: its log's facts (creation, version, owed
    events, lobby, who is away, status) and everything its engine shows to each seat."""
    game = logged.game
    seats = range(len(logged.created.players))
    shown: list[Any] = [logged.created, logged.version, logged.pending, logged.lobby, logged.next_game]
    shown += [logged.away, logged.status, game.status, game.turn, game.view(), tuple(game.legal_moves())]
    shown += [game.view(seat) for seat in seats] + [game.hand(seat) for seat in seats]
    for hidden in ("results", "set_aside", "draw_order"):
        if hasattr(game, hidden):
            shown.append(getattr(game, hidden)())
    return shown


def numbered(log: list[Event]) -> list[tuple[int, Event]]:
    return list(enumerate(log, start=1))


def exported(log: list[Event]) -> list[tuple[int, Event]]:
    """The log as an export writes it (NDJSON lines of public events) and a replay reads it."""
    lines = [encode_public(to_public(version, event)) for version, event in numbered(log)]
    return decode_log([decode_public_line(line) for line in lines])


@EVERY_RULESET
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_a_log_with_away_seats_rebuilds_on_every_road_to_the_game_that_wrote_it(ruleset: Ruleset, seed: int) -> None:
    log, logged = played(ruleset, seed)
    expected = state(logged)
    checked = rebuild(numbered(log))
    require_complete(checked)
    assert state(checked) == expected
    assert state(restore(numbered(log))) == expected
    assert state(rebuild(exported(log))) == expected


@EVERY_RULESET
def test_the_drawn_games_hold_every_away_event_and_every_end(ruleset: Ruleset) -> None:
    # The property above is only as good as its games: they time out, resign, come back,
    # and end finished, abandoned while playing and abandoned while waiting.
    kinds: set[str] = set()
    ends: set[tuple[str, bool]] = set()
    for seed in range(120):
        log, logged = played(ruleset, seed)
        kinds |= {type(event).__name__ for event in log}
        ends.add((logged.status, logged.lobby is not None))
    assert {"SeatTimedOut", "SeatResigned", "SeatReturned", "GameAbandoned", "SeatJoined"} <= kinds
    assert {("finished", False), ("abandoned", False), ("abandoned", True), ("active", False)} <= ends
