"""Rebuilding a game from its log, and naming the first event of a log that lies."""

import pytest

from core import engine
from events.play import move
from events.replay import InvalidLog, advance, rebuild
from events.schema import CardPlayed, CauldronOverflowed, GameCreated, GameFinished, RoundScored, RoundStarted
from tests.events.logs import game_log, numbered


@pytest.mark.parametrize(("players", "cauldrons"), [(3, "dynamic"), (4, "fixed"), (5, "dynamic"), (6, "dynamic")])
def test_a_whole_log_rebuilds_the_game_it_recorded(players, cauldrons):
    log, played = game_log(players, seed=players, cauldrons=cauldrons)
    rebuilt = rebuild(numbered(log))
    assert rebuilt.version == len(log)
    assert rebuilt.finished
    assert rebuilt.game.round_results() == played.game.round_results()
    assert rebuilt.game.winners == played.game.winners


def test_the_log_agrees_with_an_engine_game_played_with_the_same_seed_and_moves():
    log, _ = game_log(4, seed=10)
    game = engine.Game(4, seed=10)
    for event in log:
        if isinstance(event, CardPlayed):
            assert game.play(event.seat, event.card, event.cauldron).total == event.total
    assert game.totals == log[-1].totals


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


def tampered(log, index, replacement):
    return [*log[:index], replacement, *log[index + 1 :]]


def first_of(log, kind, after=0):
    return next(i for i, event in enumerate(log) if isinstance(event, kind) and i >= after)


LOG, _ = game_log(4, seed=13)


def _tamperings():
    i = first_of(LOG, CardPlayed)
    card = LOG[i]
    o = first_of(LOG, CauldronOverflowed)
    s = first_of(LOG, RoundScored)
    r2 = first_of(LOG, RoundStarted, after=2)
    hands = LOG[1].hands
    swapped = (hands[1], hands[0], *hands[2:])
    return {
        "a card played by the wrong seat": (
            i,
            tampered(
                LOG,
                i,
                CardPlayed(round=1, seat=(card.seat + 1) % 4, card=card.card, cauldron=card.cauldron, total=card.total),
            ),
        ),
        "a wrong total": (
            i,
            tampered(
                LOG,
                i,
                CardPlayed(round=1, seat=card.seat, card=card.card, cauldron=card.cauldron, total=card.total + 1),
            ),
        ),
        "an overflow that took other cards": (
            o,
            tampered(
                LOG,
                o,
                CauldronOverflowed(round=LOG[o].round, seat=LOG[o].seat, cauldron=LOG[o].cauldron, taken=("G4",)),
            ),
        ),
        "an overflow removed": (o, [*LOG[:o], *LOG[o + 1 :]]),
        "an event doubled": (i + 1, [*LOG[: i + 1], LOG[i], *LOG[i + 1 :]]),
        "a score changed": (
            s,
            tampered(LOG, s, RoundScored(round=1, scores=(0, 0, 0, 0), taken=LOG[s].taken, discarded=LOG[s].discarded)),
        ),
        "hands swapped between seats": (
            1,
            tampered(LOG, 1, RoundStarted(round=1, dealer=0, hands=swapped, set_aside=())),
        ),
        "a round dealt by the wrong dealer": (
            r2,
            tampered(LOG, r2, RoundStarted(round=2, dealer=0, hands=LOG[r2].hands, set_aside=())),
        ),
        "a hidden hand": (1, tampered(LOG, 1, RoundStarted(round=1, dealer=0, hands=(None, *hands[1:]), set_aside=()))),
        "a second game_created": (i, tampered(LOG, i, LOG[0])),
        "a game_finished too early": (s + 1, tampered(LOG, s + 1, GameFinished(totals=(0,) * 4, winners=(0,)))),
        "the log cut before its first deal was made twice": (2, [LOG[0], LOG[1], LOG[1], *LOG[2:]]),
    }


@pytest.mark.parametrize("name", list(_tamperings()))
def test_a_tampered_log_is_refused_naming_its_first_bad_event(name):
    index, log = _tamperings()[name]
    with pytest.raises(InvalidLog) as refused:
        rebuild(numbered(log))
    assert refused.value.at_version == index + 1
    assert str(refused.value).startswith(f"event {index + 1}: ")


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
    from events.schema import Player

    bad = GameCreated(game_id="g", players=tuple(Player(seat=s, name=f"p{s}") for s in players), rounds=3)
    with pytest.raises(InvalidLog, match=says):
        rebuild([(1, bad)])
    assert created.game_id == "g-test"


def test_unseeded_logs_replay_from_their_recorded_hands():
    unseeded = [GameCreated(game_id="g", players=LOG[0].players, rounds=4, seed=None), *LOG[1:]]
    assert rebuild(numbered(unseeded)).game.totals == rebuild(numbered(LOG)).game.totals


def test_a_log_naming_an_unknown_bot_is_refused():
    from events.schema import Player

    bad = GameCreated(game_id="g", players=(Player(seat=0, name="a", bot="oracle"), *LOG[0].players[1:]), rounds=4)
    with pytest.raises(InvalidLog, match="no bot of ours"):
        rebuild([(1, bad)])


def test_a_log_that_stops_inside_a_move_is_not_complete():
    from events.replay import require_complete

    whole = rebuild(numbered(LOG))
    require_complete(whole)
    scored = first_of(LOG, RoundScored)
    for cut in (scored, scored + 1, len(LOG) - 1):  # before the scores, before the next deal, before the end
        with pytest.raises(InvalidLog) as refused:
            require_complete(rebuild(numbered(LOG[:cut])))
        assert refused.value.at_version == cut + 1


def test_bot_moves_must_be_the_moves_the_bot_makes():
    from events.play import new_game
    from events.schema import Player, Rules

    seats = (Player(seat=0, name="a"), Player(seat=1, name="b", bot="greedy"), Player(seat=2, name="c"))
    log, _ = new_game("g", seats, rounds=1, rules=Rules(), seed=3)
    assert rebuild(numbered(log)).version == len(log)  # the bot's own first move passes
    index = next(i for i, e in enumerate(log) if isinstance(e, CardPlayed) and e.seat == 1)
    game = rebuild(numbered(log[:index])).game
    other = next(m for m in game.legal_moves() if (m.card, m.cauldron) != (log[index].card, log[index].cauldron))
    forged = CardPlayed(round=1, seat=1, card=other.card, cauldron=other.cauldron, total=log[index].total)
    with pytest.raises(InvalidLog, match="greedy bot"):
        rebuild(numbered([*log[:index], forged]))
