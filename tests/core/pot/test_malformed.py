"""Malformed input to the pot game's core is a RuleError, never a crash (issue 18).

tests/core/pot/malformed.py feeds `replay`, `simulate`, `seeded_deal`, `Game(players, seed=,
deal=)`, `Game.deal`, `Game.play`, `Game.check`, `Game.choose` (and `hand`, `view`) every
wrong shape: moves that are no list, entries short, long, nested, lists instead of tuples,
None, seats, cards and closes of every wrong type and range; deals that are no triple, with
wrong hands, pot card or pile, cards missing or doubled, each as a tuple, a PotDeal and a
list. It prints one outcome per case and runs in a subprocess (with `printed_by_both`
of tests/core/test_malformed.py): a segmentation fault of the compiled core fails these tests,
naming the case, instead of killing pytest. Controls, right inputs next to the wrong ones,
must be accepted with the same result by both implementations.
"""

import pytest

from tests.core.test_malformed import printed_by_both

CONTROL = "control: "


@pytest.fixture(scope="module")
def outcomes():
    return printed_by_both("tests.core.pot.malformed")


def malformed(cases: dict[str, str]) -> dict[str, str]:
    return {name: outcome for name, outcome in cases.items() if not name.startswith(CONTROL)}


def controls(cases: dict[str, str]) -> dict[str, str]:
    return {name: outcome for name, outcome in cases.items() if name.startswith(CONTROL)}


def test_every_malformed_input_is_a_rule_error_in_both_implementations(outcomes):
    for implementation, cases in outcomes.items():
        assert len(malformed(cases)) > 2500
        wrong = {
            name: outcome
            for name, outcome in malformed(cases).items()
            if not outcome.startswith(("raised ", "reported "))
        }
        assert not wrong, f"{implementation}: {wrong}"


def test_engine_and_reference_refuse_malformed_input_alike(outcomes):
    engine, reference = outcomes["engine"], outcomes["reference"]
    assert engine.keys() == reference.keys()
    differ = {name: (engine[name], reference[name]) for name in malformed(engine) if engine[name] != reference[name]}
    assert not differ


def test_right_inputs_next_to_the_wrong_ones_are_accepted(outcomes):
    for implementation, cases in outcomes.items():
        assert len(controls(cases)) > 40
        refused = {name: outcome for name, outcome in controls(cases).items() if not outcome.startswith("accepted: ")}
        assert not refused, f"{implementation}: {refused}"


def test_right_inputs_give_the_same_result_in_both_implementations(outcomes):
    engine, reference = outcomes["engine"], outcomes["reference"]
    differ = {
        name: (engine[name], reference[name])
        for name in controls(engine)
        if "int subclass" not in name and "int-subclass" not in name and engine[name] != reference[name]
    }
    assert not differ


def test_a_seat_of_an_int_subclass_gives_the_same_result_in_both_implementations(outcomes):
    engine, reference = outcomes["engine"], outcomes["reference"]
    subclassed = [name for name in controls(engine) if "int subclass" in name or "int-subclass" in name]
    assert len(subclassed) == 3
    assert {name: engine[name] for name in subclassed} == {name: reference[name] for name in subclassed}


def test_the_cases_cover_every_function_and_kind_of_shape(outcomes):
    cases = outcomes["engine"]
    names = " ".join(cases)
    for function in (
        "replay(",
        "simulate(",
        "seeded_deal(",
        "Game(2, deal=",
        "Game(6).deal(",
        "game.play(",
        "game.check(",
        "game.choose(",
        "game.hand(",
        "game.view(",
    ):
        assert function in names
    for shape in (
        "as a PotDeal",
        "as a list",
        "as a tuple",
        "one hand short",
        "a hand a card long",
        "draw_pile a card short",
        "another kind",
        "nested",
        ", a list)",
        "a pair",
        "a quadruple",
        "seat 2**70",
        "seat -1",
        "seat True",
        "close 1",
        "close 0",
        "close 'yes'",
        "card 'T9'",
        "card 't3'",
        "card 'T'",
        "card 'T33'",
        "card b'T3'",
        "card None",
        "bots unknown",
        "first -1",
    ):
        assert shape in names, shape
    for state in ("dealing", "active", "endgame", "finished"):
        assert f"{state} game.play(" in names
    # An error of the rules reported on the last recorded move, and on the one after it:
    # where the compiled face reads back the move the C loop stopped at.
    assert cases["replay(move last is None)"].startswith("reported invalid_move at move 39:")
    assert cases["replay(a closing once the pile is empty)"].startswith("reported cannot_close at move 39:")
    assert cases["replay(a move after the end)"].startswith("reported game_finished at move 40:")
    assert cases["replay(illegal at 5, malformed at 20)"].startswith("reported not_your_turn at move 5:")
    assert cases["replay(malformed at 5, illegal at 20)"].startswith("reported unknown_card at move 5:")
