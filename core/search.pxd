# The search bot of every game, `mcts`: information-set Monte Carlo tree search in C
# (core/search.pyx), written once over a small per-game table of the game's C rules.
#
# Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012): one tree for the seat that
# searches, whose nodes are moves, not states. Each playout deals the hidden cards anew
# (a determinization consistent with what the seat has seen), walks down the tree among
# the moves legal in that deal, adds one node, plays the rest of the way with a fast bot
# and credits every node on its path with the result for the seat that made its move.
#
# A game takes part by filling a `SearchRules` (its mcts.pyx does, from its rules.pxd):
# where its state keeps the phase, the turn, the players and the totals, which way its
# totals win, how a move's two numbers pack into one code, and five C functions (legal
# moves, apply a move, choose a bot's move, observe a seat's view, determinize a view):
# mostly the rules' own, their state passed as void*.
# A game's view of a seat (its SeatView) must begin with the public state it searches from.

from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t

from core.splitmix cimport shuffle

cdef enum:
    ERR_NO_MEMORY = 100      # the tree could not be allocated (after every rule error code)
    # Playouts of one decision unless told otherwise: a median decision within the 50 ms bar
    # (benchmarks/mcts_bars.py checks it; figures: docs/performance.md).
    DEFAULT_PLAYOUTS = 1000
    MAX_SEARCH_MOVES = 64    # legal moves of one position, and move codes: every game's fit
    MAX_SEARCH_SEATS = 8     # seats of one game: every game's fit
    MAX_SEARCH_DEPTH = 64    # moves of one game: every game's deck is smaller

# What one search may spend: playouts, and milliseconds if `milliseconds` > 0.
cdef struct Budget:
    int64_t playouts
    int64_t milliseconds

ctypedef int (*LegalMoves)(const void* game, uint8_t* kinds, uint8_t* seconds) noexcept nogil
ctypedef int (*ApplyMove)(void* game, int seat, int kind, int second, void* outcome) noexcept nogil
ctypedef int (*ChooseMove)(const void* game, int policy, uint64_t* rng, uint8_t* kind, uint8_t* second) noexcept nogil
ctypedef void (*Observe)(const void* game, void* view) noexcept nogil
ctypedef void (*Determinize)(const void* view, uint64_t* rng, void* deal) noexcept nogil

# One game as the search sees it. A move is two numbers, its card kind and a second (Poison:
# the cauldron; the pot game: whether it closes), in canonical order as `legal_moves` lists them.
cdef struct SearchRules:
    size_t state_size        # the game's state struct
    size_t view_size         # its SeatView, which begins with the public state
    size_t outcome_size      # what apply_move writes of a move
    size_t phase_at          # where the state keeps its phase (a byte) ...
    size_t turn_at           # ... the seat to move (a byte) ...
    size_t players_at        # ... the number of players (a byte) ...
    size_t totals_at         # ... and each seat's total (int16 per seat)
    uint8_t phase_play       # the phase in which a seat is to move
    bint lowest_wins         # whether the lowest total wins (else the highest)
    uint8_t move_shift       # a move's code: kind << move_shift | second
    int ok                   # the rules' error code for none
    int finished_error       # the rules' error code for a game with no move to make
    int search_policy        # the policy code of `mcts` (after the rules' own bots)
    int random_policy        # the rules' random and greedy bots, which roll a playout out
    int greedy_policy
    LegalMoves legal_moves
    ApplyMove apply_move     # may skip the checks: the move is one legal_moves listed
    ChooseMove choose_move
    Observe observe
    Determinize determinize


cdef inline size_t field_at(const void* state, const void* field) noexcept nogil:
    """Where `field` lies in `state` (for a table's *_at offsets)."""
    return <size_t>(<const char*>field - <const char*>state)


cdef inline int shuffled_pool(const uint8_t* unseen, int n_kinds, uint64_t* rng, uint8_t* pool) noexcept nogil:
    """The cards a seat has not seen (`unseen` counts per kind) into `pool`, shuffled
    (Fisher-Yates, drawing from `rng`); how many there are."""
    cdef int n = 0
    cdef int kind, copy
    for kind in range(n_kinds):
        for copy in range(unseen[kind]):
            pool[n] = <uint8_t>kind
            n += 1
    shuffle(pool, n, rng)
    return n


cdef inline int dealt_into_hands(const uint8_t* pool, int n, uint8_t* hands, int n_kinds,
                                 const uint8_t* hand_sizes, int n_hands, int seat) noexcept nogil:
    """Deal `pool` (`n` cards) into every hand but `seat`'s, each to its size (`hands`:
    `n_hands` rows of `n_kinds` counts); how many cards that took."""
    cdef int i = 0
    cdef int hand, size
    for hand in range(n_hands):
        if hand == seat:
            continue
        for size in range(hand_sizes[hand]):
            if i < n:
                hands[hand * n_kinds + pool[i]] += 1
                i += 1
    return i


cdef int search(const SearchRules* rules, const void* view, uint64_t seed, const Budget* budget,
                uint8_t* kind, uint8_t* second, uint32_t* root_visits, int64_t* done) noexcept nogil
cdef int64_t play_out_searching(const SearchRules* rules, void* game, const uint8_t* policies,
                                const int64_t* playouts, uint64_t* rng) noexcept nogil
