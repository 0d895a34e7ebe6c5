# The checks every game makes of a move, written once and in this order (the contract each
# game's reference keeps too; the first that fails names the refusal): the seat, the card and
# the move's second number (Poison's cauldron, the pot game's close) in range; then the game
# not finished, dealt, the seat's turn, the card in its hand. A game's own checks follow.
# Inline C only, like splitmix.pxd: each rules.pyx compiles its own copy.

from libc.stdint cimport uint8_t

# A game's error codes for those checks (its rules.pxd numbers them).
cdef struct MoveRefusals:
    int seat_out_of_range
    int unknown_card
    int bad_second
    int game_finished
    int awaiting_deal
    int not_your_turn
    int card_not_in_hand


cdef inline int move_refusal(const MoveRefusals* codes, int players, int n_kinds, bint second_in_range,
                             bint finished, bint dealing, int turn, const uint8_t* hands,
                             int seat, int kind) noexcept nogil:
    """The first check `seat` playing `kind` fails, as the game's code, or 0; `hands` are the
    seats' rows of `n_kinds` counts."""
    if seat < 0 or seat >= players:
        return codes.seat_out_of_range
    if kind < 0 or kind >= n_kinds:
        return codes.unknown_card
    if not second_in_range:
        return codes.bad_second
    if finished:
        return codes.game_finished
    if dealing:
        return codes.awaiting_deal
    if seat != turn:
        return codes.not_your_turn
    if hands[seat * n_kinds + kind] == 0:
        return codes.card_not_in_hand
    return 0
