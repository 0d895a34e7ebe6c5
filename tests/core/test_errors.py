"""Bad input to the engine's Python API: a specific error, and nothing changed."""

import pytest

from core.errors import IllegalMove, InvalidArgument, RuleError
from tests.core.scripted import rigged_deal


def finished_game(rules):
    game = rules.Game(3, rounds=1, seed=30)
    while game.status != "finished":
        game.play(game.turn, *game.legal_moves()[0])
    return game


def snapshot(game):
    return (
        game.status,
        game.round,
        game.turn,
        game.cauldrons,
        game.hand_sizes,
        game.pile_sizes,
        [game.hand(s) for s in range(game.players)],
        [game.taken(s) for s in range(game.players)],
        game.results(),
        game.totals,
    )


@pytest.mark.parametrize(
    ("seat", "card", "cauldron", "code"),
    [
        (-1, "R1", 0, "seat_out_of_range"),
        (4, "R1", 0, "seat_out_of_range"),
        (99, "R1", 0, "seat_out_of_range"),
        ("1", "R1", 0, "seat_out_of_range"),
        (None, "R1", 0, "seat_out_of_range"),
        (1, "R9", 0, "unknown_card"),
        (1, b"R1", 0, "unknown_card"),
        (1, "R1", -1, "cauldron_out_of_range"),
        (1, "R1", 3, "cauldron_out_of_range"),
        (1, "R1", 1.0, "cauldron_out_of_range"),
        (1, "R1", "0", "cauldron_out_of_range"),
        (9, "XX", 9, "seat_out_of_range"),  # the first failing check is named
        (1, "XX", 9, "unknown_card"),
    ],
)
def test_malformed_moves_are_refused_with_their_reason_and_change_nothing(rules, seat, card, cauldron, code):
    game = rules.Game(4, seed=31)
    before = snapshot(game)
    for attempt in (game.check, game.play):
        with pytest.raises(InvalidArgument) as refused:
            attempt(seat, card, cauldron)
        assert refused.value.code == code
        assert str(refused.value)
    assert snapshot(game) == before


def test_the_rules_refusals_are_illegal_moves_with_their_reason(rules):
    game = rules.Game(4, seed=32)
    other = (game.turn + 1) % 4
    with pytest.raises(IllegalMove) as refused:
        game.play(other, game.hand(other)[0], 0)
    assert refused.value.code == "not_your_turn"
    assert "seat 1's turn" in str(refused.value)


def test_a_move_after_the_end_is_refused_as_game_finished(rules):
    game = finished_game(rules)
    before = snapshot(game)
    with pytest.raises(IllegalMove) as refused:
        game.play(0, "R1", 0)
    assert refused.value.code == "game_finished"
    with pytest.raises(IllegalMove) as refused:
        game.deal(*rules.seeded_deal(1, 3, 1))
    assert refused.value.code == "game_finished"
    assert game.legal_moves() == ()
    assert snapshot(game) == before


def test_a_legal_looking_move_into_the_wrong_cauldron_says_where_it_must_go(rules):
    game = rules.Game(4, seed=33)
    while True:
        colours = {c.colour: i for i, c in enumerate(game.cauldrons) if c.colour}
        hand = game.hand(game.turn)
        potion = next(
            (card for card in hand if card != "G4" and {"R": "red", "B": "blue", "P": "purple"}[card[0]] in colours),
            None,
        )
        if potion:
            break
        game.play(game.turn, *game.legal_moves()[0])
    home = colours[{"R": "red", "B": "blue", "P": "purple"}[potion[0]]]
    wrong = (home + 1) % 3
    with pytest.raises(IllegalMove) as refused:
        game.play(game.turn, potion, wrong)
    assert refused.value.code == "illegal_cauldron"
    colour = {"R": "red", "B": "blue", "P": "purple"}[potion[0]]
    assert str(refused.value) == f"{potion} must go into cauldron {home}, the {colour} one, not cauldron {wrong}"


def test_a_potion_whose_colour_no_cauldron_has_is_told_which_colourless_ones_take_it(rules):
    # Round 1 of a rigged game: R1 opens cauldron 0 (red), B1 cauldron 1 (blue); P1 may then
    # go only into cauldron 2, the colourless one.
    game = rules.Game(3, deals=[rigged_deal(3, {1: ["R1"], 2: ["B1"], 0: ["P1"]})])
    game.play(1, "R1", 0)
    game.play(2, "B1", 1)
    with pytest.raises(IllegalMove) as refused:
        game.play(0, "P1", 0)
    assert refused.value.code == "illegal_cauldron"
    assert str(refused.value) == (
        "P1 may not go into cauldron 0, the red one: no cauldron is purple yet, "
        "so it must go into a colourless one (cauldron 2)"
    )


def test_with_fixed_cauldrons_a_potion_is_told_its_own_cauldron(rules):
    game = rules.Game(3, cauldrons="fixed", deals=[rigged_deal(3, {1: ["B2"]})])
    with pytest.raises(IllegalMove) as refused:
        game.play(1, "B2", 2)
    assert str(refused.value) == "B2 must go into cauldron 1, the blue one (the cauldrons are fixed), not cauldron 2"


@pytest.mark.parametrize("card", ["Z9", "r1", "T3", "R3"])
def test_an_unknown_card_is_told_with_every_card_code_of_the_game(rules, card):
    with pytest.raises(InvalidArgument) as refused:
        rules.Game(4, seed=31).play(1, card, 0)
    assert str(refused.value) == (
        f"{card!r} is not a card code: the cards are R1 R2 R4 R5 R7, B1 B2 B4 B5 B7, P1 P2 P4 P5 P7 and G4"
    )


def test_errors_are_value_errors_with_a_readable_repr(rules):
    with pytest.raises(ValueError, match="3 to 6 players") as refused:
        rules.Game(2)
    assert isinstance(refused.value, RuleError)
    assert repr(refused.value).startswith("InvalidArgument('invalid_players'")


@pytest.mark.parametrize("seat", [-1, 3, "x"])
def test_hidden_information_accessors_refuse_unknown_seats(rules, seat):
    game = rules.Game(3, seed=34)
    for accessor in (game.hand, game.taken, game.view):
        with pytest.raises(InvalidArgument) as refused:
            accessor(seat)
        assert refused.value.code == "seat_out_of_range"


def test_engine_and_reference_say_the_same_thing():
    from core.poison import engine, reference

    for rules_a, rules_b in [(engine, reference)]:
        a, b = rules_a.Game(4, seed=35), rules_b.Game(4, seed=35)
        for seat, card, cauldron in [(0, "R1", 0), (1, "Z1", 0), (1, "G4", 5), (7, "R1", 0)]:
            with pytest.raises(RuleError) as one:
                a.play(seat, card, cauldron)
            with pytest.raises(RuleError) as two:
                b.play(seat, card, cauldron)
            assert (type(one.value), one.value.code, str(one.value)) == (
                type(two.value),
                two.value.code,
                str(two.value),
            )
