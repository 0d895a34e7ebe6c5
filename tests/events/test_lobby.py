"""The lobby's rules (events/lobby.py) and replay's judgement of lobby events, both rulesets:
who may join, leave or start, and every tampered lobby log refused at its version."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from core.errors import InvalidArgument, MoveConflict, RuleError
from events.codec import GameStarted, Player, RematchCreated, SeatJoined, SeatLeft
from events.lobby import Lobby, check_seating, joined, left, lobby_of, started
from events.play import create_game, join, leave, move, rematch_created
from events.replay import InvalidLog, rebuild, require_complete

TABLE = (Player(seat=0, name="ann"), Player(seat=1), Player(seat=2, name="robo", bot="random"), Player(seat=3))
OPTIONS = {"poison": {"rounds": 1, "cauldrons": "dynamic"}, "pot": {}}


def test_a_fully_seated_game_has_no_lobby_and_a_seat_left_open_makes_one() -> None:
    assert lobby_of(tuple(Player(seat=s, name=f"p{s}") for s in range(3))) is None
    lobby = lobby_of(TABLE)
    assert lobby is not None
    assert lobby.open_seats == (1, 3)
    assert lobby.waiting
    assert not lobby.abandoned


def refusal(step: Callable[[], object]) -> tuple[type[RuleError], str]:
    """The kind and the code of the refusal `step` raises."""
    with pytest.raises(RuleError) as refused:
        step()
    return type(refused.value), refused.value.code


def test_a_join_takes_only_an_open_seat_under_a_name_nobody_has() -> None:
    lobby = Lobby(TABLE)
    assert refusal(lambda: joined(lobby, 0, "bea")) == (MoveConflict, "seat_taken")
    assert refusal(lambda: joined(lobby, 2, "bea")) == (MoveConflict, "seat_taken")  # a bot's
    assert refusal(lambda: joined(lobby, 1, "ann")) == (InvalidArgument, "name_taken")
    assert refusal(lambda: joined(lobby, 4, "bea")) == (MoveConflict, "seat_taken")  # beyond the table
    assert joined(lobby, 1, "bea").open_seats == (3,)


def test_a_game_starts_only_once_no_seat_is_open_and_then_refuses_joins_and_leaves() -> None:
    lobby = joined(Lobby(TABLE), 1, "bea")
    assert refusal(lambda: started(lobby)) == (MoveConflict, "game_started")
    begun = started(joined(lobby, 3, "cal"))
    assert not begun.waiting
    for refused in (lambda: joined(begun, 1, "dee"), lambda: left(begun, 0), lambda: started(begun)):
        assert refusal(refused) == (MoveConflict, "game_started")


def test_when_every_person_has_left_the_game_is_abandoned_and_refuses_joins() -> None:
    lobby = left(Lobby(TABLE), 0)
    assert lobby.abandoned
    with pytest.raises(MoveConflict) as refused:
        joined(lobby, 1, "bea")
    assert refused.value.code == "game_started"
    assert "abandoned" in str(refused.value)
    with pytest.raises(MoveConflict):
        left(Lobby(TABLE), 1)  # nobody sits at an open seat
    with pytest.raises(InvalidArgument):
        left(Lobby(TABLE), 2)  # a bot's seat


def test_an_open_seat_is_never_a_bots_and_names_stay_unique() -> None:
    assert check_seating(TABLE) is None
    assert "bot" in (check_seating((Player(seat=0, name="a"), Player(seat=1, bot="random"))) or "")
    assert "unique" in (check_seating((Player(seat=0, name="a"), Player(seat=1, name="a"))) or "")


def lobby_log(ruleset: str) -> list:
    """A whole lobby's log: created, joined, left, joined twice (the last starts and deals)."""
    events, logged = create_game(ruleset, "g", TABLE, seed=9, options=OPTIONS[ruleset])
    for step in (
        lambda g: join(g, 1, "bea"),
        lambda g: leave(g, 1),
        lambda g: join(g, 3, "cal"),
        lambda g: join(g, 1, "dee"),
    ):
        more, logged = step(logged)
        events += more
    return events


@pytest.mark.parametrize("ruleset", ["poison", "pot"])
def test_replay_accepts_the_lobbys_log_and_rebuilds_who_sits_where(ruleset: str) -> None:
    events = lobby_log(ruleset)
    logged = rebuild(enumerate(events, start=1))
    require_complete(logged)
    assert logged.status == "active"
    assert [p.name for p in logged.players] == ["ann", "dee", "robo", "cal"]
    assert [type(e).__name__ for e in events[1:6]] == [
        "SeatJoined",
        "SeatLeft",
        "SeatJoined",
        "SeatJoined",
        "GameStarted",
    ]
    waiting = rebuild(enumerate(events[:3], start=1))
    require_complete(waiting)  # a waiting game's log is complete: nothing is due
    assert waiting.status == "waiting"


def refused_at(events: list) -> int:
    with pytest.raises(InvalidLog) as refused:
        require_complete(rebuild(enumerate(events, start=1)))
    return refused.value.at_version


@pytest.mark.parametrize("ruleset", ["poison", "pot"])
def test_replay_refuses_each_tampered_lobby_log_at_its_version(ruleset: str) -> None:
    events = lobby_log(ruleset)  # 1 created, 2 joined, 3 left, 4 joined, 5 joined, 6 started, 7 deal
    assert refused_at([*events[:2], SeatJoined(seat=1, name="eve")]) == 3  # a seat joined twice
    assert refused_at([events[0], SeatJoined(seat=0, name="eve")]) == 2  # a seat that is not open
    assert refused_at([events[0], SeatJoined(seat=1, name="ann")]) == 2  # a name at the table
    assert refused_at([events[0], events[6]]) == 2  # a deal before game_started
    assert refused_at([events[0], GameStarted()]) == 2  # started with open seats
    assert refused_at([*events[:5], events[6]]) == 6  # every seat taken: game_started is due first
    assert refused_at([*events[:5], SeatLeft(seat=1)]) == 6  # nor a leave
    assert refused_at(events[:5]) == 6  # and the log may not end before it
    assert refused_at(events[:6]) == 7  # nor before the first deal
    assert refused_at([*events[:7], SeatLeft(seat=0)]) == 8  # a leave after the start
    assert refused_at([*events[:7], RematchCreated(game_id="next")]) == 8  # a rematch before the end


def test_replay_takes_rematch_created_once_right_after_game_finished() -> None:
    players = tuple(Player(seat=s, name=f"b{s}", bot="greedy") for s in range(3))
    events, logged = create_game("poison", "g", players, seed=3, options=OPTIONS["poison"])
    assert logged.finished
    named, after = rematch_created(logged, "next")
    assert after.next_game == "next"
    whole = [*events, *named]
    assert rebuild(enumerate(whole, start=1)).next_game == "next"
    assert refused_at([*whole, RematchCreated(game_id="again")]) == len(whole) + 1
    with pytest.raises(MoveConflict):
        rematch_created(after, "again")


def test_a_move_in_a_waiting_game_is_nobodys_turn() -> None:
    _, logged = create_game("poison", "g", TABLE, seed=1, options=OPTIONS["poison"])
    with pytest.raises(MoveConflict) as refused:
        move(logged, 0, "R1", 0)
    assert refused.value.code == "not_your_turn"
