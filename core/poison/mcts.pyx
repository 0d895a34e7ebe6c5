# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Poison's table for the `mcts` bot (core/search.pyx): its view of a seat and its deals.

Each playout deals the cards the seat has not seen at random among the hands it has not
seen (the set-aside hand of a three-player round is one of them), so every deal it searches
is one the seat cannot tell from the real one. The playout stops at the end of the round
(a new deal is awaited), because the next round's deal is unknown to everyone; the lowest
total wins.
"""

from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memcpy, memset

from core.poison.rules cimport (
    DECK_SIZE, ERR_GAME_FINISHED, MAX_HANDS, N_KINDS, OK, PHASE_PLAY, POLICY_GREEDY, POLICY_MCTS, POLICY_RANDOM,
    GameState, Outcome, apply_move, choose_move, hands_dealt, kind_copies, legal_moves,
)
from core.search cimport ChooseMove, LegalMoves, dealt_into_hands, field_at, shuffled_pool



cdef const SearchRules* search_rules() noexcept nogil:
    return &RULES


cdef void observe(const void* state, void* seat_view) noexcept nogil:
    cdef const GameState* game = <const GameState*>state
    cdef SeatView* view = <SeatView*>seat_view
    cdef int hand, kind
    cdef int seat = game.turn
    memcpy(&view.public, game, sizeof(GameState))
    view.public.seeded = 0          # later rounds' deals are nobody's to know
    view.public.seed = 0
    for hand in range(MAX_HANDS):
        if hand != seat:
            memset(view.public.hand[hand], 0, N_KINDS)
    for kind in range(N_KINDS):
        # Not in its hand and never face up this round: in a hand it has not seen.
        view.unseen[kind] = <uint8_t>(kind_copies(kind) - game.hand[seat][kind] - game.played[kind])


cdef void determinize(const void* seat_view, uint64_t* rng, void* state) noexcept nogil:
    """A deal the seat cannot tell from the real one: its unseen cards shuffled into the
    hands it has not seen, each of the size everyone can see."""
    cdef const SeatView* view = <const SeatView*>seat_view
    cdef GameState* deal = <GameState*>state
    cdef uint8_t pool[DECK_SIZE]
    cdef int n
    memcpy(deal, &view.public, sizeof(GameState))
    n = shuffled_pool(view.unseen, N_KINDS, rng, pool)
    dealt_into_hands(pool, n, &deal.hand[0][0], N_KINDS, deal.hand_size, hands_dealt(deal.n_players), deal.turn)


cdef int apply(void* game, int seat, int kind, int cauldron, void* outcome) noexcept nogil:
    # The rules' unchecked move: the search plays only the moves legal_moves listed.
    apply_move(<GameState*>game, seat, kind, cauldron, <Outcome*>outcome)
    return OK


cdef GameState probe         # a state only to say where its fields lie
cdef SearchRules RULES = SearchRules(
    sizeof(GameState), sizeof(SeatView), sizeof(Outcome), field_at(&probe, &probe.phase),
    field_at(&probe, &probe.turn), field_at(&probe, &probe.n_players), field_at(&probe, &probe.total[0]),
    PHASE_PLAY, True, 2, OK, ERR_GAME_FINISHED, POLICY_MCTS, POLICY_RANDOM, POLICY_GREEDY,  # 2: cauldrons 0-2
    <LegalMoves>legal_moves, apply, <ChooseMove>choose_move, observe, determinize,
)
