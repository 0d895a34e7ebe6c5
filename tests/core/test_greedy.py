"""The bots' documented rules (docs/poison.md "Bots", core/poison/engine.pyi `Game.choose`, greedy_key in
core/poison/rules.pyx), each on a scripted position: explicit hands, explicit moves, and the move the
rule says, written out by hand. Both implementations are held to it (the `rules` fixture).

Four players, seat 0 deals, so seats play 1, 2, 3, 0, 1, ... The bot's whole hand is given, so
no card dealt to fill it can change its choice.
"""

from collections import Counter

import pytest

from core.results import Move
from tests.core.scripted import rigged_deal


def position(rules, hands, moves):
    """A one-round game of four dealt `hands` (the rest filled in), after `moves`."""
    game = rules.Game(4, rounds=1, deals=[rigged_deal(4, hands)])
    for seat, card, cauldron in moves:
        played = game.play(seat, card, cauldron)
        assert not played.round_over
    return game


def test_greedy_plays_its_highest_safe_card_where_it_leaves_the_highest_total(rules):
    # docs/poison.md's first example: red R4 R4 (8), blue B2 (2), purple P5 (5); R7 would
    # overflow red, so the highest safe card is G4, and red is where it leaves most (12).
    game = position(
        rules,
        {
            1: ["R4", "R7", "B1", "G4", "R1", "R1", "R1", "R2", "R2", "R2", "P1", "P1", "P1"],
            2: ["R4"],
            3: ["B2"],
            0: ["P5"],
        },
        [(1, "R4", 0), (2, "R4", 0), (3, "B2", 1), (0, "P5", 2)],
    )
    assert [c.total for c in game.cauldrons] == [8, 2, 5]
    assert game.hand(1) == ("R1", "R1", "R1", "R2", "R2", "R2", "R7", "B1", "P1", "P1", "P1", "G4")
    assert game.choose("greedy") == Move("G4", 0)


def test_greedy_forced_to_overflow_takes_the_cheapest_pile_then_plays_its_lowest_card(rules):
    # docs/poison.md's second example: red R1 R4 R7 (12) costs 3, blue B4 B7 (11) and purple
    # P5 P5 (10) cost 2 each with two cards; every card seat 0 holds overflows where it must
    # go. Of the cheapest piles' moves (B5, B7 into blue; P7 into purple) B5 is the lowest.
    game = position(
        rules,
        {
            1: ["R1", "B7"],
            2: ["B4", "P5"],
            3: ["P5", "R7"],
            0: ["R4", "R2", "B5", "P7", "R2", "R2", "R5", "R5", "R5", "R7", "B7", "P7"],
        },
        [(1, "R1", 0), (2, "B4", 1), (3, "P5", 2), (0, "R4", 0), (1, "B7", 1), (2, "P5", 2), (3, "R7", 0)],
    )
    assert [c.total for c in game.cauldrons] == [12, 11, 10]
    assert game.turn == 0
    assert game.hand(0) == ("R2", "R2", "R2", "R5", "R5", "R5", "R7", "B5", "B7", "P7", "P7")
    assert game.choose("greedy") == Move("B5", 1)


def test_greedy_counts_a_colour_it_leads_in_as_free(rules):
    # Seat 0 overflows red first (taking R5 R5: it leads red, 2 to 0). Then red R4 R7 (11)
    # costs it nothing, blue B7 (7) costs 1, purple P7 P5 (12) costs 2; every move overflows.
    # Without its lead red would cost 2 and blue (B7) be cheapest; with it, its lowest red.
    game = position(
        rules,
        {
            1: ["R5", "R7"],
            2: ["R5", "P7"],
            3: ["B7", "P5"],
            0: ["R4", "R4", "R5", "R7", "R7", "B7", "B7", "P2", "P2", "P2", "P4", "P4"],
        },
        [(1, "R5", 0), (2, "R5", 0), (3, "B7", 1), (0, "R4", 0), (1, "R7", 0), (2, "P7", 2), (3, "P5", 2)],
    )
    assert game.taken(0).red == 2
    assert [c.cards for c in game.cauldrons] == [("R4", "R7"), ("B7",), ("P7", "P5")]
    assert game.choose("greedy") == Move("R4", 0)


def test_greedy_forced_to_overflow_takes_the_pile_of_fewest_cards_among_the_cheapest(rules):
    # Seat 0 leads red (it took R5 R5), so red R4 G4 R5 (13) costs 2 for its poison, as much as
    # purple P7 P5 (12); purple has two cards, red three, so greedy plays into purple, its
    # lowest purple card (P2), although R1 into red would be a lower card.
    game = position(
        rules,
        {
            1: ["R5", "G4"],
            2: ["R5", "R5"],
            3: ["P7", "P5"],
            0: ["R4", "R1", "R1", "R2", "R7", "R7", "R7", "P2", "P2", "P4", "P4", "P7"],
        },
        [(1, "R5", 0), (2, "R5", 0), (3, "P7", 2), (0, "R4", 0), (1, "G4", 0), (2, "R5", 0), (3, "P5", 2)],
    )
    assert [c.cards for c in game.cauldrons] == [("R4", "G4", "R5"), (), ("P7", "P5")]
    assert game.taken(0).red == 2
    assert game.choose("greedy") == Move("P2", 2)


def test_greedy_plays_the_first_of_equal_moves_in_the_order_of_legal_moves(rules):
    # The first move of a round: three empty cauldrons, and three sevens, each as good as the
    # other in each cauldron (highest card, total 7 left). The first by card, then by
    # cauldron, is R7 into cauldron 0.
    game = position(rules, {1: ["R7", "B7", "P7", "R1", "R1", "R1", "R2", "R2", "R2", "B1", "B1", "B1", "B2"]}, [])
    assert game.turn == 1
    assert game.choose("greedy") == Move("R7", 0)


def test_greedy_never_overflows_when_a_safe_move_exists_even_with_its_lowest_card(rules):
    # Red R7 R5 R1 (13), blue B7 B5 (12), purple P7 P5 (12): of seat 0's cards only B1 (blue,
    # to 13) does not overflow, so it plays B1, not a seven, nor poison into a cheap pile.
    game = position(
        rules,
        {
            1: ["R7", "B5"],
            2: ["B7", "P5"],
            3: ["P7", "R1"],
            0: ["R5", "B1", "R7", "R7", "B7", "B7", "P7", "P7", "G4", "G4", "G4", "G4"],
        },
        [(1, "R7", 0), (2, "B7", 1), (3, "P7", 2), (0, "R5", 0), (1, "B5", 1), (2, "P5", 2), (3, "R1", 0)],
    )
    assert [c.total for c in game.cauldrons] == [13, 12, 12]
    assert game.choose("greedy") == Move("B1", 1)


def test_the_random_bot_draws_uniformly_among_the_legal_moves(rules):
    # The first move of a round with 7 kinds of card in three colourless cauldrons: 21 legal
    # moves. Over 2,100 seeds each is drawn about 100 times; a bias or a favourite fails.
    game = position(rules, {1: ["R7", "B7", "P7", "R1", "R1", "R1", "R2", "R2", "R2", "B1", "B1", "B1", "B2"]}, [])
    legal = game.legal_moves()
    assert len(legal) == 21
    drawn = Counter(game.choose("random", seed) for seed in range(2100))
    assert set(drawn) == set(legal)
    assert all(60 <= count <= 145 for count in drawn.values()), drawn


@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_a_bots_choice_is_a_move_of_the_seat_to_move_and_changes_nothing(rules, bot):
    game = position(rules, {1: ["R7"], 2: ["B7"]}, [(1, "R7", 0)])
    before = (game.view(2), game.hand(2))
    move = game.choose(bot, 3)
    assert move in game.legal_moves()
    assert (game.view(2), game.hand(2)) == before
    game.play(2, *move)
    assert game.turn == 3
