# Poison's part of the search bot `mcts` (core/poison/mcts.pyx): what a seat may know, and
# the deals it cannot tell from the real one. The search itself is every game's (core/search.pyx).
#
# The search sees a `SeatView`, built by `observe` from the game and holding only what the
# seat to move may know: its own hand, everything public (cauldrons, pile sizes and the
# suits taken into them — every taken card lay face up in a cauldron first — scores, hand
# sizes) and, as counts per kind, the cards it has not seen (the other hands and the
# set-aside hand together). The search never reads the game itself.

from libc.stdint cimport uint8_t

from core.poison.rules cimport N_KINDS, GameState
from core.search cimport SearchRules

cdef struct SeatView:
    GameState public         # first (search.pxd): the game with every hidden card taken out
    uint8_t unseen[N_KINDS]  # cards of each kind the seat to move has not seen this round

cdef void observe(const void* game, void* view) noexcept nogil   # game: a GameState, view: a SeatView
cdef const SearchRules* search_rules() noexcept nogil
