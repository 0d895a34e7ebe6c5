# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The pot game's table for the `mcts` bot (core/search.pyx): its view of a seat and its deals.

Each playout shuffles the cards the seat has not seen into the other hands (each of the
size everyone sees) and the draw pile (its order is nobody's to know); the playout runs to
the end of the game, and the highest total wins.
"""

from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memcpy, memset

from core.pot.rules cimport (
    COPIES, DECK_SIZE, ERR_GAME_FINISHED, N_TOXICITIES, OK, PHASE_PLAY, POLICY_GREEDY, POLICY_MCTS, POLICY_RANDOM,
    Outcome, PotState, choose_move, legal_moves, play_move,
)
from core.search cimport ApplyMove, ChooseMove, LegalMoves, dealt_into_hands, field_at, shuffled_pool



cdef const SearchRules* search_rules() noexcept nogil:
    return &RULES


cdef void observe(const void* state, void* seat_view) noexcept nogil:
    cdef const PotState* game = <const PotState*>state
    cdef SeatView* view = <SeatView*>seat_view
    cdef int other, kind, i
    cdef int seat = game.turn
    memcpy(&view.public, game, sizeof(PotState))
    view.public.seeded = 0
    view.public.seed = 0
    memset(view.public.pile, 0, sizeof(view.public.pile))    # the deal's order, the pile's too
    for other in range(view.public.n_players):
        if other != seat:
            memset(view.public.hand[other], 0, N_TOXICITIES)
    for kind in range(N_TOXICITIES):
        view.unseen[kind] = <uint8_t>(COPIES - game.hand[seat][kind])
    # Every card in the pot, or in a pot that ended, lay face up.
    for i in range(game.pot_len):
        view.unseen[game.pot[i]] -= 1
    for i in range(game.n_ended_cards):
        view.unseen[game.ended_cards[i]] -= 1


cdef void determinize(const void* seat_view, uint64_t* rng, void* state) noexcept nogil:
    """A deal the seat cannot tell from the real one: its unseen cards shuffled into the
    other hands, each of the size everyone sees, and the rest, in a random order, the pile."""
    cdef const SeatView* view = <const SeatView*>seat_view
    cdef PotState* deal = <PotState*>state
    cdef uint8_t pool[DECK_SIZE]
    cdef int n, i, j
    memcpy(deal, &view.public, sizeof(PotState))
    n = shuffled_pool(view.unseen, N_TOXICITIES, rng, pool)
    i = dealt_into_hands(pool, n, &deal.hand[0][0], N_TOXICITIES, deal.hand_size, deal.n_players, deal.turn)
    for j in range(deal.pile_top, deal.pile_end):
        if i < n:
            deal.pile[j] = pool[i]
            i += 1


# The pot game's moves are checked as they are played (it has no unchecked play).
cdef PotState probe          # a state only to say where its fields lie
cdef SearchRules RULES = SearchRules(
    sizeof(PotState), sizeof(SeatView), sizeof(Outcome),
    field_at(&probe, &probe.phase), field_at(&probe, &probe.turn),
    field_at(&probe, &probe.n_players), field_at(&probe, &probe.total[0]),
    PHASE_PLAY, False, 1, OK, ERR_GAME_FINISHED,  # the highest total wins; move_shift 1: open or closed
    POLICY_MCTS, POLICY_RANDOM, POLICY_GREEDY,
    <LegalMoves>legal_moves, <ApplyMove>play_move, <ChooseMove>choose_move, observe, determinize,
)
