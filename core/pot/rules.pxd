# The pot game (rules.md, "The pot game") — the rules as C, declared.
#
# Fifty-six cards, eight of each toxicity 0..6 (T0..T6); 2 to 6 players. Each is dealt four
# cards, one at a time from seat 0; the next card starts the pot, the rest is the draw pile.
# Seat 0 plays first. A turn: one card into the pot, and say whether to close it. A pot
# whose toxicity (the sum of its cards) exceeds 14 explodes: discarded, nobody scores, and
# it may not be closed. A closing scores 1, plus 1 per card if the toxicity is at most the
# number of cards, else minus the toxicity. After an explosion or a closing the pile's top
# card starts the next pot (or it starts empty); then the player draws back up to four.
# A turn that starts with the pile empty is an endgame turn: no closing, no drawing. Empty
# hands are skipped; when the last card of the last hand goes in, the pot (if any card is
# in it) is closed for its player, and the game is over. Highest total wins.
#
# Everything here is C: one struct holds the whole game, the rule functions take a pointer
# to it, never touch a Python object and report what went wrong with an error code.
# `core/pot/engine.pyx` is the only Python face of these functions.

from libc.stdint cimport int8_t, int16_t, int64_t, uint8_t, uint32_t, uint64_t

# The strategies the C loops can play a seat with are every game's (core/bots.pxd), as are
# the first checks of a move (core/turns.pxd).
from core.bots cimport N_POLICIES, POLICY_GREEDY, POLICY_MCTS, POLICY_RANDOM
from core.turns cimport MoveRefusals

cdef enum:
    N_TOXICITIES = 7         # card kinds T0..T6: kind k is toxicity k
    COPIES = 8               # copies of each kind in the deck
    DECK_SIZE = 56
    HAND_SIZE = 4            # a hand is dealt, and refilled, to four cards
    EXPLODE_LIMIT = 14       # a pot whose toxicity exceeds this explodes
    CLOSING_POINT = 1        # what closing a pot is worth before its cards count
    MIN_PLAYERS = 2
    MAX_PLAYERS = 6
    # The most cards a pot can hold: 8 × T0, 8 × T1 and 3 × T2 stay within the limit
    # (toxicity 14); the next card explodes it.
    MAX_POT_CARDS = 20
    MAX_POTS = 56            # every pot that ends holds at least one card of the deck
    MAX_LEGAL_MOVES = 14     # seven kinds × (keep open, close), at the very most
    NO_CARD = -1

# Where a game stands (the index into STATUSES).
cdef enum:
    PHASE_DEAL = 0           # waiting for the deal
    PHASE_PLAY = 1
    PHASE_OVER = 2

# How a pot ended.
cdef enum:
    POT_CLOSED = 0
    POT_EXPLODED = 1

# Error codes of the rule functions; engine.pyx maps each to a Python exception.
cdef enum:
    OK = 0
    ERR_NOT_YOUR_TURN = 1
    ERR_CARD_NOT_IN_HAND = 2
    ERR_CLOSE_EXPLODES = 3       # cannot_close: the card makes the pot explode
    ERR_CLOSE_ENDGAME = 4        # cannot_close: the draw pile is empty
    ERR_GAME_FINISHED = 5
    ERR_AWAITING_DEAL = 6
    ERR_NOT_AWAITING_DEAL = 7
    ERR_SEAT_OUT_OF_RANGE = 8
    ERR_UNKNOWN_CARD = 9
    ERR_INVALID_MOVE = 10        # `close` is not a boolean
    ERR_INVALID_DEAL = 11
    ERR_INVALID_PLAYERS = 12

# One line of the score sheet: a pot that ended. Its cards are `ended_cards[first:first+n]`.
cdef struct PotRecord:
    uint8_t seat                 # who closed it, or whose card exploded it
    uint8_t outcome              # POT_CLOSED or POT_EXPLODED
    uint8_t first
    uint8_t n_cards
    uint8_t toxicity
    int8_t points                # 0 for an explosion

cdef struct PotState:
    uint8_t n_players
    uint8_t phase
    uint8_t turn                             # the seat to move, while PHASE_PLAY
    uint8_t seeded
    uint64_t seed
    uint8_t hand[MAX_PLAYERS][N_TOXICITIES]  # cards per kind
    uint8_t hand_size[MAX_PLAYERS]
    uint8_t pot[MAX_POT_CARDS]               # the pot's kinds, in the order they went in
    uint8_t pot_len
    uint8_t pot_toxicity
    uint8_t pile[DECK_SIZE]                  # the draw pile's kinds; pile[pile_top] is on top
    uint8_t pile_top
    uint8_t pile_end                         # one past the bottom card
    PotRecord record[MAX_POTS]               # every pot that ended, in order
    uint8_t n_records
    uint8_t ended_cards[DECK_SIZE]           # their cards, pot after pot
    uint8_t n_ended_cards
    int16_t total[MAX_PLAYERS]

# What one move did.
cdef struct Outcome:
    uint8_t seat
    uint8_t kind
    uint8_t close
    uint8_t toxicity                         # the pot's toxicity right after the card went in
    int8_t ended                             # the record of the pot it ended, or -1
    int8_t started                           # the kind that started the next pot, or NO_CARD
    uint8_t n_drawn
    uint8_t drawn[HAND_SIZE]
    int8_t final                             # the record of the last pot, or -1
    uint8_t game_over

# A deal is DEAL_SIZE kinds: seat 0's four cards, seat 1's, …, then the pot's first card,
# then the draw pile from the top (players × HAND_SIZE + 1 + pile: always the whole deck).

# The cards.
cdef int kind_from_chars(int first, int second) noexcept nogil   # -1 for an unknown code

# Dealing.
cdef int pile_size(int n_players) noexcept nogil        # the draw pile right after the deal
cdef void shuffled_deck(uint64_t seed, uint8_t* deck) noexcept nogil   # DECK_SIZE kinds, shuffled
cdef int check_deck(const uint8_t* deck) noexcept nogil # OK when it is the whole deck, in any order
cdef void deal_from_seed(uint64_t seed, int n_players, uint8_t* deck) noexcept nogil   # laid out as a deal

# A game.
cdef int game_init(PotState* game, int n_players) noexcept nogil
cdef int game_deal(PotState* game, const uint8_t* deck) noexcept nogil
cdef void game_seed(PotState* game, uint64_t seed) noexcept nogil
cdef bint endgame(const PotState* game) noexcept nogil
cdef const MoveRefusals* move_refusals() noexcept nogil   # check_move's first codes (core/turns.pxd)
cdef int check_move(const PotState* game, int seat, int kind, int close) noexcept nogil
cdef int play_move(PotState* game, int seat, int kind, int close, Outcome* outcome) noexcept nogil
cdef int legal_moves(const PotState* game, uint8_t* kinds, uint8_t* closes) noexcept nogil
cdef int closing_points(int n_cards, int toxicity) noexcept nogil

# Batch loops and bots.
cdef int64_t replay_moves(PotState* game, const uint8_t* moves, int64_t n_moves, int* error) noexcept nogil
cdef int greedy_key(const PotState* game, int kind, int close) noexcept nogil
cdef int choose_move(const PotState* game, int policy, uint64_t* rng,
                     uint8_t* kind, uint8_t* close) noexcept nogil
cdef int64_t play_out(PotState* game, const uint8_t* policies, uint64_t* rng) noexcept nogil
