# Poison's search bot, `mcts` (core/poison/mcts.pyx): information-set Monte Carlo tree search.
#
# The search sees a `SeatView`, built by `observe` from the game and holding only what the
# seat to move may know: its own hand, everything public (cauldrons, pile sizes and the
# suits taken into them — every taken card lay face up in a cauldron first — scores, hand
# sizes) and, as counts per kind, the cards it has not seen (the other hands and the
# set-aside hand together). `search` never reads the game itself.

from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t

from core.poison.rules cimport N_KINDS, N_POLICIES, GameState
from core.search cimport Budget

cdef enum:
    POLICY_MCTS = N_POLICIES # after rules.pxd's POLICY_RANDOM and POLICY_GREEDY: its index in ENGINE_BOTS
    # Playouts of one decision unless told otherwise: a median decision within the 50 ms bar
    # (benchmarks/mcts_bars.py checks it; figures: docs/performance.md).
    DEFAULT_PLAYOUTS = 1000

cdef struct SeatView:
    GameState public         # the game with every hidden card taken out (other hands, the seed)
    uint8_t seat
    uint8_t unseen[N_KINDS]  # cards of each kind the seat has not seen this round

cdef void observe(const GameState* game, SeatView* view) noexcept nogil
cdef int search(const SeatView* view, uint64_t seed, const Budget* budget, uint8_t* kind, uint8_t* cauldron,
                uint32_t* root_visits, int64_t* done) noexcept nogil
cdef int64_t play_out_searching(GameState* game, const uint8_t* policies, const int64_t* playouts,
                                uint64_t* rng) noexcept nogil
