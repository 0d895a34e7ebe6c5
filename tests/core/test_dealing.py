"""rules.md, "Players, seats, rounds" and "Dealing"; and the one seed range of every ruleset."""

from collections import Counter

import pytest

from core.errors import SEED_LIMIT, RuleError
from core.poison import reference
from core.rulesets import bot_seed
from tests.core.malformed import split_deck
from tests.core.scripted import rigged_deal
from tests.rulesets import EVERY_IMPLEMENTATION


def play_round_randomly(game, pick=0):
    """Play the current round to its end with the `pick`-th legal move (mod count)."""
    round_ = game.round
    while game.status == "active" and game.round == round_:
        moves = game.legal_moves()
        move = moves[pick % len(moves)]
        game.play(game.turn, move.card, move.cauldron)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_three_to_six_players_may_play(rules, players):
    assert rules.Game(players, seed=2).players == players


@pytest.mark.parametrize("players", [0, 1, 2, 7, 10, -3, 4.0, "4", None, True])
def test_any_other_number_of_players_is_refused(rules, players):
    with pytest.raises(RuleError) as refused:
        rules.Game(players, seed=2)
    assert refused.value.code == "invalid_players"


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_a_game_has_one_round_per_player_by_default(rules, players):
    assert rules.Game(players, seed=3).rounds == players


@pytest.mark.parametrize("rounds", [1, 2, 6, 20])
def test_the_rounds_option_overrides_the_default_from_1_to_20(rules, rounds):
    game = rules.Game(3, rounds=rounds, seed=3)
    assert game.rounds == rounds
    for _ in range(rounds):
        play_round_randomly(game)
    assert game.status == "finished"
    assert len(game.results()) == rounds


@pytest.mark.parametrize("rounds", [0, 21, -1, 2.5, "3", True])
def test_rounds_outside_1_to_20_are_refused(rules, rounds):
    with pytest.raises(RuleError) as refused:
        rules.Game(4, rounds=rounds, seed=3)
    assert refused.value.code == "invalid_rounds"


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_seat_0_deals_first_the_deal_passes_left_and_the_dealers_left_plays_first(rules, players):
    game = rules.Game(players, rounds=2 * players + 1, seed=4)
    for number in range(1, game.rounds + 1):
        assert game.round == number
        assert game.dealer == (number - 1) % players
        assert game.turn == (game.dealer + 1) % players
        play_round_randomly(game, pick=number)
    dealers = [result.dealer for result in game.results()]
    assert dealers == [n % players for n in range(game.rounds)]


@pytest.mark.parametrize(
    ("players", "sizes_from_dealers_left"),
    [(4, [13, 13, 12, 12]), (5, [10] * 5), (6, [9, 9, 8, 8, 8, 8])],
)
def test_cards_are_dealt_one_at_a_time_from_the_dealers_left_so_earlier_hands_get_one_more(
    rules, players, sizes_from_dealers_left
):
    game = rules.Game(players, rounds=players, seed=5)
    for _ in range(players):
        dealer = game.dealer
        sizes = [game.hand_sizes[(dealer + 1 + i) % players] for i in range(players)]
        assert sizes == sizes_from_dealers_left
        play_round_randomly(game)


def test_three_players_deal_four_hands_and_set_the_fourth_aside(rules):
    game = rules.Game(3, seed=6)
    for _ in range(3):
        dealer = game.dealer
        sizes = [game.hand_sizes[(dealer + 1 + i) % 3] for i in range(3)]
        assert sizes == [13, 13, 12]
        assert len(game.set_aside()) == 12
        everything = Counter(game.set_aside()) + sum((Counter(game.hand(s)) for s in range(3)), Counter())
        assert everything == Counter(reference.DECK)
        play_round_randomly(game)


@pytest.mark.parametrize("players", [4, 5, 6])
def test_only_three_player_rounds_set_a_hand_aside(rules, players):
    assert rules.Game(players, seed=7).set_aside() == ()


def test_a_seed_makes_every_deal_reproducible(rules):
    one, two = rules.Game(5, seed=123), rules.Game(5, seed=123)
    for _ in range(5):
        assert [one.hand(s) for s in range(5)] == [two.hand(s) for s in range(5)]
        play_round_randomly(one)
        play_round_randomly(two)
    assert rules.seeded_deal(123, 5, 2) != rules.seeded_deal(124, 5, 2)


def test_recorded_hands_replay_a_game_without_any_random_numbers(rules):
    seeded = rules.Game(4, seed=99)
    deals = [rules.seeded_deal(99, 4, number) for number in range(1, 5)]
    recorded = rules.Game(4, deals=deals)
    assert recorded.seed is None
    while seeded.status != "finished":
        assert recorded.view(seeded.turn) == seeded.view(seeded.turn)
        move = seeded.legal_moves()[-1]
        assert seeded.play(seeded.turn, *move) == recorded.play(recorded.turn, *move)
    assert recorded.results() == seeded.results()


def test_a_game_without_seed_or_deals_waits_for_each_round_to_be_dealt(rules):
    game = rules.Game(4)
    assert (game.status, game.turn, game.legal_moves()) == ("dealing", None, ())
    with pytest.raises(RuleError) as refused:
        game.play(1, "R1", 0)
    assert refused.value.code == "awaiting_deal"
    game.deal(*rules.seeded_deal(1, 4, 1))
    assert game.status == "active"
    with pytest.raises(RuleError) as refused:
        game.deal(*rules.seeded_deal(1, 4, 1))
    assert refused.value.code == "not_awaiting_deal"
    play_round_randomly(game)
    assert (game.status, game.round, game.dealer) == ("dealing", 2, 1)


def _invalid_deals():
    good = rigged_deal(4, {})
    hands = [list(hand) for hand in good.hands]
    swapped = [list(hand) for hand in hands]
    swapped[0][0], swapped[1][0] = swapped[1][0], swapped[0][0]  # still valid: order is free
    short = [hand[:] for hand in hands]
    short[1] = short[1][1:]
    long_ = [hand[:] for hand in hands]
    long_[0] = [*long_[0], long_[1].pop()]
    doubled = [hand[:] for hand in hands]
    doubled[0][0] = "G4"
    return {
        "three hands for four seats": (hands[:3], ()),
        "a hand a card short": (short, ()),
        "seat 0 given seat 1's extra card": (long_, ()),
        "a ninth poison": (doubled, ()),
        "a set-aside hand with four players": (hands, ("R1",)),
        "not a list": ("R1 R2", ()),
        "a hand that is a string": ([*hands[:3], "R1"], ()),
    }


@pytest.mark.parametrize("name", list(_invalid_deals()))
def test_a_deal_that_is_not_the_deck_dealt_from_the_dealers_left_is_refused(rules, name):
    hands, aside = _invalid_deals()[name]
    game = rules.Game(4)
    with pytest.raises(RuleError) as refused:
        game.deal(hands, aside)
    assert refused.value.code == "invalid_deal"
    assert game.status == "dealing"
    with pytest.raises(RuleError):
        rules.Game(4, deals=[(hands, aside)])


def test_an_unknown_card_in_a_deal_is_named(rules):
    deal = rigged_deal(4, {})
    hands = [list(hand) for hand in deal.hands]
    hands[2][3] = "Q9"
    with pytest.raises(RuleError) as refused:
        rules.Game(4).deal(hands)
    assert refused.value.code == "unknown_card"
    assert "seat 2" in str(refused.value)
    assert "'Q9'" in str(refused.value)


def test_card_order_within_a_dealt_hand_does_not_matter(rules):
    deal = rigged_deal(4, {})
    game = rules.Game(4)
    game.deal([tuple(reversed(hand)) for hand in deal.hands])
    assert game.hand(0) == reference.sort_cards(deal.hands[0])


def test_a_seed_and_explicit_deals_are_not_given_together(rules):
    with pytest.raises(RuleError) as refused:
        rules.Game(4, seed=1, deals=[rigged_deal(4, {})])
    assert refused.value.code == "invalid_deal"


#: How each ruleset deals its first round from a seed, by name.
FIRST_DEAL = {
    "poison": lambda rules, seed, players: rules.seeded_deal(seed, players, 1),
    "pot": lambda rules, seed, players: rules.seeded_deal(seed, players),
}


@EVERY_IMPLEMENTATION
@pytest.mark.parametrize("seed", [-1, SEED_LIMIT + 1, 2**64 - 1, 2**64, 1.5, "7", True])
def test_a_seed_is_a_whole_number_from_0_to_the_one_seed_limit(ruleset, rules, seed):
    players, deal = ruleset.players[0] + 1, FIRST_DEAL[ruleset.name]
    for make in (
        lambda: rules.Game(players, seed=seed),
        lambda: deal(rules, seed, players),
        lambda: rules.simulate(players, 1, seed=seed),
        lambda: rules.replay(players, [], seed=seed),
    ):
        with pytest.raises(RuleError) as refused:
            make()
        assert refused.value.code == "invalid_seed"
        assert f"0 to {SEED_LIMIT:,}" in str(refused.value)
    assert SEED_LIMIT == 2**63 - 1
    assert rules.Game(players, seed=SEED_LIMIT).status == "active"
    assert deal(rules, SEED_LIMIT, players) == deal(ruleset.reference, SEED_LIMIT, players)


def test_a_bot_draws_from_any_64_bit_state_as_derived_seeds_are(rules):
    game = rules.Game(4, seed=SEED_LIMIT)
    derived = next(draw for step in range(64) if (draw := bot_seed(SEED_LIMIT, step)) > SEED_LIMIT)
    assert game.choose("random", derived) in game.legal_moves()
    assert game.choose("random", 2**64 - 1) in game.legal_moves()
    for draw in (-1, 2**64):
        with pytest.raises(RuleError) as refused:
            game.choose("random", draw)
        assert refused.value.code == "invalid_seed"


# ---- scripted: the dealer, the first player and the set-aside hand, written out by hand ------


#: players: per round 1, 2, 3, (dealer, first to play, hand size of each seat, set aside).
ROUNDS_BY_HAND = {
    3: [(0, 1, (12, 13, 13), 12), (1, 2, (13, 12, 13), 12), (2, 0, (13, 13, 12), 12)],
    4: [(0, 1, (12, 13, 13, 12), 0), (1, 2, (12, 12, 13, 13), 0), (2, 3, (13, 12, 12, 13), 0)],
    6: [(0, 1, (8, 9, 9, 8, 8, 8), 0), (1, 2, (8, 8, 9, 9, 8, 8), 0), (2, 3, (8, 8, 8, 9, 9, 8), 0)],
}


@pytest.mark.parametrize("players", sorted(ROUNDS_BY_HAND))
def test_the_deal_passes_left_each_round_and_its_left_plays_first_with_recorded_deals(rules, players):
    rounds = ROUNDS_BY_HAND[players]
    game = rules.Game(players, rounds=3, deals=[split_deck(reference, sizes, aside) for _, _, sizes, aside in rounds])
    for number, (dealer, first, sizes, aside) in enumerate(rounds, start=1):
        assert (game.status, game.round, game.dealer, game.turn) == ("active", number, dealer, first)
        assert game.hand_sizes == sizes
        assert len(game.set_aside()) == aside
        play_round_randomly(game)
    assert game.status == "finished"
    assert [result.dealer for result in game.results()] == [0, 1, 2]


@pytest.mark.parametrize("players", sorted(ROUNDS_BY_HAND))
def test_a_recorded_deal_sized_for_another_dealer_is_refused(rules, players):
    (_, _, first_sizes, aside), (_, _, second_sizes, _), _ = ROUNDS_BY_HAND[players]
    first, second = split_deck(reference, first_sizes, aside), split_deck(reference, second_sizes, aside)
    with pytest.raises(RuleError) as refused:
        rules.Game(players, rounds=2, deals=[first, first])
    assert refused.value.code == "invalid_deal"
    with pytest.raises(RuleError) as refused:
        rules.Game(players, rounds=2, deals=[second])
    assert refused.value.code == "invalid_deal"
    game = rules.Game(players, rounds=2)
    game.deal(*first)
    play_round_randomly(game)
    with pytest.raises(RuleError) as refused:
        game.deal(*first)
    assert refused.value.code == "invalid_deal"
    game.deal(*second)
    assert (game.status, game.dealer, game.hand_sizes) == ("active", 1, second_sizes)


#: Per round, the seat of a four-player game (same seed, same round, so the same shuffled deck)
#: whose hand each three-player hand is: seats 0, 1, 2, then the set-aside hand. Both deal one
#: card at a time from the dealer's left; three players deal the fourth hand after the dealer's.
#: Round 1 (seat 0 deals both): seat 1, seat 2, then seat 0 (4p: seat 3), then the set-aside
#: hand (4p: seat 0). Round 2 (seat 1 deals): 3p seats 2, 0, 1, aside = 4p seats 2, 3, 0, 1.
#: Round 3 (seat 2 deals): 3p seats 0, 1, 2, aside = 4p seats 3, 0, 1, 2.
SET_ASIDE_AS_FOUR_PLAYERS = {1: (3, 1, 2, 0), 2: (3, 0, 2, 1), 3: (3, 0, 1, 2)}


@pytest.mark.parametrize("seed", [1, 2, 77])
@pytest.mark.parametrize("round_", sorted(SET_ASIDE_AS_FOUR_PLAYERS))
def test_three_players_set_aside_the_fourth_hand_the_one_dealt_after_the_dealers(rules, seed, round_):
    three, four = rules.seeded_deal(seed, 3, round_), rules.seeded_deal(seed, 4, round_)
    seat_0, seat_1, seat_2, aside = SET_ASIDE_AS_FOUR_PLAYERS[round_]
    expected = [four.hands[seat_0], four.hands[seat_1], four.hands[seat_2], four.hands[aside]]
    assert [*three.hands, three.set_aside] == expected
