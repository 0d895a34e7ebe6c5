# The rules' own bots, `random` and `greedy`, written once for every game: the choice among
# the legal moves and the loop that plays a game out with them. Inline C only, like
# splitmix.pxd: each rules.pyx compiles its own copy, called with its own rule functions,
# which are constants there, so the compiler calls (and may inline) them directly.

from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t

from core.splitmix cimport random_below

cdef enum:
    MAX_BOT_MOVES = 64       # legal moves of one position: every game's fit

# The strategies the C loops can play a seat with, in every game (the index into
# core.face's ENGINE_BOTS): the rules' own two, then the search bot (core/search.pyx).
cdef enum:
    POLICY_RANDOM = 0        # a uniformly random legal move
    POLICY_GREEDY = 1        # the game's greedy_key decides
    N_POLICIES = 2
    POLICY_MCTS = 2

ctypedef int (*BotLegalMoves)(const void* game, uint8_t* kinds, uint8_t* seconds) noexcept nogil
ctypedef int (*BotKey)(const void* game, int kind, int second) noexcept nogil
ctypedef int (*BotChoose)(const void* game, int policy, uint64_t* rng, uint8_t* kind, uint8_t* second) noexcept nogil
ctypedef void (*BotApply)(void* game, int seat, int kind, int second) noexcept nogil


cdef inline bint bot_move(const void* game, BotLegalMoves legal_moves, BotKey key, bint lowest_key, bint greedy,
                          uint64_t* rng, uint8_t* kind, uint8_t* second) noexcept nogil:
    """The move a bot plays, into `kind` and `second`: the greedy bot's best key (the lowest
    or the highest, the first in canonical order on a tie), or the random bot's uniform
    draw from `rng`. False, and nothing written, when there is no legal move."""
    cdef uint8_t kinds[MAX_BOT_MOVES]
    cdef uint8_t seconds[MAX_BOT_MOVES]
    cdef int n = legal_moves(game, kinds, seconds)
    cdef int pick = 0
    cdef int i, k, best
    if n == 0:
        return False
    if greedy:
        best = key(game, kinds[0], seconds[0])
        for i in range(1, n):
            k = key(game, kinds[i], seconds[i])
            if (k < best) if lowest_key else (k > best):
                best = k
                pick = i
    else:
        pick = random_below(rng, <uint32_t>n)
    kind[0] = kinds[pick]
    second[0] = seconds[pick]
    return True


cdef inline int64_t bots_play_out(void* game, const uint8_t* phase, uint8_t playing, const uint8_t* turn,
                                  const uint8_t* policies, uint64_t* rng, BotChoose choose_move,
                                  BotApply apply_move, int ok) noexcept nogil:
    """Play while `phase[0]` (the game's phase) is `playing`, each seat its policy's move
    (`turn[0]` the seat to move); returns the number of moves made."""
    cdef uint8_t kind, second
    cdef int64_t moves = 0
    while phase[0] == playing:
        if choose_move(game, policies[turn[0]], rng, &kind, &second) != ok:
            break
        apply_move(game, turn[0], kind, second)
        moves += 1
    return moves
