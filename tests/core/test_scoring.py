"""rules.md, "End of a round and scoring"."""

from collections import Counter

import pytest

from core.errors import RuleError
from core.poison import reference
from core.results import Taken


def test_the_golden_example_of_the_portuguese_seed(rules):
    # Suzana, Ricardo, Renato, Ana: (red, blue, purple, poison) from the table in rules.md.
    piles = [(2, 3, 0, 1), (6, 0, 2, 0), (5, 2, 6, 2), (1, 6, 6, 4)]
    scores, discarded = rules.score_round(piles)
    assert scores == (7, 2, 17, 15)
    assert discarded == ((), ("red",), (), ("blue",))


def test_the_player_with_strictly_the_most_of_a_colour_discards_it(rules):
    scores, discarded = rules.score_round([(5, 0, 0, 0), (4, 0, 0, 0), (0, 0, 0, 0)])
    assert discarded == (("red",), (), ())
    assert scores == (0, 4, 0)


def test_a_single_card_of_a_colour_nobody_else_took_is_discarded(rules):
    assert rules.score_round([(1, 0, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0)]) == ((0, 0, 0), (("red",), (), ()))


def test_on_a_tie_for_most_nobody_discards_that_colour(rules):
    scores, discarded = rules.score_round([(0, 3, 0, 0), (0, 3, 0, 0), (0, 1, 0, 0)])
    assert discarded == ((), (), ())
    assert scores == (3, 3, 1)


def test_poison_is_never_discarded_and_scores_two_points(rules):
    scores, discarded = rules.score_round([(0, 0, 0, 8), (0, 0, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0)])
    assert discarded == ((), (), (), ())
    assert scores == (16, 0, 0, 0)


def test_each_remaining_potion_scores_one_point_whatever_its_value(rules):
    game = rules.Game(4, seed=20)
    while game.status != "finished":
        game.play(game.turn, *game.legal_moves()[0])
    for result in game.results():
        for seat, pile in enumerate(result.taken):
            kept = [
                n
                for n, colour in zip(pile[:3], ("red", "blue", "purple"), strict=True)
                if colour not in result.discarded[seat]
            ]
            assert result.scores[seat] == sum(kept) + 2 * pile.poison


def test_the_round_ends_when_every_hand_is_empty_and_cauldron_leftovers_score_for_nobody(rules):
    game = rules.Game(4, rounds=1, seed=21)
    in_cauldrons = 0
    while True:
        before = [len(c.cards) for c in game.cauldrons]
        played = game.play(game.turn, *game.legal_moves()[0])
        if played.round_over:
            break
        assert any(game.hand_sizes)
    assert sum(game.hand_sizes) == 0
    # The last card went in too: what stayed in the cauldrons is what nobody took.
    in_cauldrons = sum(before) + 1 - len(played.taken)
    (result,) = game.results()
    assert sum(sum(pile) for pile in result.taken) == 50 - in_cauldrons
    assert in_cauldrons > 0
    assert game.cauldrons == rules.Game(4, rounds=1, seed=21).cauldrons  # cleared with the round


def test_taken_counts_per_round_match_what_overflows_took(rules):
    game = rules.Game(3, seed=22)
    took: list[Counter] = [Counter() for _ in range(3)]
    while game.status != "finished":
        round_ = game.round
        played = game.play(game.turn, *game.legal_moves()[-1])
        for card in played.taken:
            took[played.seat][reference.colour_of(card)] += 1
        if played.round_over:
            result = game.results()[round_ - 1]
            assert result.taken == tuple(Taken(c["red"], c["blue"], c["purple"], c["poison"]) for c in took)
            took = [Counter() for _ in range(3)]


def test_totals_add_up_the_rounds_and_the_lowest_total_wins(rules):
    game = rules.Game(5, seed=23)
    assert game.winners == ()
    while game.status != "finished":
        game.play(game.turn, *game.legal_moves()[0])
    rows = [result.scores for result in game.results()]
    assert game.totals == tuple(map(sum, zip(*rows, strict=True)))
    assert game.winners == tuple(s for s, t in enumerate(game.totals) if t == min(game.totals))
    assert game.view().scores == tuple(rows)


def test_equal_lowest_totals_share_the_win(rules):
    for seed in range(200):
        game = rules.Game(3, rounds=1, seed=seed)
        while game.status != "finished":
            game.play(game.turn, *game.legal_moves()[0])
        if len(game.winners) > 1:
            assert len({game.totals[s] for s in game.winners}) == 1
            return
    pytest.fail("no shared win in 200 one-round games")


@pytest.mark.parametrize(
    "piles",
    [
        [],
        [(0, 0, 0, 0)] * 2,
        [(0, 0, 0, 0)] * 7,
        [(0, 0, 0)] * 3,
        [(0, 0, 0, 9)] * 3,
        [(-1, 0, 0, 0)] * 3,
        [(15, 0, 0, 0)] * 3,
        "abc",
        [("1", 0, 0, 0)] * 3,
    ],
)
def test_score_round_refuses_piles_that_cannot_exist(rules, piles):
    with pytest.raises(RuleError):
        rules.score_round(piles)
