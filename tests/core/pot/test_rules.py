"""rules.md, "The pot game": one test per rule, on scripted deals, the expected results written
by hand. Two players unless said: seat 0 plays first, then 1, 0, 1, …"""

import pytest

from core.errors import RuleError
from core.poison.reference import Random, stream_seed
from core.results import PotPlayed, PotResult
from tests.core.pot.scripted import first_open_move, play_on, scripted_deal


def scripted_game(pot, hands, first_card, top=()):
    return pot.Game(len(hands), deal=scripted_deal(hands, first_card, top))


# ---- set-up ---------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "pile"), [(2, 47), (3, 43), (4, 39), (5, 35), (6, 31)])
def test_each_seat_is_dealt_four_cards_one_starts_the_pot_and_the_rest_is_the_draw_pile(pot, players, pile):
    game = pot.Game(players, seed=11)
    assert game.hand_sizes == (4,) * players
    assert len(game.pot) == 1
    assert game.draw_pile == pile == len(game.draw_order())
    assert game.totals == (0,) * players
    dealt = pot.seeded_deal(11, players)
    assert [len(hand) for hand in dealt.hands] == [4] * players
    assert len(dealt.draw_pile) == pile


@pytest.mark.parametrize("players", [2, 3, 5, 6])
def test_the_shuffled_deck_is_dealt_one_card_at_a_time_from_seat_0_then_the_pot_then_the_pile(pot, players):
    # The shuffle, written out here: the deck in canonical order, Fisher–Yates from the
    # seed's stream 1 (Poison's reference generator, not the pot game's code).
    deck = [f"T{toxicity}" for toxicity in range(7) for _ in range(8)]
    rng = Random(stream_seed(2024, 1))
    for i in range(55, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    dealt = 4 * players
    game = pot.Game(players, seed=2024)
    for seat in range(players):
        expected = sorted(deck[seat:dealt:players], key=lambda card: int(card[1]))
        assert game.hand(seat) == tuple(expected)
    assert game.pot == (deck[dealt],)
    assert game.toxicity == int(deck[dealt][1])
    assert game.draw_order() == tuple(deck[dealt + 1 :])
    assert pot.seeded_deal(2024, players) == (
        tuple(game.hand(s) for s in range(players)),
        deck[dealt],
        tuple(deck[dealt + 1 :]),
    )


@pytest.mark.parametrize("players", [2, 4, 6])
def test_seat_0_plays_first_and_the_turn_passes_to_seat_plus_1(pot, players):
    game = pot.Game(players, seed=3)
    seats = []
    for _ in range(2 * players + 1):
        seats.append(game.turn)
        game.play(game.turn, *first_open_move(game))
    assert seats == [n % players for n in range(2 * players + 1)]


# ---- explosions -------------------------------------------------------------------------


def test_a_pot_explodes_above_14_and_not_at_14_its_cards_are_discarded_and_nobody_scores(pot):
    game = scripted_game(pot, [["T6", "T1", "T0", "T0"], ["T2", "T0", "T0", "T0"]], "T6", ["T3", "T4", "T5", "T5"])
    assert game.play(0, "T6") == PotPlayed(0, "T6", False, 12, None, None, ("T3",), None, False)
    assert game.play(1, "T2") == PotPlayed(1, "T2", False, 14, None, None, ("T4",), None, False)
    assert game.pot == ("T6", "T6", "T2")
    assert game.toxicity == 14
    exploded = PotResult(0, "exploded", ("T6", "T6", "T2", "T1"), 15, 0)
    assert game.play(0, "T1") == PotPlayed(0, "T1", False, 15, exploded, "T5", ("T5",), None, False)
    assert game.results() == (exploded,)
    assert game.totals == (0, 0)
    assert (game.pot, game.toxicity) == (("T5",), 5)
    assert game.hand(0) == ("T0", "T0", "T3", "T5")
    assert game.draw_pile == 43


def test_closing_is_refused_when_the_card_explodes_the_pot(pot):
    game = scripted_game(pot, [["T6", "T1", "T0", "T0"], ["T2", "T0", "T0", "T0"]], "T6", ["T3", "T4"])
    game.play(0, "T6")
    game.play(1, "T2")
    with pytest.raises(RuleError) as refused:
        game.play(0, "T1", True)
    assert refused.value.code == "cannot_close"
    assert str(refused.value) == "the pot may not be closed with T1: it makes the pot explode (toxicity 15 > 14)"
    assert (game.toxicity, game.turn, game.results()) == (14, 0, ())
    assert ("T1", True) not in game.legal_moves()
    assert ("T0", True) in game.legal_moves()


# ---- closing ----------------------------------------------------------------------------


def test_a_pot_of_four_cards_and_toxicity_6_closed_scores_1_minus_6(pot):
    game = scripted_game(pot, [["T1", "T3", "T0", "T0"], ["T2", "T0", "T0", "T0"]], "T0", ["T4", "T5", "T6", "T6"])
    game.play(0, "T1")
    game.play(1, "T2")
    assert game.draw_pile == 45
    closed = PotResult(0, "closed", ("T0", "T1", "T2", "T3"), 6, -5)
    assert game.play(0, "T3", True) == PotPlayed(0, "T3", True, 6, closed, "T6", ("T6",), None, False)
    assert game.totals == (-5, 0)
    assert game.results() == (closed,)


@pytest.mark.parametrize(
    ("card", "toxicity", "points"),
    [("T2", 3, 4), ("T3", 4, -3)],  # T1 T0 T2: toxicity 3, at most 3 cards: 1 + 3; T1 T0 T3: 1 - 4
)
def test_a_closing_scores_1_plus_1_per_card_unless_the_toxicity_exceeds_the_cards_then_minus_it(
    pot, card, toxicity, points
):
    game = scripted_game(pot, [["T0", "T5", "T5", "T5"], [card, "T6", "T6", "T6"]], "T1", ["T3", "T4", "T4"])
    game.play(0, "T0")
    played = game.play(1, card, True)
    assert played.ended == PotResult(1, "closed", ("T1", "T0", card), toxicity, points)
    assert game.totals == (0, points)


def test_after_a_closing_the_piles_top_card_starts_the_next_pot_then_the_player_draws_back_to_4(pot):
    game = scripted_game(pot, [["T0", "T5", "T5", "T5"], ["T2", "T6", "T6", "T6"]], "T1", ["T3", "T4", "T2", "T6"])
    assert game.play(0, "T0").drawn == ("T3",)
    played = game.play(1, "T2", True)
    assert (played.started, played.drawn) == ("T4", ("T2",))
    assert (game.pot, game.toxicity, game.draw_pile) == (("T4",), 4, 44)
    assert game.hand(1) == ("T2", "T6", "T6", "T6")
    assert game.hand_sizes == (4, 4)
    assert game.play(0, "T5").drawn == ("T6",)
    assert game.pot == ("T4", "T5")


# ---- the endgame ------------------------------------------------------------------------


def endgame_game(pot, seed, players=2):
    return play_on(pot.Game(players, seed=seed), lambda game: game.draw_pile == 0)


def test_a_turn_that_starts_with_the_pile_empty_may_not_close_and_draws_nothing(pot):
    game = endgame_game(pot, 8)
    assert game.endgame
    assert game.status == "active"
    assert game.legal_moves()
    assert not any(move.close for move in game.legal_moves())
    seat, card = game.turn, game.hand(game.turn)[0]
    with pytest.raises(RuleError) as refused:
        game.check(seat, card, True)
    assert refused.value.code == "cannot_close"
    assert (
        str(refused.value) == f"the pot may not be closed with {card}: no pot may be closed once the draw pile is empty"
    )
    size = game.hand_sizes[seat]
    played = game.play(seat, card)
    assert played.drawn == ()
    assert game.hand_sizes[seat] == size - 1


def test_a_pile_of_one_card_is_not_the_endgame_closing_is_legal_and_its_last_card_is_drawn(pot):
    game = play_on(pot.Game(2, seed=8), lambda game: game.draw_pile <= 1)
    assert game.draw_pile == 1
    assert not game.endgame
    hand = game.hand(game.turn)
    closable = {card for card in hand if game.toxicity + int(card[1]) <= 14}
    assert {move.card for move in game.legal_moves() if move.close} == closable
    (last,) = game.draw_order()
    seat = game.turn
    played = game.play(seat, *first_open_move(game))
    if played.ended is None:
        assert (played.started, played.drawn, game.hand_sizes[seat]) == (None, (last,), 4)
    else:  # the last card starts the next pot: none is left to draw, the hand stays short
        assert (played.started, played.drawn, game.hand_sizes[seat]) == (last, (), 3)
    assert game.endgame


def test_an_endgame_explosion_leaves_the_pot_empty_and_the_next_card_starts_a_new_one(pot):
    seen = 0
    for seed in range(12):
        game = endgame_game(pot, seed, players=3)
        while game.status == "active":
            seat, hand = game.turn, game.hand(game.turn)
            highest = hand[-1]
            before = game.pot
            played = game.play(seat, highest)  # in the endgame, the highest card
            if played.ended is None:
                continue
            assert played.ended == PotResult(seat, "exploded", (*before, highest), played.toxicity, 0)
            assert played.toxicity > 14
            assert played.started is None
            assert played.drawn == ()
            if game.status == "active":
                assert (game.pot, game.toxicity) == ((), 0)
                card = game.hand(game.turn)[0]
                after = game.play(game.turn, card)
                # Alone in the new pot, unless it was the last card: then it is closed.
                assert game.pot == (card,) if game.status == "active" else after.final.cards == (card,)
                seen += 1
    assert seen >= 3


def test_the_turn_passes_to_the_next_seat_holding_cards_until_every_hand_is_empty(pot):
    # The rule skips empty hands. With these rules it never has to: only the seat that
    # emptied the pile can be a card short, and it is the last of the endgame's cycle, so
    # every hand empties in the last lap. The test holds the turn to the rule all the same.
    for seed in range(30):
        players = 2 + seed % 5
        game = pot.Game(players, seed=seed)
        while game.status == "active":
            seat = game.turn
            assert game.hand_sizes[seat] > 0
            game.play(seat, *game.choose("random", seed + sum(game.hand_sizes)))
            sizes = game.hand_sizes
            if game.status != "active":
                assert sizes == (0,) * players
                break
            expected = next(s % players for s in range(seat + 1, seat + players + 1) if sizes[s % players] > 0)
            assert game.turn == expected


def test_the_last_card_closes_the_pot_for_its_player_and_ends_the_game(pot):
    closed = 0
    for seed in range(10):
        game = play_on(pot.Game(2 + seed % 5, seed=seed), lambda game: sum(game.hand_sizes) == 1)
        seat = game.turn
        (card,) = game.hand(seat)
        cards = (*game.pot, card)
        toxicity = sum(int(c[1]) for c in cards)
        totals = list(game.totals)
        played = game.play(seat, card)
        assert played.game_over
        assert game.status == "finished"
        assert game.turn is None
        assert game.legal_moves() == ()
        if toxicity > 14:
            assert played.ended == PotResult(seat, "exploded", cards, toxicity, 0)
            assert played.final is None
            continue
        points = 1 + len(cards) if toxicity <= len(cards) else 1 - toxicity
        assert played.ended is None
        assert played.final == PotResult(seat, "closed", cards, toxicity, points)
        assert game.results()[-1] == played.final
        totals[seat] += points
        assert list(game.totals) == totals
        assert (game.pot, game.toxicity) == ((), 0)
        closed += 1
    assert closed >= 5


def test_every_card_of_the_deck_ends_in_exactly_one_pot(pot):
    game = play_on(pot.Game(4, seed=21), lambda game: False)
    cards = [card for result in game.results() for card in result.cards]
    assert sorted(cards) == sorted(f"T{t}" for t in range(7) for _ in range(8))
    assert game.totals == tuple(sum(r.points for r in game.results() if r.seat == seat) for seat in range(4))


# ---- winning ----------------------------------------------------------------------------


def test_the_highest_total_wins_and_equal_highest_totals_share_the_win(pot):
    ties = 0
    for seed in range(40):
        game = pot.Game(2 + seed % 3, seed=seed)
        while game.status == "active":
            assert game.winners == ()
            game.play(game.turn, *game.choose("random", seed + sum(game.hand_sizes)))
        best = max(game.totals)
        assert game.winners == tuple(seat for seat, total in enumerate(game.totals) if total == best)
        ties += len(game.winners) > 1
    assert ties > 0
