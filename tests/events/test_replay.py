"""Rebuilding a game from its log, and naming the first event of a log that lies."""

import pytest

from events.play import move
from events.poison.schema import GameCreated
from events.replay import InvalidLog, advance, rebuild
from tests.events.logs import game_log, numbered


def test_advancing_a_rebuilt_game_by_newer_events_equals_rebuilding_all():
    log, _ = game_log(4, seed=11)
    half = rebuild(numbered(log)[:90])
    whole = advance(half, numbered(log)[90:])
    assert half.version == 90
    assert whole.game.view() == rebuild(numbered(log)).game.view()


def test_moves_after_the_end_are_refused_by_the_rules():
    _, logged = game_log(3, seed=12, rounds=1)
    with pytest.raises(Exception, match="finished"):
        move(logged, 0, "R1", 0)


LOG, _ = game_log(4, seed=13)


def test_a_log_with_a_gap_in_its_versions_is_refused():
    numbers = numbered(LOG)
    with pytest.raises(InvalidLog) as refused:
        rebuild([*numbers[:5], *numbers[6:]])
    assert refused.value.at_version == 7
    assert "expected event 6" in refused.value.reason


def test_a_log_must_start_with_its_creation():
    with pytest.raises(InvalidLog) as refused:
        rebuild(numbered(LOG[1:]))
    assert (refused.value.at_version, "starts with game_created" in refused.value.reason) == (1, True)
    with pytest.raises(InvalidLog):
        rebuild([])


@pytest.mark.parametrize(
    ("players", "says"),
    [((0, 1), "3 to 6 players"), ((0, 2, 1), "seats 0, 1, 2"), ((0, 1, 2, 3, 4, 5, 6), "3 to 6 players")],
)
def test_a_creation_the_rules_cannot_play_is_refused(players, says):
    created = LOG[0]
    from events.poison.schema import Player

    bad = GameCreated(game_id="g", players=tuple(Player(seat=s, name=f"p{s}") for s in players), rounds=3)
    with pytest.raises(InvalidLog, match=says):
        rebuild([(1, bad)])
    assert created.game_id == "g-test"


def test_a_log_naming_an_unknown_bot_is_refused():
    from events.poison.schema import Player

    bad = GameCreated(game_id="g", players=(Player(seat=0, name="a", bot="oracle"), *LOG[0].players[1:]), rounds=4)
    with pytest.raises(InvalidLog, match="no bot of ours"):
        rebuild([(1, bad)])
