# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The `mcts` bot of every game: information-set Monte Carlo tree search in C, without the GIL.

Written once over a game's `SearchRules` (core/search.pxd). Each playout determinizes the
seat's view (the game's own function deals the cards the seat has not seen into the places
it has not seen, each of the size everyone sees), walks the tree, plays on with the greedy
bot (one move in ROLLOUT_RANDOM_IN random, so that no deal is read as if everyone were
certain to play greedily) to the end of the round or game as far as the view reaches, and
scores it: half for the best total (shared on a tie), half for the margin over the other
seats' mean. A child is chosen by UCB1 over its *availability* (how often it was legal when
its parent was reached), not its parent's visits: a move the deal rarely allows is not
starved. The move chosen is the one tried most often at the root; the same view, seed and
playout budget always choose the same move.
"""

from libc.math cimport log, sqrt
from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

from core.splitmix cimport next_random, random_below

cdef enum:
    NO_NODE = -1
    # One rollout move in this many is random rather than greedy.
    ROLLOUT_RANDOM_IN = 10
    # Points of margin over the other seats' mean worth the whole margin half of a reward.
    MARGIN_SCALE = 20

# UCB1's constant: how far the search looks for a move worth trying again; about
# sqrt(2) / 2 suits rewards in [0, 1].
cdef double EXPLORATION = 0.7


cdef struct Node:
    int32_t first_child
    int32_t next_sibling
    uint8_t move             # the move's code (SearchRules.move_shift)
    uint8_t mover            # the seat that made the move
    uint32_t visits
    uint32_t available       # playouts in which this move was legal at its parent
    double reward            # summed over visits, for `mover`


cdef inline int64_t now_ms() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return <int64_t>t.tv_sec * 1000 + t.tv_nsec // 1000000


cdef inline uint8_t byte_at(const void* state, size_t offset) noexcept nogil:
    return (<const uint8_t*>state)[offset]


cdef inline bint playing(const SearchRules* rules, const void* state) noexcept nogil:
    return byte_at(state, rules.phase_at) == rules.phase_play


cdef inline int turn(const SearchRules* rules, const void* state) noexcept nogil:
    return byte_at(state, rules.turn_at)


cdef inline int move_code(const SearchRules* rules, int kind, int second) noexcept nogil:
    return (kind << rules.move_shift) | second


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
    its code in `has_child` (MAX_SEARCH_MOVES bytes, cleared by the caller)."""
    cdef int32_t child = nodes[parent].first_child
    while child != NO_NODE:
        if legal[nodes[child].move]:
            nodes[child].available += 1
            has_child[nodes[child].move] = 1
        child = nodes[child].next_sibling


cdef inline int32_t select_child(const Node* nodes, int32_t parent, const uint8_t* legal) noexcept nogil:
    """The legal child UCB1 prefers, by availability (the first made on a tie)."""
    cdef int32_t child = nodes[parent].first_child
    cdef int32_t best = NO_NODE
    cdef double score
    cdef double best_score = -1.0
    while child != NO_NODE:
        if legal[nodes[child].move]:
            score = (nodes[child].reward / nodes[child].visits
                     + EXPLORATION * sqrt(log(<double>nodes[child].available) / nodes[child].visits))
            if score > best_score:
                best_score = score
                best = child
        child = nodes[child].next_sibling
    return best


cdef inline double clipped(double x) noexcept nogil:
    return 0.0 if x < 0.0 else (1.0 if x > 1.0 else x)


cdef void roll_out(const SearchRules* rules, void* game, void* outcome, uint64_t* rng) noexcept nogil:
    cdef uint8_t kind, second
    cdef int policy
    while playing(rules, game):
        policy = rules.random_policy if random_below(rng, <uint32_t>ROLLOUT_RANDOM_IN) == 0 else rules.greedy_policy
        if rules.choose_move(game, policy, rng, &kind, &second) != rules.ok:
            break
        rules.apply_move(game, turn(rules, game), kind, second, outcome)


cdef void rewards(const SearchRules* rules, const void* game, double* reward) noexcept nogil:
    """Each seat's reward in [0, 1] as the totals stand: half for the best total (shared on
    a tie), half for its margin over the other seats' mean."""
    cdef const int16_t* total = <const int16_t*>(<const uint8_t*>game + rules.totals_at)
    cdef int s
    cdef int n = byte_at(game, rules.players_at)
    cdef int best = total[0]
    cdef int winners = 0
    cdef double whole = 0.0
    cdef double others, margin
    for s in range(n):
        whole += total[s]
        if (total[s] < best) if rules.lowest_wins else (total[s] > best):
            best = total[s]
    for s in range(n):
        winners += total[s] == best
    for s in range(n):
        others = (whole - total[s]) / (n - 1)
        margin = (others - total[s]) if rules.lowest_wins else (total[s] - others)
        reward[s] = 0.5 * clipped(0.5 + margin / (2.0 * MARGIN_SCALE))
        if total[s] == best:
            reward[s] += 0.5 / winners


cdef int search(const SearchRules* rules, const void* view, uint64_t seed, const Budget* budget,
                uint8_t* kind, uint8_t* second, uint32_t* root_visits, int64_t* done) noexcept nogil:
    """Search from `view` and write the move chosen; `root_visits` (if not NULL) gets the
    playouts of each legal move in canonical order, `done` the playouts made."""
    cdef uint8_t kinds[MAX_SEARCH_MOVES]
    cdef uint8_t seconds[MAX_SEARCH_MOVES]
    cdef uint8_t root_kinds[MAX_SEARCH_MOVES]
    cdef uint8_t root_seconds[MAX_SEARCH_MOVES]
    cdef uint8_t legal[MAX_SEARCH_MOVES]
    cdef uint8_t has_child[MAX_SEARCH_MOVES]
    cdef uint8_t untried[MAX_SEARCH_MOVES]
    cdef int32_t path[MAX_SEARCH_DEPTH + 2]
    cdef double reward[MAX_SEARCH_SEATS]
    cdef uint64_t rng = seed
    cdef void* deal                 # the playout's state, then what a move did (scratch)
    cdef void* outcome
    cdef Node* nodes
    cdef int32_t n_nodes, node, child
    cdef int64_t playout
    cdef int64_t started = now_ms() if budget.milliseconds > 0 else 0
    cdef int n_root, n, i, n_untried, depth, d, code, best
    cdef int low = (1 << rules.move_shift) - 1
    cdef uint32_t most
    done[0] = 0
    # The view begins with the public state: the position searched.
    n_root = rules.legal_moves(view, root_kinds, root_seconds)
    if n_root == 0:
        return rules.finished_error
    if root_visits != NULL:
        memset(root_visits, 0, n_root * sizeof(uint32_t))
    if n_root == 1:                 # a forced move needs no search
        kind[0] = root_kinds[0]
        second[0] = root_seconds[0]
        return rules.ok
    nodes = <Node*>malloc((budget.playouts + 1) * sizeof(Node))
    deal = malloc(rules.state_size + rules.outcome_size)
    outcome = <uint8_t*>deal + rules.state_size
    if nodes == NULL or deal == NULL:
        free(nodes)
        free(deal)
        return ERR_NO_MEMORY
    node_init(&nodes[0], 0, turn(rules, view))
    n_nodes = 1
    for playout in range(budget.playouts):
        if budget.milliseconds > 0 and playout % 16 == 15 and now_ms() - started >= budget.milliseconds:
            break
        rules.determinize(view, &rng, deal)
        node = 0
        depth = 0
        path[0] = 0
        # Down the tree among the moves this deal allows, until a move is tried for the first time.
        while playing(rules, deal):
            n = rules.legal_moves(deal, kinds, seconds)
            memset(legal, 0, sizeof(legal))
            memset(has_child, 0, sizeof(has_child))
            for i in range(n):
                legal[move_code(rules, kinds[i], seconds[i])] = 1
            mark_available(nodes, node, legal, has_child)
            n_untried = 0
            for i in range(n):
                if not has_child[move_code(rules, kinds[i], seconds[i])]:
                    untried[n_untried] = <uint8_t>i
                    n_untried += 1
            if n_untried > 0:
                i = untried[random_below(&rng, <uint32_t>n_untried)]
                child = add_child(nodes, &n_nodes, node, move_code(rules, kinds[i], seconds[i]), turn(rules, deal))
                nodes[child].available = 1
                rules.apply_move(deal, turn(rules, deal), kinds[i], seconds[i], outcome)
                depth += 1
                path[depth] = child
                break
            child = select_child(nodes, node, legal)
            rules.apply_move(deal, turn(rules, deal), nodes[child].move >> rules.move_shift, nodes[child].move & low,
                             outcome)
            depth += 1
            path[depth] = child
            node = child
        roll_out(rules, deal, outcome, &rng)
        rewards(rules, deal, reward)
        nodes[0].visits += 1
        for d in range(1, depth + 1):
            nodes[path[d]].visits += 1
            nodes[path[d]].reward += reward[nodes[path[d]].mover]
        done[0] += 1
    # The move tried most often, the first in canonical order on a tie.
    best = 0
    most = 0
    for i in range(n_root):
        code = move_code(rules, root_kinds[i], root_seconds[i])
        child = nodes[0].first_child
        while child != NO_NODE and nodes[child].move != code:
            child = nodes[child].next_sibling
        if child != NO_NODE:
            if root_visits != NULL:
                root_visits[i] = nodes[child].visits
            if nodes[child].visits > most:
                most = nodes[child].visits
                best = i
    free(nodes)
    free(deal)
    kind[0] = root_kinds[best]
    second[0] = root_seconds[best]
    return rules.ok


cdef int64_t play_out_searching(const SearchRules* rules, void* game, const uint8_t* policies,
                                const int64_t* playouts, uint64_t* rng) noexcept nogil:
    """The rules' play_out with seats that search: each `mcts` seat searches from its own
    view with `playouts[seat]` playouts and a seed drawn from `rng`. Stops at the game's end,
    a deal it must wait for, or memory it could not allocate (the game then unfinished)."""
    cdef Budget budget
    cdef uint8_t kind, second
    cdef int64_t moves = 0
    cdef int64_t done
    cdef int error
    cdef int seat
    cdef void* view = malloc(rules.view_size + rules.outcome_size)     # and what a move did
    cdef void* outcome = <uint8_t*>view + rules.view_size
    if view == NULL:
        return 0
    budget.milliseconds = 0
    while playing(rules, game):
        seat = turn(rules, game)
        if policies[seat] == rules.search_policy:
            rules.observe(game, view)
            budget.playouts = playouts[seat]
            error = search(rules, view, next_random(rng), &budget, &kind, &second, NULL, &done)
        else:
            error = rules.choose_move(game, policies[seat], rng, &kind, &second)
        if error != rules.ok:
            break
        rules.apply_move(game, seat, kind, second, outcome)
        moves += 1
    free(view)
    return moves
