# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The pot game's `mcts` bot: information-set Monte Carlo tree search in C, without the GIL.

Laid out as Poison's (core/poison/mcts.pyx), over the same tree (core/search.pxd). Each playout
shuffles the cards the seat has not seen into the other hands (each of the size everyone
sees) and the draw pile (its order is nobody's to know), walks the tree, plays on to the
end of the game with the greedy bot (one move in ROLLOUT_RANDOM_IN random) and scores it:
half for the highest total (shared on a tie), half for the margin over the other seats'
mean. The move chosen is the one tried most often at the root; the same view, seed and
playout budget always choose the same move.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from core.pot.rules cimport (
    COPIES, DECK_SIZE, ERR_GAME_FINISHED, MAX_LEGAL_MOVES, MAX_PLAYERS, N_TOXICITIES, OK, PHASE_PLAY,
    POLICY_GREEDY, POLICY_RANDOM, Outcome, PotState, choose_move, legal_moves, play_move,
)
from core.search cimport (
    ERR_NO_MEMORY, MARGIN_SCALE, MAX_MOVE_CODES, NO_NODE, ROLLOUT_RANDOM_IN, Budget, Node, add_child, clipped,
    mark_available, node_init, now_ms, select_child,
)
from core.splitmix cimport next_random, random_below



cdef inline int move_code(int kind, int close) noexcept nogil:
    return kind * 2 + close


cdef void observe(const PotState* game, SeatView* view) noexcept nogil:
    cdef int seat_, kind, i
    cdef int seat = game.turn
    memcpy(&view.public, game, sizeof(PotState))
    view.public.seeded = 0
    view.public.seed = 0
    memset(view.public.pile, 0, sizeof(view.public.pile))    # the deal's order, the pile's too
    for seat_ in range(view.public.n_players):
        if seat_ != seat:
            memset(view.public.hand[seat_], 0, N_TOXICITIES)
    view.seat = <uint8_t>seat
    for kind in range(N_TOXICITIES):
        view.unseen[kind] = <uint8_t>(COPIES - game.hand[seat][kind])
    # Every card in the pot, or in a pot that ended, lay face up.
    for i in range(game.pot_len):
        view.unseen[game.pot[i]] -= 1
    for i in range(game.n_ended_cards):
        view.unseen[game.ended_cards[i]] -= 1


cdef void determinize(const SeatView* view, uint64_t* rng, PotState* deal) noexcept nogil:
    """A deal the seat cannot tell from the real one: its unseen cards shuffled into the
    other hands, each of the size everyone sees, and the rest, in a random order, the pile."""
    cdef uint8_t pool[DECK_SIZE]
    cdef int n = 0
    cdef int kind, copy, i, j, seat, size
    cdef uint8_t swap
    memcpy(deal, &view.public, sizeof(PotState))
    for kind in range(N_TOXICITIES):
        for copy in range(view.unseen[kind]):
            pool[n] = <uint8_t>kind
            n += 1
    for i in range(n - 1, 0, -1):
        j = random_below(rng, <uint32_t>(i + 1))
        swap = pool[i]
        pool[i] = pool[j]
        pool[j] = swap
    i = 0
    for seat in range(deal.n_players):
        if seat == view.seat:
            continue
        for size in range(deal.hand_size[seat]):
            if i < n:
                deal.hand[seat][pool[i]] += 1
                i += 1
    for j in range(deal.pile_top, deal.pile_end):
        if i < n:
            deal.pile[j] = pool[i]
            i += 1


cdef void roll_out(PotState* game, uint64_t* rng) noexcept nogil:
    cdef Outcome outcome
    cdef uint8_t kind, close
    cdef int policy
    while game.phase == PHASE_PLAY:
        policy = POLICY_RANDOM if random_below(rng, <uint32_t>ROLLOUT_RANDOM_IN) == 0 else POLICY_GREEDY
        if choose_move(game, policy, rng, &kind, &close) != OK:
            break
        play_move(game, game.turn, kind, close, &outcome)


cdef void rewards(const PotState* game, double* reward) noexcept nogil:
    """Each seat's reward in [0, 1] as the totals stand: half for the highest total (shared
    on a tie), half for its margin over the other seats' mean."""
    cdef int s
    cdef int n = game.n_players
    cdef int best = game.total[0]
    cdef int winners = 0
    cdef double whole = 0.0
    cdef double others
    for s in range(n):
        whole += game.total[s]
        if game.total[s] > best:
            best = game.total[s]
    for s in range(n):
        winners += game.total[s] == best
    for s in range(n):
        others = (whole - game.total[s]) / (n - 1)
        reward[s] = 0.5 * clipped(0.5 + (game.total[s] - others) / (2.0 * MARGIN_SCALE))
        if game.total[s] == best:
            reward[s] += 0.5 / winners


cdef int search(const SeatView* view, uint64_t seed, const Budget* budget, uint8_t* kind, uint8_t* close,
                uint32_t* root_visits, int64_t* done) noexcept nogil:
    """Search from `view` and write the move chosen; `root_visits` (if not NULL) gets the
    playouts of each legal move in canonical order, `done` the playouts made."""
    cdef PotState deal
    cdef Outcome outcome
    cdef uint8_t kinds[MAX_LEGAL_MOVES]
    cdef uint8_t closes[MAX_LEGAL_MOVES]
    cdef uint8_t root_kinds[MAX_LEGAL_MOVES]
    cdef uint8_t root_closes[MAX_LEGAL_MOVES]
    cdef uint8_t legal[MAX_MOVE_CODES]
    cdef uint8_t has_child[MAX_MOVE_CODES]
    cdef uint8_t untried[MAX_LEGAL_MOVES]
    cdef int32_t path[DECK_SIZE + 2]
    cdef double reward[MAX_PLAYERS]
    cdef uint64_t rng = seed
    cdef Node* nodes
    cdef int32_t n_nodes, node, child
    cdef int64_t playout
    cdef int64_t started = now_ms() if budget.milliseconds > 0 else 0
    cdef int n_root, n, i, n_untried, depth, d, code, best
    cdef uint32_t most
    done[0] = 0
    n_root = legal_moves(&view.public, root_kinds, root_closes)
    if n_root == 0:
        return ERR_GAME_FINISHED
    if root_visits != NULL:
        memset(root_visits, 0, n_root * sizeof(uint32_t))
    if n_root == 1:                 # a forced move needs no search
        kind[0] = root_kinds[0]
        close[0] = root_closes[0]
        return OK
    nodes = <Node*>malloc((budget.playouts + 1) * sizeof(Node))
    if nodes == NULL:
        return ERR_NO_MEMORY
    node_init(&nodes[0], 0, view.seat)
    n_nodes = 1
    for playout in range(budget.playouts):
        if budget.milliseconds > 0 and playout % 16 == 15 and now_ms() - started >= budget.milliseconds:
            break
        determinize(view, &rng, &deal)
        node = 0
        depth = 0
        path[0] = 0
        # Down the tree among the moves this deal allows, until a move is tried for the first time.
        while deal.phase == PHASE_PLAY:
            n = legal_moves(&deal, kinds, closes)
            memset(legal, 0, sizeof(legal))
            memset(has_child, 0, sizeof(has_child))
            for i in range(n):
                legal[move_code(kinds[i], closes[i])] = 1
            mark_available(nodes, node, legal, has_child)
            n_untried = 0
            for i in range(n):
                if not has_child[move_code(kinds[i], closes[i])]:
                    untried[n_untried] = <uint8_t>i
                    n_untried += 1
            if n_untried > 0:
                i = untried[random_below(&rng, <uint32_t>n_untried)]
                child = add_child(nodes, &n_nodes, node, move_code(kinds[i], closes[i]), deal.turn)
                nodes[child].available = 1
                play_move(&deal, deal.turn, kinds[i], closes[i], &outcome)
                depth += 1
                path[depth] = child
                break
            child = select_child(nodes, node, legal)
            play_move(&deal, deal.turn, nodes[child].move >> 1, nodes[child].move & 1, &outcome)
            depth += 1
            path[depth] = child
            node = child
        roll_out(&deal, &rng)
        rewards(&deal, reward)
        nodes[0].visits += 1
        for d in range(1, depth + 1):
            nodes[path[d]].visits += 1
            nodes[path[d]].reward += reward[nodes[path[d]].mover]
        done[0] += 1
    # The move tried most often, the first in canonical order on a tie.
    best = 0
    most = 0
    for i in range(n_root):
        code = move_code(root_kinds[i], root_closes[i])
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
    kind[0] = root_kinds[best]
    close[0] = root_closes[best]
    return OK


cdef int64_t play_out_searching(PotState* game, const uint8_t* policies, const int64_t* playouts,
                                uint64_t* rng) noexcept nogil:
    """play_out (rules.pyx) with seats that search: each `mcts` seat searches from its own
    view with `playouts[seat]` playouts and a seed drawn from `rng`. Stops at the game's end
    or a tree it could not allocate."""
    cdef SeatView view
    cdef Budget budget
    cdef Outcome outcome
    cdef uint8_t kind, close
    cdef int64_t moves = 0
    cdef int64_t done
    cdef int error
    budget.milliseconds = 0
    while game.phase == PHASE_PLAY:
        if policies[game.turn] == POLICY_MCTS:
            observe(game, &view)
            budget.playouts = playouts[game.turn]
            error = search(&view, next_random(rng), &budget, &kind, &close, NULL, &done)
        else:
            error = choose_move(game, policies[game.turn], rng, &kind, &close)
        if error != OK:
            break
        play_move(game, game.turn, kind, close, &outcome)
        moves += 1
    return moves
