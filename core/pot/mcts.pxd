# The pot game's search bot, `mcts` (core/pot/mcts.pyx): information-set Monte Carlo tree search.
#
# The search sees a `SeatView`, built by `observe` from the game and holding only what the
# seat to move may know: its own hand, everything public (the pot, every pot that ended,
# hand sizes, the draw pile's size, the totals) and, as counts per kind, the cards it has
# not seen (the other hands and the draw pile together, in no order). `search` never reads
# the game itself.

from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t

from core.pot.rules cimport N_POLICIES, N_TOXICITIES, PotState
from core.search cimport Budget

cdef enum:
    POLICY_MCTS = N_POLICIES # after rules.pxd's POLICY_RANDOM and POLICY_GREEDY: its index in ENGINE_BOTS
    # Playouts of one decision unless told otherwise: a median decision within the 50 ms bar
    # (benchmarks/mcts_bars.py checks it; figures: docs/performance.md).
    DEFAULT_PLAYOUTS = 1000

cdef struct SeatView:
    PotState public          # the game with every hidden card taken out (other hands, the pile's order)
    uint8_t seat
    uint8_t unseen[N_TOXICITIES]   # cards of each kind the seat has not seen

cdef void observe(const PotState* game, SeatView* view) noexcept nogil
cdef int search(const SeatView* view, uint64_t seed, const Budget* budget, uint8_t* kind, uint8_t* close,
                uint32_t* root_visits, int64_t* done) noexcept nogil
cdef int64_t play_out_searching(PotState* game, const uint8_t* policies, const int64_t* playouts,
                                uint64_t* rng) noexcept nogil
