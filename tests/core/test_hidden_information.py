"""rules.md, "Hidden information": what a view shows, and to whom."""

import pytest

from core.errors import RuleError


def advance(game, moves):
    for _ in range(moves):
        move = game.legal_moves()[0]
        game.play(game.turn, *move)


def test_a_seats_view_shows_its_own_hand_and_no_other(rules):
    game = rules.Game(4, seed=10)
    advance(game, 9)
    for seat in range(4):
        view = game.view(seat)
        assert view.seat == seat
        assert view.hand == game.hand(seat)
        assert view.hand_sizes == game.hand_sizes


def test_the_public_view_shows_no_hand_at_all(rules):
    game = rules.Game(4, seed=10)
    view = game.view()
    assert (view.seat, view.hand, view.legal_moves) == (None, None, None)


def test_only_the_seat_to_move_sees_legal_moves(rules):
    game = rules.Game(4, seed=10)
    for seat in range(4):
        assert game.view(seat).legal_moves == (game.legal_moves() if seat == game.turn else ())


def test_taken_piles_show_only_their_size_during_the_round(rules):
    game = rules.Game(4, seed=11)
    while sum(game.pile_sizes) == 0:
        advance(game, 1)
    for seat in range(4):
        view = game.view(seat)
        assert view.taken == game.pile_sizes
        assert all(isinstance(size, int) for size in view.taken)
        assert sum(sum(game.taken(s)) for s in range(4)) == sum(view.taken)


def test_everything_that_was_face_up_in_a_cauldron_stays_visible(rules):
    game = rules.Game(4, seed=12)
    shown: list[list[str]] = [[], [], []]  # what an onlooker saw go in since the last overflow
    while game.status == "active" and game.round == 1:
        result = game.play(game.turn, *game.legal_moves()[0])
        if result.round_over:
            break
        shown[result.cauldron] = [result.card] if result.taken else [*shown[result.cauldron], result.card]
        assert [list(c.cards) for c in game.view().cauldrons] == shown
        assert [list(c.cards) for c in game.view(result.seat).cauldrons] == shown


def test_the_set_aside_hand_is_in_no_view(rules):
    game = rules.Game(3, seed=13)
    aside = game.set_aside()
    assert len(aside) == 12
    for view in [game.view(), *(game.view(s) for s in range(3))]:
        assert "set_aside" not in view._fields
        assert view.hand is None or sorted(view.hand) != sorted(aside)
        assert sum(view.hand_sizes) == 38


@pytest.mark.parametrize("seat", [-1, 4, 6, "0", 1.0, True])
def test_a_view_for_a_seat_that_does_not_exist_is_refused(rules, seat):
    with pytest.raises(RuleError) as refused:
        rules.Game(4, seed=1).view(seat)
    assert refused.value.code == "seat_out_of_range"
