"""The pot game's bots: the greedy rule of core/pot/engine.pyi on scripted positions, and
the random bot; the engine and the reference choose alike."""

import pytest

from core.pot import engine
from core.results import PotMove
from tests.core.pot.scripted import scripted_deal


def scripted_game(pot, hands, first_card, top=()):
    return pot.Game(len(hands), deal=scripted_deal(hands, first_card, top))


def test_greedy_closes_when_a_closing_scores_and_takes_the_first_of_equal_closings(pot):
    # Pot T0. Closing with T0, T1 or T2 scores 1 + 2 (toxicity at most 2 cards); T6 scores -5.
    game = scripted_game(pot, [["T0", "T1", "T2", "T6"], ["T3", "T3", "T3", "T3"]], "T0")
    assert game.choose("greedy") == PotMove("T0", True)


def test_greedy_takes_a_scoring_closing_even_with_its_highest_card(pot):
    # Pot T2 T0 T0: closing with T2 makes 4 cards of toxicity 4 (1 + 4); with T4, 6 (1 - 6).
    game = scripted_game(pot, [["T0", "T6", "T6", "T6"], ["T0", "T5", "T5", "T5"], ["T2", "T4", "T4", "T4"]], "T2")
    game.play(0, "T0")
    game.play(1, "T0")
    assert game.choose("greedy") == PotMove("T2", True)


def test_greedy_keeps_the_pot_open_with_its_highest_card_that_does_not_explode_it(pot):
    # Pot T6: every closing loses points; T6 makes 12, still safe, and is the highest.
    game = scripted_game(pot, [["T3", "T4", "T5", "T6"], ["T1", "T1", "T1", "T1"]], "T6")
    assert game.choose("greedy") == PotMove("T6", False)
    # Toxicity 12 then: T1 keeps it at 13, T3 and up would explode it.
    game.play(0, "T6")
    assert game.choose("greedy") == PotMove("T1", False)


def test_greedy_plays_its_lowest_card_when_every_card_explodes_the_pot(pot):
    game = scripted_game(pot, [["T6", "T0", "T0", "T0"], ["T3", "T4", "T5", "T6"]], "T6", ["T0"])
    game.play(0, "T6")  # toxicity 12
    assert game.choose("greedy") == PotMove("T3", False)


def test_greedy_never_chooses_a_closing_that_does_not_score(pot):
    for seed in range(10):
        game = pot.Game(3, seed=seed)
        while game.status == "active":
            card, close = game.choose("greedy")
            if close:
                cards = len(game.pot) + 1
                toxicity = game.toxicity + int(card[1])
                assert toxicity <= cards
            game.play(game.turn, card, close)


@pytest.mark.parametrize("greedy_seat", [0, 1])
def test_greedy_beats_random_clearly_in_two_player_games(greedy_seat):
    bots = ["random", "random"]
    bots[greedy_seat] = "greedy"
    result = engine.simulate(2, 2000, seed=9, bots=bots)
    assert result.wins[greedy_seat] > 0.9 * 2000
    assert result.score_sum[greedy_seat] > 0 > result.score_sum[1 - greedy_seat]
