"""Every refusal of the pot game: its code, its message, and nothing changed; bad input to every
public function is a RuleError, never a crash."""

import pytest

from core.errors import ILLEGAL_MOVE_CODES, IllegalMove, RuleError
from tests.core.pot.scripted import play_on, scripted_deal

DEAL = scripted_deal([["T6", "T1", "T0", "T0"], ["T2", "T0", "T0", "T0"]], "T6", ["T3", "T4"])


def snapshot(game):
    """Everything anyone could see, and what nobody may."""
    return (
        game.view(),
        tuple(game.view(seat) for seat in range(game.players)),
        game.draw_order(),
        game.results(),
        game.legal_moves(),
    )


def refused(game, attempt, *args):
    before = snapshot(game)
    with pytest.raises(RuleError) as raised:
        attempt(*args)
    assert snapshot(game) == before
    error = raised.value
    assert isinstance(error, IllegalMove) == (error.code in ILLEGAL_MOVE_CODES)
    return error.code, str(error)


def at_fourteen(pot):
    game = pot.Game(2, deal=DEAL)
    game.play(0, "T6")
    game.play(1, "T2")
    return game  # toxicity 14, seat 0 to move holding T0 T0 T1 T3


@pytest.mark.parametrize(
    ("seat", "card", "close", "code", "message"),
    [
        (-1, "T0", False, "seat_out_of_range", "seat -1 is not a seat of this game (0 to 1)"),
        (2, "T0", False, "seat_out_of_range", None),
        ("0", "T0", False, "seat_out_of_range", None),
        (None, "T0", False, "seat_out_of_range", None),
        (True, "T0", False, "seat_out_of_range", None),
        (0, "T9", False, "unknown_card", "'T9' is not a card code of the pot game: the cards are T0 T1 T2 T3 T4 T5 T6"),
        (0, "T7", False, "unknown_card", None),
        (0, "t0", False, "unknown_card", None),
        (0, "R1", False, "unknown_card", None),
        (0, 0, False, "unknown_card", None),
        (0, None, False, "unknown_card", None),
        (0, "T0", 2, "invalid_move", "close must be True or False, not 2"),  # a cauldron given as close
        (0, "T0", 1, "invalid_move", None),
        (0, "T0", 0, "invalid_move", None),
        (0, "T0", None, "invalid_move", None),
        (0, "T0", "yes", "invalid_move", None),
        (9, "T9", 9, "seat_out_of_range", None),  # the first failing check is named
        (0, "T9", 9, "unknown_card", None),
        (1, "T0", False, "not_your_turn", "seat 1 may not play now: it is seat 0's turn"),
        (1, "T5", True, "not_your_turn", None),
        (0, "T5", False, "card_not_in_hand", "seat 0 holds no T5"),
        (0, "T5", True, "card_not_in_hand", None),
        (
            0,
            "T1",
            True,
            "cannot_close",
            "the pot may not be closed with T1: it makes the pot explode (toxicity 15 > 14)",
        ),
        (0, "T3", True, "cannot_close", None),
    ],
)
def test_a_refused_move_names_its_reason_and_changes_nothing(pot, seat, card, close, code, message):
    game = at_fourteen(pot)
    for attempt in (game.check, game.play):
        got_code, got_message = refused(game, attempt, seat, card, close)
        assert got_code == code
        assert message is None or got_message == message


def test_a_move_before_the_deal_is_awaiting_deal_and_a_second_deal_is_not_awaiting_deal(pot):
    waiting = pot.Game(2)
    assert (waiting.status, waiting.turn, waiting.legal_moves(), waiting.endgame) == ("dealing", None, (), False)
    assert refused(waiting, waiting.play, 0, "T0", False) == ("awaiting_deal", "the game has not been dealt yet")
    assert refused(waiting, waiting.choose, "greedy")[0] == "awaiting_deal"
    waiting.deal(*DEAL)
    assert waiting.view() == pot.Game(2, deal=DEAL).view()
    assert refused(waiting, waiting.deal, *DEAL)[0] == "not_awaiting_deal"


def test_the_endgame_refuses_closing(pot):
    game = play_on(pot.Game(3, seed=4), lambda game: game.endgame)
    card = game.hand(game.turn)[0]
    assert refused(game, game.play, game.turn, card, True) == (
        "cannot_close",
        f"the pot may not be closed with {card}: no pot may be closed once the draw pile is empty",
    )


def test_a_finished_game_refuses_moves_deals_and_bots(pot):
    game = play_on(pot.Game(2, seed=6), lambda game: False)
    assert game.status == "finished"
    assert refused(game, game.play, 0, "T0", False) == (
        "game_finished",
        "the game is finished: every card has gone into the pot",
    )
    assert refused(game, game.deal, *DEAL)[0] == "game_finished"
    assert refused(game, game.choose, "random")[0] == "game_finished"
    assert game.legal_moves() == ()


@pytest.mark.parametrize("players", [0, 1, 7, -2, 2.0, "2", None, True])
def test_a_game_has_2_to_6_players(pot, players):
    for make in (
        lambda: pot.Game(players),
        lambda: pot.Game(players, seed=1),
        lambda: pot.seeded_deal(1, players),
        lambda: pot.replay(players, []),
        lambda: pot.simulate(players, 1),
    ):
        with pytest.raises(RuleError) as raised:
            make()
        assert raised.value.code == "invalid_players"
        assert "2 to 6 players" in str(raised.value)


@pytest.mark.parametrize("draw", [-1, 2**64, 1.5, "1", True])
def test_a_bot_draws_from_a_whole_number_from_0_to_2_to_the_64_minus_1(pot, draw):
    game = pot.Game(2, seed=1)
    with pytest.raises(RuleError) as raised:
        game.choose("random", draw)
    assert raised.value.code == "invalid_seed"
    assert game.choose("random", 2**64 - 1) in game.legal_moves()  # derived seeds use all 64 bits


def swap(cards, index, card):
    return tuple(card if i == index else c for i, c in enumerate(cards))


@pytest.mark.parametrize(
    ("deal", "code"),
    [
        ("junk", "invalid_deal"),
        ((DEAL.hands, DEAL.pot), "invalid_deal"),
        ((*DEAL, ()), "invalid_deal"),
        ((DEAL.hands[:1], DEAL.pot, DEAL.draw_pile), "invalid_deal"),
        ((DEAL.hands * 2, DEAL.pot, DEAL.draw_pile), "invalid_deal"),
        (("T0T0", DEAL.pot, DEAL.draw_pile), "invalid_deal"),
        (((DEAL.hands[0], "T0T0T0T0"), DEAL.pot, DEAL.draw_pile), "invalid_deal"),
        (((DEAL.hands[0], DEAL.hands[1][:3]), DEAL.pot, DEAL.draw_pile), "invalid_deal"),
        (((DEAL.hands[0], (*DEAL.hands[1], "T0")), DEAL.pot, DEAL.draw_pile), "invalid_deal"),
        (((DEAL.hands[0], swap(DEAL.hands[1], 0, "T9")), DEAL.pot, DEAL.draw_pile), "unknown_card"),
        (((DEAL.hands[0], swap(DEAL.hands[1], 0, None)), DEAL.pot, DEAL.draw_pile), "unknown_card"),
        ((DEAL.hands, "T7", DEAL.draw_pile), "unknown_card"),
        ((DEAL.hands, ["T6"], DEAL.draw_pile), "unknown_card"),
        ((DEAL.hands, DEAL.pot, "T0" * 47), "invalid_deal"),
        ((DEAL.hands, DEAL.pot, DEAL.draw_pile[:-1]), "invalid_deal"),
        ((DEAL.hands, DEAL.pot, (*DEAL.draw_pile, "T0")), "invalid_deal"),
        ((DEAL.hands, DEAL.pot, swap(DEAL.draw_pile, 5, "X1")), "unknown_card"),
        ((DEAL.hands, DEAL.pot, swap(DEAL.draw_pile, 46, "T0")), "invalid_deal"),  # nine T0, seven T6
        ((DEAL.hands, "T0", DEAL.draw_pile), "invalid_deal"),
    ],
)
def test_a_deal_that_is_not_the_whole_deck_in_four_card_hands_is_refused(pot, deal, code):
    with pytest.raises(RuleError) as raised:
        pot.Game(2, deal=deal)
    assert raised.value.code == code
    waiting = pot.Game(2)
    if isinstance(deal, tuple) and len(deal) == 3:
        assert refused(waiting, waiting.deal, *deal)[0] == code
    with pytest.raises(RuleError) as raised:
        pot.replay(2, [], deal=deal)
    assert raised.value.code == code


def test_the_deals_count_check_names_the_card(pot):
    with pytest.raises(RuleError) as raised:
        pot.Game(2, deal=(DEAL.hands, DEAL.pot, swap(DEAL.draw_pile, 46, "T0")))
    assert str(raised.value) == "the deal holds 9 × T0, but the deck has 8"


def test_a_seed_and_a_deal_together_are_refused(pot):
    with pytest.raises(RuleError) as raised:
        pot.Game(2, seed=1, deal=DEAL)
    assert raised.value.code == "invalid_deal"
    with pytest.raises(RuleError) as raised:
        pot.replay(2, [], seed=1, deal=DEAL)
    assert raised.value.code == "invalid_deal"


@pytest.mark.parametrize("seat", [-1, 2, "0", None, 0.0, False])
def test_the_seat_accessors_refuse_unknown_seats(pot, seat):
    game = pot.Game(2, seed=1)
    assert refused(game, game.hand, seat)[0] == "seat_out_of_range"
    if seat is not None:  # view(None) is the public's view
        assert refused(game, game.view, seat)[0] == "seat_out_of_range"


@pytest.mark.parametrize("bot", ["smart", "", None, "Greedy", 0])
def test_an_unknown_bot_is_refused(pot, bot):
    game = pot.Game(2, seed=1)
    assert refused(game, game.choose, bot)[0] == "invalid_bot"
    with pytest.raises(RuleError) as raised:
        pot.simulate(2, 1, bots=[bot, "random"])
    assert raised.value.code == "invalid_bot"


@pytest.mark.parametrize("bots", [["random"], ["random"] * 3, "random", ("greedy", None)])
def test_simulate_wants_one_bot_per_seat(pot, bots):
    with pytest.raises(RuleError) as raised:
        pot.simulate(2, 1, bots=bots)
    assert raised.value.code == "invalid_bot"


@pytest.mark.parametrize(("games", "first"), [(-1, 0), (1.5, 0), ("10", 0), (None, 0), (10**10, 0), (1, -1), (1, "0")])
def test_simulate_refuses_a_bad_number_of_games(pot, games, first):
    with pytest.raises(RuleError) as raised:
        pot.simulate(2, games, first=first)
    assert raised.value.code == "invalid_games"


@pytest.mark.parametrize("moves", ["T0", None, 5, {(0, "T0", False)}, iter([])])
def test_replay_wants_a_list_of_moves(pot, moves):
    with pytest.raises(RuleError) as raised:
        pot.replay(2, moves, seed=1)
    assert raised.value.code == "invalid_move"


def test_errors_are_value_errors_with_a_readable_repr(pot):
    with pytest.raises(ValueError, match="2 to 6 players") as raised:
        pot.Game(7)
    assert repr(raised.value).startswith("InvalidArgument('invalid_players'")
