# The pot game's part of the search bot `mcts` (core/pot/mcts.pyx): what a seat may know,
# and the deals it cannot tell from the real one. The search itself is every game's
# (core/search.pyx).
#
# The search sees a `SeatView`, built by `observe` from the game and holding only what the
# seat to move may know: its own hand, everything public (the pot, every pot that ended,
# hand sizes, the draw pile's size, the totals) and, as counts per kind, the cards it has
# not seen (the other hands and the draw pile together, in no order).

from libc.stdint cimport uint8_t

from core.pot.rules cimport N_TOXICITIES, PotState
from core.search cimport SearchRules

cdef struct SeatView:
    PotState public          # first (search.pxd): the game with every hidden card taken out
    uint8_t unseen[N_TOXICITIES]   # cards of each kind the seat to move has not seen

cdef void observe(const void* game, void* view) noexcept nogil   # game: a PotState, view: a SeatView
cdef const SearchRules* search_rules() noexcept nogil
