"""rules.md, "Components": three cauldrons and the fifty cards with their codes."""

import re
from collections import Counter

import pytest

from core.errors import RuleError
from core.poison import engine, reference
from tests.core.scripted import rigged_deal

CODE = re.compile(r"^([RBP][12457]|G4)$")


def test_there_are_three_cauldrons_numbered_0_1_2(rules):
    game = rules.Game(4, seed=1)
    assert len(game.cauldrons) == 3
    with pytest.raises(RuleError) as refused:
        game.play(game.turn, game.legal_moves()[0].card, 3)
    assert refused.value.code == "cauldron_out_of_range"


def test_the_deck_has_fifty_cards_in_every_deal(rules):
    deal = rules.seeded_deal(5, 4, 1)
    assert sum(len(hand) for hand in deal.hands) == 50


def test_each_colour_has_fourteen_potions_three_of_each_value_but_two_fours_summing_to_53():
    deck = Counter(reference.DECK)
    for letter in "RBP":
        assert [deck[f"{letter}{value}"] for value in (1, 2, 4, 5, 7)] == [3, 3, 2, 3, 3]
        assert sum(int(card[1]) * n for card, n in deck.items() if card[0] == letter) == 53
    assert sum(n for card, n in deck.items() if card[0] != "G") == 42


@pytest.mark.parametrize("players", [3, 4, 6])
def test_every_deal_is_the_whole_deck_of_fifty_cards(rules, players):
    copies = {"1": 3, "2": 3, "4": 2, "5": 3, "7": 3}  # of each colour's potions
    deck = {**{letter + value: n for letter in "RBP" for value, n in copies.items()}, "G4": 8}
    for round_ in (1, 2):
        deal = rules.seeded_deal(11, players, round_)
        dealt = Counter(card for hand in [*deal.hands, deal.set_aside] for card in hand)
        assert dealt == deck


def test_there_are_eight_poison_cards_worth_four(rules):
    assert Counter(reference.DECK)["G4"] == 8
    game = rules.Game(4, deals=[rigged_deal(4, {1: ["G4"]})])
    played = game.play(1, "G4", 0)
    assert played.total == 4


def test_card_codes_are_exactly_the_documented_pattern():
    assert engine.CARD_CODES == reference.CARD_CODES
    assert len(engine.CARD_CODES) == 16
    assert all(CODE.match(code) for code in engine.CARD_CODES)
    every_pattern_match = {f"{c}{v}" for c in "RBP" for v in "12457"} | {"G4"}
    assert set(engine.CARD_CODES) == every_pattern_match


@pytest.mark.parametrize("code", ["R3", "G1", "g4", "r1", "X1", "R", "R11", "", " R1", "B6", 5, None])
def test_anything_else_is_an_unknown_card(rules, code):
    game = rules.Game(4, seed=1)
    before = game.view(game.turn)
    with pytest.raises(RuleError) as refused:
        game.play(game.turn, code, 0)
    assert refused.value.code == "unknown_card"
    assert game.view(game.turn) == before
