"""rules.md, "A turn": where a card may go, and what an overflow does.

Four players, seat 0 deals, so seats play 1, 2, 3, 0, 1, … Each test rigs the hands it needs.
"""

import pytest

from core.errors import RuleError
from core.results import Cauldron, Taken
from tests.core.scripted import rigged_deal


def game_with(rules, hands, cauldrons="dynamic"):
    return rules.Game(4, rounds=1, cauldrons=cauldrons, deals=[rigged_deal(4, hands)])


def refusal(game, seat, card, cauldron):
    before = (game.view(seat), [game.taken(s) for s in range(4)], game.hand(seat))
    with pytest.raises(RuleError) as refused:
        game.play(seat, card, cauldron)
    assert (game.view(seat), [game.taken(s) for s in range(4)], game.hand(seat)) == before
    return refused.value.code


def test_a_player_plays_exactly_one_card_from_their_own_hand_on_their_turn(rules):
    game = game_with(rules, {1: ["R5"], 2: ["B5", "B5", "B5"]})
    assert refusal(game, 2, "B5", 0) == "not_your_turn"
    assert refusal(game, 1, "B5", 0) == "card_not_in_hand"
    game.play(1, "R5", 0)
    assert game.hand_sizes == (12, 12, 13, 12)
    assert game.turn == 2


def test_poison_may_go_into_any_cauldron(rules):
    game = game_with(rules, {1: ["R5"], 2: ["G4", "G4", "G4"]})
    game.play(1, "R5", 0)
    poison_moves = {move.cauldron for move in game.legal_moves() if move.card == "G4"}
    assert poison_moves == {0, 1, 2}
    game.play(2, "G4", 0)
    assert game.cauldrons[0] == Cauldron("red", 9, ("R5", "G4"))


def test_a_cauldron_takes_the_colour_of_its_potions_and_is_colourless_when_empty_or_poison_only(rules):
    game = game_with(rules, {1: ["G4"], 2: ["B2"], 3: ["G4"]})
    assert [c.colour for c in game.cauldrons] == [None, None, None]
    game.play(1, "G4", 1)
    assert game.cauldrons[1] == Cauldron(None, 4, ("G4",))
    game.play(2, "B2", 1)
    assert game.cauldrons[1] == Cauldron("blue", 6, ("G4", "B2"))
    game.play(3, "G4", 1)
    assert game.cauldrons[1].colour == "blue"


def test_a_potion_must_go_into_the_cauldron_of_its_colour(rules):
    game = game_with(rules, {1: ["R5"], 2: ["R2"]})
    game.play(1, "R5", 0)
    assert {move.cauldron for move in game.legal_moves() if move.card == "R2"} == {0}
    assert refusal(game, 2, "R2", 1) == "illegal_cauldron"
    game.play(2, "R2", 0)
    assert game.cauldrons[0] == Cauldron("red", 7, ("R5", "R2"))


def test_a_potion_whose_colour_is_in_no_cauldron_opens_any_colourless_one(rules):
    game = game_with(rules, {1: ["R5"], 2: ["B4"], 3: ["P1"]})
    game.play(1, "R5", 1)
    assert {move.cauldron for move in game.legal_moves() if move.card == "B4"} == {0, 2}
    assert refusal(game, 2, "B4", 1) == "illegal_cauldron"
    game.play(2, "B4", 2)
    assert game.cauldrons[2].colour == "blue"
    assert {move.cauldron for move in game.legal_moves() if move.card == "P1"} == {0}


def test_no_colour_is_ever_in_two_cauldrons(rules):
    game = rules.Game(5, rounds=3, seed=8)
    while game.status == "active":
        colours = [c.colour for c in game.cauldrons if c.colour is not None]
        assert len(colours) == len(set(colours))
        for cauldron in game.cauldrons:
            assert {card[0] for card in cauldron.cards if card != "G4"} <= {(cauldron.colour or "-")[0].upper()}
        move = game.legal_moves()[game.round % len(game.legal_moves())]
        game.play(game.turn, *move)


@pytest.mark.parametrize("cauldrons", ["dynamic", "fixed"])
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_there_is_always_a_legal_move_so_nobody_ever_passes(rules, players, cauldrons):
    game = rules.Game(players, cauldrons=cauldrons, seed=players)
    while game.status == "active":
        moves = game.legal_moves()
        assert moves
        assert game.hand_sizes[game.turn] > 0
        game.play(game.turn, *moves[-1])
    assert game.status == "finished"


def test_the_cauldrons_total_is_announced_after_every_card(rules):
    game = game_with(rules, {1: ["R5"], 2: ["G4"], 3: ["R1"]})
    assert game.play(1, "R5", 0).total == 5
    assert game.play(2, "G4", 0).total == 9
    assert game.play(3, "R1", 0).total == 10
    assert game.cauldrons[0].total == 10


def test_a_total_of_exactly_13_does_not_overflow(rules):
    game = game_with(rules, {1: ["R7"], 2: ["R5"], 3: ["R1"]})
    game.play(1, "R7", 0)
    game.play(2, "R5", 0)
    played = game.play(3, "R1", 0)
    assert (played.total, played.taken, played.overflowed) == (13, (), False)
    assert game.cauldrons[0].cards == ("R7", "R5", "R1")


def test_a_total_of_exactly_14_overflows(rules):
    game = game_with(rules, {1: ["R7"], 2: ["R5"], 3: ["R2"]})
    game.play(1, "R7", 0)
    game.play(2, "R5", 0)
    played = game.play(3, "R2", 0)
    assert (played.total, played.taken, played.overflowed) == (2, ("R7", "R5"), True)
    assert game.cauldrons[0] == Cauldron("red", 2, ("R2",))
    assert game.taken(3) == Taken(red=2, blue=0, purple=0, poison=0)
    assert game.pile_sizes == (0, 0, 0, 2)


def test_above_13_the_player_takes_the_cards_that_were_there_and_their_card_stays(rules):
    game = game_with(rules, {1: ["R7"], 2: ["R5"], 3: ["R1"], 0: ["R2"]})
    for seat, card in [(1, "R7"), (2, "R5"), (3, "R1")]:
        game.play(seat, card, 0)
    played = game.play(0, "R2", 0)
    assert played.taken == ("R7", "R5", "R1")
    assert played.total == 2
    assert game.cauldrons[0] == Cauldron("red", 2, ("R2",))
    assert game.taken(0) == Taken(red=3, blue=0, purple=0, poison=0)
    assert game.pile_sizes == (3, 0, 0, 0)


def test_after_an_overflow_the_cauldron_has_the_colour_of_the_card_that_stays(rules):
    game = game_with(rules, {1: ["G4"], 2: ["G4"], 3: ["G4"], 0: ["B2"]})
    for seat in (1, 2, 3):
        game.play(seat, "G4", 1)
    played = game.play(0, "B2", 1)
    assert played.taken == ("G4", "G4", "G4")
    assert game.cauldrons[1] == Cauldron("blue", 2, ("B2",))
    assert game.taken(0) == Taken(red=0, blue=0, purple=0, poison=3)


def test_a_cauldron_overflowed_by_poison_becomes_colourless(rules):
    game = game_with(rules, {1: ["R7"], 2: ["R5"], 3: ["G4"], 0: ["R1"]})
    game.play(1, "R7", 0)
    game.play(2, "R5", 0)
    played = game.play(3, "G4", 0)
    assert played.taken == ("R7", "R5")
    assert game.cauldrons[0] == Cauldron(None, 4, ("G4",))
    # Red is in no cauldron any more, so it may open any colourless one.
    assert {move.cauldron for move in game.legal_moves() if move.card == "R1"} == {0, 1, 2}


def test_with_fixed_cauldrons_0_is_red_1_blue_2_purple_for_the_whole_game(rules):
    game = game_with(rules, {1: ["B7"], 2: ["R1"]}, cauldrons="fixed")
    assert [c.colour for c in game.cauldrons] == ["red", "blue", "purple"]
    assert refusal(game, 1, "B7", 0) == "illegal_cauldron"
    assert refusal(game, 1, "B7", 2) == "illegal_cauldron"
    game.play(1, "B7", 1)
    assert {move.cauldron for move in game.legal_moves() if move.card == "R1"} == {0}


def test_with_fixed_cauldrons_poison_goes_anywhere_and_an_overflow_keeps_the_colour(rules):
    game = game_with(rules, {1: ["R7"], 2: ["R5"], 3: ["G4"], 0: ["B1"]}, cauldrons="fixed")
    game.play(1, "R7", 0)
    game.play(2, "R5", 0)
    assert {move.cauldron for move in game.legal_moves() if move.card == "G4"} == {0, 1, 2}
    played = game.play(3, "G4", 0)
    assert played.taken == ("R7", "R5")
    assert game.cauldrons[0] == Cauldron("red", 4, ("G4",))
    assert refusal(game, 0, "B1", 0) == "illegal_cauldron"


def test_the_cauldrons_option_accepts_only_dynamic_or_fixed(rules):
    for bad in ["Dynamic", "static", "", None, 1]:
        with pytest.raises(RuleError) as refused:
            rules.Game(4, cauldrons=bad, seed=1)
        assert refused.value.code == "invalid_rule"
    assert rules.Game(4, seed=1).cauldron_rule == "dynamic"
