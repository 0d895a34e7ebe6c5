"""The away seats' rules (events/away.py) and replay's judgement of their events
(events/replay.py), both rulesets: every refusal reachable, live and in a replayed log, each
named by its code and its version, and worded so that a reader knows what was wrong."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest

from core.errors import InvalidArgument, MoveConflict, RuleError
from events.codec import (
    Clock,
    Event,
    GameAbandoned,
    GameStarted,
    Player,
    RematchCreated,
    SeatJoined,
    SeatResigned,
    SeatReturned,
    SeatTimedOut,
)
from events.play import (
    LoggedGame,
    abandon,
    come_back,
    create_game,
    join,
    leave,
    play_move,
    rematch_created,
    resign,
    time_out,
)
from events.replay import InvalidLog, rebuild, require_complete

OPTIONS = {"poison": {"rounds": 1, "cauldrons": "dynamic"}, "pot": {}}
EVERY = pytest.mark.parametrize("ruleset", list(OPTIONS))
#: Two people and a bot: the bot's seat is 2.
TABLE = (Player(seat=0, name="ann"), Player(seat=1, name="bea"), Player(seat=2, name="robo", bot="random"))
MINUTE = Clock(seconds_per_move=60)
#: A move of each ruleset's form, whatever the game (judged, here, only after who may move).
A_MOVE: dict[str, tuple[Any, ...]] = {"poison": ("R1", 0), "pot": ("T1", False)}


def clocked(ruleset: str, *, clock: Clock | None = MINUTE, players: tuple[Player, ...] = TABLE) -> Game:
    events, logged = create_game(ruleset, "g", players, seed=5, options=OPTIONS[ruleset], clock=clock)
    return Game(list(events), logged)


class Game:
    """A log and the game it makes, stepped on by the live functions of events.play."""

    def __init__(self, log: list[Event], logged: LoggedGame) -> None:
        self.log = log
        self.logged = logged

    def step(self, do: Callable[..., tuple[list[Event], LoggedGame]], *args: Any) -> Game:
        caused, after = do(self.logged, *args)
        return Game([*self.log, *caused], after)

    def move(self) -> Game:
        return self.step(play_move, self.logged.game.turn, tuple(self.logged.game.legal_moves()[0]))

    @property
    def turn(self) -> int:
        return self.logged.game.turn

    def numbered(self, *more: Event) -> list[tuple[int, Event]]:
        return list(enumerate([*self.log, *more], start=1))


def refusal(step: Callable[[], object]) -> tuple[type[RuleError], str, str]:
    with pytest.raises(RuleError) as refused:
        step()
    return type(refused.value), refused.value.code, str(refused.value)


def replay_refusal(events: list[tuple[int, Event]]) -> tuple[int, str]:
    with pytest.raises(InvalidLog) as refused:
        require_complete(rebuild(events))
    return refused.value.at_version, refused.value.reason


def last(game: Game) -> int:
    """The version of the event that would follow `game`'s log."""
    return len(game.log) + 1


# ---- timing out ---------------------------------------------------------------------------


@EVERY
def test_only_the_seat_to_move_times_out_and_its_bot_moves_at_once(ruleset: str) -> None:
    game = clocked(ruleset)
    mover = game.turn
    assert game.logged.created.players[mover].bot is None
    after = game.step(time_out, mover, "greedy")
    assert after.log[len(game.log)] == SeatTimedOut(seat=mover, bot="greedy")
    assert isinstance(after.log[len(game.log) + 1], after.logged.rules.played_type)
    assert after.logged.away is not None
    assert after.logged.away.bot_of(mover) == "greedy"
    assert after.logged.game.turn != mover  # played by its bot, the turn went on
    other = next(p.seat for p in TABLE if p.bot is None and p.seat != mover)
    kind, code, words = refusal(lambda: time_out(game.logged, other, "greedy"))
    assert (kind, code) == (MoveConflict, "not_your_turn")
    assert f"seat {other} is not to move" in words
    at, reason = replay_refusal(game.numbered(SeatTimedOut(seat=other, bot="greedy")))
    assert at == last(game)
    assert "seat_timed_out" in reason
    assert "not to move" in reason
    assert "(not_your_turn)" in reason


@EVERY
def test_a_bots_seat_never_times_out(ruleset: str) -> None:
    players = (Player(seat=0, name="robo", bot="greedy"), Player(seat=1, name="ann"), Player(seat=2, name="bea"))
    game = clocked(ruleset, players=players)
    kind, code, words = refusal(lambda: time_out(game.logged, 0, "greedy"))
    assert (kind, code) == (InvalidArgument, "seat_of_bot")
    assert "greedy bot's" in words
    # A bot's seat with the turn exists only in a log out of step: its bot moves first.
    at, reason = replay_refusal([*enumerate(game.log[:2], start=1), (3, SeatTimedOut(seat=0, bot="greedy"))])
    assert at == 3
    assert "seat_timed_out" in reason
    at, reason = replay_refusal(game.numbered(SeatTimedOut(seat=0, bot="greedy")))
    assert at == last(game)
    assert "robo" not in reason
    assert "greedy bot's" in reason
    assert "(seat_of_bot)" in reason


@EVERY
def test_a_game_without_a_clock_has_no_seat_that_times_out(ruleset: str) -> None:
    game = clocked(ruleset, clock=None)
    assert refusal(lambda: time_out(game.logged, game.turn, "greedy"))[:2] == (MoveConflict, "no_clock")
    at, reason = replay_refusal(game.numbered(SeatTimedOut(seat=game.turn, bot="greedy")))
    assert at == last(game)
    assert "no clock" in reason
    assert "(no_clock)" in reason


@EVERY
def test_a_waiting_game_has_nobody_to_time_out_resign_or_return(ruleset: str) -> None:
    players = (Player(seat=0, name="ann"), Player(seat=1), Player(seat=2, name="robo", bot="random"))
    game = clocked(ruleset, players=players)
    assert game.logged.waiting
    for step in (lambda: time_out(game.logged, 0, "greedy"), lambda: resign(game.logged, 0, "greedy")):
        kind, code, words = refusal(step)
        assert (kind, code) == (MoveConflict, "game_waiting")
        assert "waits for its open seats" in words
    assert refusal(lambda: come_back(game.logged, 0))[1] == "game_waiting"
    for event in (SeatTimedOut(seat=0, bot="greedy"), SeatResigned(seat=0, bot="greedy"), SeatReturned(seat=0)):
        at, reason = replay_refusal(game.numbered(event))
        assert at == 2
        assert "(game_waiting)" in reason


@EVERY
def test_a_seat_times_out_once_its_bot_then_plays_it(ruleset: str) -> None:
    game = clocked(ruleset)
    mover = game.turn
    twice = game.numbered(SeatTimedOut(seat=mover, bot="greedy"), SeatTimedOut(seat=mover, bot="greedy"))
    at, reason = replay_refusal(twice)
    assert at == last(game) + 1
    assert f"seat {mover}'s bot moves here" in reason
    assert "(not_your_turn)" in reason
    after = game.step(time_out, mover, "greedy")
    # Once its bot has moved, the seat is never to move again while it is away.
    for _ in range(3):
        assert after.turn != mover
        assert refusal(functools.partial(time_out, after.logged, mover, "greedy"))[1] == "not_your_turn"
        after = after.move()


@EVERY
def test_the_bot_that_takes_a_seat_is_one_of_the_games_and_never_the_search_bot(ruleset: str) -> None:
    game = clocked(ruleset)
    kind, code, words = refusal(lambda: time_out(game.logged, game.turn, "mcts"))
    assert (kind, code) == (InvalidArgument, "invalid_bot")
    assert "budget of playouts" in words
    kind, code, words = refusal(lambda: resign(game.logged, game.turn, "nobody"))
    assert (kind, code) == (InvalidArgument, "invalid_bot")
    assert "'nobody' is no bot of this game" in words
    at, reason = replay_refusal(game.numbered(SeatTimedOut(seat=game.turn, bot="nobody")))
    assert at == last(game)
    assert "(invalid_bot)" in reason


@EVERY
def test_a_seat_beyond_the_table_neither_resigns_nor_returns(ruleset: str) -> None:
    game = clocked(ruleset)
    kind, code, words = refusal(lambda: resign(game.logged, 4, "greedy"))
    assert (kind, code) == (InvalidArgument, "invalid_seat")
    assert "seats 0 to 2, not 4" in words
    at, reason = replay_refusal(game.numbered(SeatReturned(seat=5)))
    assert at == last(game)
    assert "(invalid_seat)" in reason


# ---- resigning and coming back ------------------------------------------------------------


@EVERY
def test_a_seat_that_resigned_never_returns_nor_resigns_again(ruleset: str) -> None:
    game = clocked(ruleset)
    other = next(p.seat for p in TABLE if p.bot is None and p.seat != game.turn)
    gone = game.step(resign, other, "greedy")
    assert gone.logged.away is not None
    assert other in gone.logged.away.resigned
    kind, code, words = refusal(lambda: come_back(gone.logged, other))
    assert (kind, code) == (MoveConflict, "seat_resigned")
    assert "does not come back" in words
    assert refusal(lambda: resign(gone.logged, other, "greedy"))[1:] == (
        "seat_resigned",
        f"seat {other} has resigned already",
    )
    at, reason = replay_refusal(gone.numbered(SeatReturned(seat=other)))
    assert at == last(gone)
    assert "seat_returned" in reason
    assert "(seat_resigned)" in reason
    at, reason = replay_refusal(gone.numbered(SeatResigned(seat=other, bot="greedy")))
    assert "(seat_resigned)" in reason


@EVERY
def test_only_an_away_seat_returns(ruleset: str) -> None:
    game = clocked(ruleset)
    kind, code, words = refusal(lambda: come_back(game.logged, 0))
    assert (kind, code) == (MoveConflict, "seat_not_away")
    assert "seat 0 is not away" in words
    at, reason = replay_refusal(game.numbered(SeatReturned(seat=0)))
    assert at == last(game)
    assert "(seat_not_away)" in reason
    mover = game.turn
    away = game.step(time_out, mover, "greedy")
    back = away.step(come_back, mover)
    assert back.logged.away is not None
    assert back.logged.away.bot_of(mover) is None
    assert rebuild(back.numbered()).away == back.logged.away


@EVERY
def test_a_seat_away_keeps_its_bot_when_it_resigns(ruleset: str) -> None:
    game = clocked(ruleset)
    mover = game.turn
    away = game.step(time_out, mover, "random")
    kind, code, words = refusal(lambda: resign(away.logged, mover, "greedy"))
    assert (kind, code) == (MoveConflict, "seat_away")
    assert "the random bot plays it, not 'greedy'" in words
    at, reason = replay_refusal(away.numbered(SeatResigned(seat=mover, bot="greedy")))
    assert at == last(away)
    assert "(seat_away)" in reason
    resigned = away.step(resign, mover, "random")
    assert resigned.logged.away is not None
    assert resigned.logged.away.bot_of(mover) == "random"


@EVERY
def test_an_away_seat_moves_only_as_its_bot_plays(ruleset: str) -> None:
    game = clocked(ruleset)
    mover = game.turn
    away = game.step(time_out, mover, "greedy")
    assert refusal(lambda: play_move(away.logged, mover, A_MOVE[ruleset]))[1:] == (
        "seat_away",
        f"seat {mover} is away: the greedy bot plays it until its person comes back",
    )
    timed_out = len(game.log)  # the index of seat_timed_out: its bot's move follows
    rules = game.logged.rules
    bots_move = away.log[timed_out + 1]
    assert rules.move_of(bots_move)[0] == mover
    before = rebuild(away.numbered()[: timed_out + 1])
    chosen = tuple(rules.move_of(bots_move)[1])
    other = next(tuple(m) for m in before.game.legal_moves() if tuple(m) != chosen)
    forged = rules.play(before.game.copy(), mover, other)
    at, reason = replay_refusal([*away.numbered()[: timed_out + 1], (timed_out + 2, forged[0])])
    assert at == timed_out + 2
    assert f"seat {mover} is the greedy bot, which plays" in reason


@EVERY
def test_a_game_finished_takes_no_away_event(ruleset: str) -> None:
    game = clocked(ruleset)
    while not game.logged.finished:
        game = game.move()
    for step in (lambda: resign(game.logged, 0, "greedy"), lambda: come_back(game.logged, 0)):
        assert refusal(step)[1] == "game_finished"
    assert refusal(lambda: abandon(game.logged))[1:] == (
        "game_finished",
        "the game is finished: it cannot be abandoned",
    )
    at, reason = replay_refusal(game.numbered(GameAbandoned()))
    assert at == last(game)
    assert "(game_finished)" in reason


# ---- the end nobody is left to play -------------------------------------------------------


@EVERY
def test_the_last_person_away_ends_the_game_abandoned_without_winners(ruleset: str) -> None:
    game = clocked(ruleset)
    other = next(p.seat for p in TABLE if p.bot is None and p.seat != game.turn)
    first = game.step(resign, other, "greedy")
    assert first.logged.status == "active"
    end = first.step(time_out, first.turn, "greedy")
    assert end.log[-2:] == [SeatTimedOut(seat=first.turn, bot="greedy"), GameAbandoned()]
    assert end.logged.status == "abandoned"
    assert end.logged.over
    assert not end.logged.finished  # no game_finished: nobody won
    rebuilt = rebuild(end.numbered())
    require_complete(rebuilt)
    assert (rebuilt.status, rebuilt.away) == ("abandoned", end.logged.away)


@EVERY
def test_nothing_follows_game_abandoned(ruleset: str) -> None:
    game = clocked(ruleset)
    for seat in (0, 1):
        game = game.step(resign, seat, "greedy")
    assert game.logged.abandoned
    for step in (
        lambda: play_move(game.logged, 2, A_MOVE[ruleset]),
        lambda: resign(game.logged, 0, "greedy"),
        lambda: come_back(game.logged, 0),
        lambda: abandon(game.logged),
        lambda: rematch_created(game.logged, "g-2"),  # it ended without a result: nobody plays it again
    ):
        assert refusal(step)[1] == "game_abandoned"
    for event in (SeatReturned(seat=0), GameAbandoned(), game.log[-2], RematchCreated(game_id="g-2")):
        at, reason = replay_refusal(game.numbered(event))
        assert at == last(game)
        assert reason.endswith("after the game was abandoned")


@EVERY
def test_a_game_is_not_abandoned_while_a_person_is_left(ruleset: str) -> None:
    game = clocked(ruleset)
    kind, code, words = refusal(lambda: abandon(game.logged))
    assert (kind, code) == (MoveConflict, "game_active")
    assert words == "seats 0, 1 are still played by their persons"
    at, reason = replay_refusal(game.numbered(GameAbandoned()))
    assert at == last(game)
    assert "game_abandoned" in reason
    assert "(game_active)" in reason


@EVERY
def test_a_table_of_bots_only_is_never_abandoned(ruleset: str) -> None:
    # Nobody sits at it to go away: its bots play it to its end at once, so no log of ours
    # has its game_abandoned, after the creation or after any of its moves.
    bots = tuple(Player(seat=seat, name=f"robo{seat}", bot="random") for seat in range(3))
    game = clocked(ruleset, players=bots)
    assert game.logged.finished
    for cut in (1, 2):  # after game_created, and after the first deal (a bot to move)
        at, reason = replay_refusal([*game.numbered()[:cut], (cut + 1, GameAbandoned())])
        assert at == cut + 1
        assert reason.startswith("game_abandoned:")
        assert "(game_active)" in reason


@EVERY
def test_a_log_that_stops_where_game_abandoned_is_owed_is_incomplete(ruleset: str) -> None:
    game = clocked(ruleset)
    for seat in (0, 1):
        game = game.step(resign, seat, "greedy")
    assert isinstance(game.log[-1], GameAbandoned)
    cut = game.numbered()[:-1]
    rebuild(cut)  # every event of it is allowed
    at, reason = replay_refusal(cut)
    assert at == len(game.log)
    assert reason == "the log ends where the rules derive game_abandoned {}"
    # And the owed end is the only event that may come next.
    at, reason = replay_refusal([*cut, (len(game.log), SeatReturned(seat=0))])
    assert at == len(game.log)
    assert "the rules derive game_abandoned {} here, not seat_returned" in reason


@EVERY
def test_an_away_event_before_the_owed_game_started_is_refused(ruleset: str) -> None:
    players = (Player(seat=0, name="ann"), Player(seat=1), Player(seat=2, name="robo", bot="random"))
    game = clocked(ruleset, players=players)
    events = [*game.numbered(), (2, SeatJoined(seat=1, name="bea")), (3, SeatResigned(seat=0, bot="greedy"))]
    at, reason = replay_refusal(events)
    assert at == 3
    assert "the lobby derives game_started here, not seat_resigned" in reason
    assert isinstance(game.step(join, 1, "bea").log[2], GameStarted)


@EVERY
def test_no_seat_resigns_between_game_created_and_the_first_deal(ruleset: str) -> None:
    # Live, the first deal is in the very step of the creation: no request finds it undealt.
    game = clocked(ruleset)
    at, reason = replay_refusal([*game.numbered()[:1], (2, SeatResigned(seat=0, bot="greedy"))])
    assert at == 2
    assert reason.startswith("seat_resigned:")
    assert "until the next deal" in reason


def test_no_seat_goes_away_or_comes_back_between_a_round_scored_and_the_next_deal() -> None:
    # Live, the next deal is in the very step of the move that ends a round: no request
    # finds a game between rounds, so no log of ours has an away event there.
    options = {"rounds": 2, "cauldrons": "dynamic"}
    events, logged = create_game("poison", "g", TABLE, seed=5, options=options, clock=MINUTE)
    game = Game(list(events), logged).step(time_out, logged.game.turn, "greedy")
    while sum(isinstance(event, logged.rules.deal_type) for event in game.log) < 2:
        game = game.move()
    second_deal = max(i for i, event in enumerate(game.log) if isinstance(event, logged.rules.deal_type))
    away_seat = next(seat for seat, _ in game.logged.away.bots)
    person = next(p.seat for p in TABLE if p.bot is None and p.seat != away_seat)
    for kind, event in (
        ("seat_resigned", SeatResigned(seat=person, bot="greedy")),
        ("seat_returned", SeatReturned(seat=away_seat)),
    ):
        at, reason = replay_refusal([*game.numbered()[:second_deal], (second_deal + 1, event)])
        assert at == second_deal + 1
        assert reason.startswith(f"{kind}:")
        assert "until the next deal" in reason


@EVERY
def test_a_waiting_game_abandoned_takes_no_join_nor_leave(ruleset: str) -> None:
    # The service abandons a game that waited too long: no seat of it is taken or left after.
    players = (Player(seat=0, name="ann"), Player(seat=1), Player(seat=2, name="robo", bot="random"))
    game = clocked(ruleset, players=players).step(abandon)
    assert game.logged.status == "abandoned"
    for step in (lambda: join(game.logged, 1, "bea"), lambda: leave(game.logged, 0)):
        kind, code, words = refusal(step)
        assert (kind, code) == (MoveConflict, "game_started")
        assert "abandoned" in words
    at, reason = replay_refusal(game.numbered(SeatJoined(seat=1, name="bea")))
    assert at == last(game)
    assert reason == "seat_joined after the game was abandoned"


@EVERY
def test_a_move_in_a_finished_game_is_refused_as_finished_even_from_a_seat_that_was_away(ruleset: str) -> None:
    game = clocked(ruleset)
    mover = game.turn
    game = game.step(time_out, mover, "greedy")
    while not game.logged.finished:
        game = game.move()
    kind, code, words = refusal(lambda: play_move(game.logged, mover, A_MOVE[ruleset]))
    assert (kind, code) == (MoveConflict, "game_finished")
    assert "come back" not in words
