# The search tree of information-set Monte Carlo tree search, shared by both games' bots.
#
# Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012): one tree for the seat that
# searches, whose nodes are moves, not states. Each playout deals the hidden cards anew
# (a determinization consistent with what the seat has seen), walks down the tree among
# the moves legal in that deal, adds one node, plays the rest of the way with a fast bot
# and credits every node on its path with the result for the seat that made its move.
# A child is chosen by UCB1 over its *availability* (how often it was legal when its
# parent was reached), not its parent's visits: a move the deal rarely allows is not
# starved. Inline C only, like splitmix.pxd: each game's mcts.pyx compiles its own copy.

from libc.math cimport log, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

cdef enum:
    NO_NODE = -1
    MAX_MOVE_CODES = 64      # a move's code fits in a byte; both games' codes are below 64
    ERR_NO_MEMORY = 100      # the tree could not be allocated (after every rule error code)
    # One rollout move in this many is random rather than greedy, so that no deal is read as
    # if everyone were certain to play greedily.
    ROLLOUT_RANDOM_IN = 10
    # Points of margin over the other seats' mean worth the whole margin half of a reward.
    MARGIN_SCALE = 20


cdef struct Node:
    int32_t first_child
    int32_t next_sibling
    uint8_t move             # the game's move code (Poison: kind * 4 + cauldron; pot: kind * 2 + close)
    uint8_t mover            # the seat that made the move
    uint32_t visits
    uint32_t available       # playouts in which this move was legal at its parent
    double reward            # summed over visits, for `mover`

# What one search may spend: playouts, and milliseconds if `milliseconds` > 0.
cdef struct Budget:
    int64_t playouts
    int64_t milliseconds


cdef inline int64_t now_ms() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return <int64_t>t.tv_sec * 1000 + t.tv_nsec // 1000000


cdef inline void node_init(Node* node, int move, int mover) noexcept nogil:
    node.first_child = NO_NODE
    node.next_sibling = NO_NODE
    node.move = <uint8_t>move
    node.mover = <uint8_t>mover
    node.visits = 0
    node.available = 0
    node.reward = 0.0


cdef inline int32_t add_child(Node* nodes, int32_t* n_nodes, int32_t parent, int move, int mover) noexcept nogil:
    cdef int32_t child = n_nodes[0]
    n_nodes[0] += 1
    node_init(&nodes[child], move, mover)
    nodes[child].next_sibling = nodes[parent].first_child
    nodes[parent].first_child = child
    return child


cdef inline void mark_available(Node* nodes, int32_t parent, const uint8_t* legal,
                                uint8_t* has_child) noexcept nogil:
    """Count each child whose move is legal in this playout's deal as available, and flag
    its code in `has_child` (MAX_MOVE_CODES bytes, cleared by the caller)."""
    cdef int32_t child = nodes[parent].first_child
    while child != NO_NODE:
        if legal[nodes[child].move]:
            nodes[child].available += 1
            has_child[nodes[child].move] = 1
        child = nodes[child].next_sibling


cdef inline double exploration() noexcept nogil:
    # UCB1's constant: how far the search looks for a move worth trying again; about
    # sqrt(2) / 2 suits rewards in [0, 1]. (A function: a .pxd holding a variable would
    # make this a module to import.)
    return 0.7


cdef inline int32_t select_child(const Node* nodes, int32_t parent, const uint8_t* legal) noexcept nogil:
    """The legal child UCB1 prefers, by availability (the first made on a tie)."""
    cdef int32_t child = nodes[parent].first_child
    cdef int32_t best = NO_NODE
    cdef double score
    cdef double best_score = -1.0
    while child != NO_NODE:
        if legal[nodes[child].move]:
            score = (nodes[child].reward / nodes[child].visits
                     + exploration() * sqrt(log(<double>nodes[child].available) / nodes[child].visits))
            if score > best_score:
                best_score = score
                best = child
        child = nodes[child].next_sibling
    return best


cdef inline double clipped(double x) noexcept nogil:
    return 0.0 if x < 0.0 else (1.0 if x > 1.0 else x)
