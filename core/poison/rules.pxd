# Poison (Reiner Knizia) — the rules as C, declared.
#
# Three cauldrons, fifty cards: red, blue and purple potions (1, 2, 4, 5, 7; fourteen of
# each colour) and eight poisons worth 4. Players take turns playing one card into a
# cauldron: poison anywhere; a potion into the cauldron of its colour, or else into a
# colourless one. No colour may stand in two cauldrons. A cauldron whose total exceeds 13
# overflows: the player takes the cards that were in it before, and the card just played
# stays. When every hand is empty, whoever took strictly the most of a colour discards
# those cards; the rest score 1 per potion and 2 per poison. Lowest total wins.
#
# Everything here is C: one struct holds the whole game, the rule functions take a pointer
# to it, never touch a Python object and report what went wrong with an error code.
# `core/poison/engine.pyx` is the only Python face of these functions.

from libc.stdint cimport int8_t, int16_t, int64_t, uint8_t, uint32_t, uint64_t

# The strategies the C loops can play a seat with are every game's (core/bots.pxd), as are
# the first checks of a move (core/turns.pxd).
from core.bots cimport N_POLICIES, POLICY_GREEDY, POLICY_MCTS, POLICY_RANDOM
from core.turns cimport MoveRefusals

cdef enum:
    N_CAULDRONS = 3
    N_COLOURS = 3            # potion colours: red 0, blue 1, purple 2
    POISON = 3               # the suit index of poison (green)
    N_SUITS = 4              # colours and poison: the columns of a taken pile
    N_VALUES = 5             # potion values per colour: 1, 2, 4, 5, 7
    N_KINDS = 16             # distinct cards: three colours × five values, and poison
    POISON_KIND = 15
    DECK_SIZE = 50
    POISON_VALUE = 4
    POISON_POINTS = 2        # a poison card scores two points, a potion one
    OVERFLOW_LIMIT = 13      # a cauldron whose total exceeds this overflows
    MIN_PLAYERS = 3
    MAX_PLAYERS = 6
    MAX_HANDS = 6            # hands dealt; three players deal a fourth that is set aside
    MIN_ROUNDS = 1
    MAX_ROUNDS = 20
    MAX_CAULDRON_CARDS = 16  # at most 13 ones could stand before an overflow; 16 is roomy
    MAX_LEGAL_MOVES = 48     # sixteen kinds in hand × three cauldrons, at the very most
    NO_COLOUR = -1           # a colourless cauldron: empty, or poison only

# How cauldrons take colours (the `cauldrons` option of rules.md).
cdef enum:
    CAULDRONS_DYNAMIC = 0    # a cauldron takes the colour of the potions in it
    CAULDRONS_FIXED = 1      # cauldron 0 is red, 1 blue, 2 purple, all game long

# Where a game stands.
cdef enum:
    PHASE_DEAL = 0           # waiting for the hands of the next round
    PHASE_PLAY = 1           # a round is being played
    PHASE_OVER = 2           # the last round is scored

# Error codes of the rule functions; engine.pyx maps each to a Python exception.
cdef enum:
    OK = 0
    ERR_NOT_YOUR_TURN = 1
    ERR_CARD_NOT_IN_HAND = 2
    ERR_ILLEGAL_CAULDRON = 3
    ERR_GAME_FINISHED = 4
    ERR_AWAITING_DEAL = 5
    ERR_NOT_AWAITING_DEAL = 6
    ERR_SEAT_OUT_OF_RANGE = 7
    ERR_CAULDRON_OUT_OF_RANGE = 8
    ERR_UNKNOWN_CARD = 9
    ERR_INVALID_DEAL = 10
    ERR_INVALID_PLAYERS = 11
    ERR_INVALID_ROUNDS = 12
    ERR_INVALID_RULE = 13

cdef struct GameState:
    uint8_t n_players
    uint8_t n_rounds
    uint8_t cauldron_rule                 # CAULDRONS_DYNAMIC or CAULDRONS_FIXED
    uint8_t phase
    uint8_t round                         # 0-based index of the round being played or dealt
    uint8_t dealer
    uint8_t turn                          # the seat to move, while PHASE_PLAY
    uint8_t seeded                        # deal every round from `seed` without asking
    uint64_t seed
    uint8_t hand[MAX_HANDS][N_KINDS]      # cards per kind; index n_players is the set-aside hand
    uint8_t hand_size[MAX_HANDS]
    uint8_t cauldron[N_CAULDRONS][MAX_CAULDRON_CARDS]   # card kinds in the order played
    uint8_t cauldron_len[N_CAULDRONS]
    uint8_t cauldron_total[N_CAULDRONS]
    int8_t cauldron_colour[N_CAULDRONS]   # a colour, or NO_COLOUR
    uint8_t taken[MAX_PLAYERS][N_SUITS]   # the face-down piles of this round, by suit
    uint8_t played[N_KINDS]               # cards of each kind played face up this round (public)
    uint8_t round_taken[MAX_ROUNDS][MAX_PLAYERS][N_SUITS]
    uint8_t discarded[MAX_ROUNDS][MAX_PLAYERS]          # one bit per colour discarded
    uint8_t scored_dealer[MAX_ROUNDS]                   # who dealt each scored round
    int16_t score[MAX_ROUNDS][MAX_PLAYERS]
    int16_t total[MAX_PLAYERS]
    uint8_t rounds_scored

# What one move did.
cdef struct Outcome:
    uint8_t seat
    uint8_t kind
    uint8_t cauldron
    uint8_t total                         # the cauldron's total once the move is complete
    uint8_t n_taken                       # cards taken by an overflow, 0 if none
    uint8_t taken[MAX_CAULDRON_CARDS]
    uint8_t round_over
    uint8_t game_over

# A deal is MAX_HANDS × N_KINDS bytes, row by row: how many of each card every hand holds.
# Row h is seat h's hand; with three players, row 3 is the hand set aside.
cdef enum:
    DEAL_SIZE = 96           # MAX_HANDS * N_KINDS

# The cards.
cdef uint8_t kind_colour(int kind) noexcept nogil        # 0..2, or POISON
cdef uint8_t kind_value(int kind) noexcept nogil
cdef uint8_t kind_copies(int kind) noexcept nogil        # copies of that card in the deck
cdef int kind_from_chars(int first, int second) noexcept nogil   # -1 for an unknown code

# Dealing.
cdef int round_dealer(const GameState* game, int round) noexcept nogil   # who deals round (from 0)
cdef int hands_dealt(int n_players) noexcept nogil       # 4 with three players, else n
cdef int dealt_hand_size(int n_players, int dealer, int hand) noexcept nogil
cdef void deal_from_seed(uint64_t seed, int round, int n_players, int dealer, uint8_t* deal) noexcept nogil

# A game.
cdef int game_init(GameState* game, int n_players, int n_rounds, int cauldron_rule) noexcept nogil
cdef void game_seed(GameState* game, uint64_t seed) noexcept nogil
cdef int game_deal(GameState* game, const uint8_t* deal) noexcept nogil
cdef const MoveRefusals* move_refusals() noexcept nogil   # check_move's first codes (core/turns.pxd)
cdef int check_move(const GameState* game, int seat, int kind, int cauldron) noexcept nogil
cdef int play_move(GameState* game, int seat, int kind, int cauldron, Outcome* outcome) noexcept nogil
cdef void apply_move(GameState* game, int seat, int kind, int cauldron, Outcome* outcome) noexcept nogil   # unchecked
cdef int legal_moves(const GameState* game, uint8_t* kinds, uint8_t* cauldrons) noexcept nogil
cdef void score_taken(int n_players, const uint8_t* taken,
                      int16_t* scores, uint8_t* discarded) noexcept nogil   # taken: n × N_SUITS

# Random numbers (splitmix64), identical to the reference's, so seeds mean the same in both:
# one copy for every ruleset, in core/splitmix.pxd (inline, so cimported here for rules.pyx).
from core.splitmix cimport next_random, random_below, shuffle, stream_seed

# Batch loops.
cdef int64_t replay_moves(GameState* game, const uint8_t* deals, int n_deals,
                          const uint8_t* moves, int64_t n_moves, int* error) noexcept nogil
cdef int greedy_key(const GameState* game, int kind, int cauldron) noexcept nogil
cdef int choose_move(const GameState* game, int policy, uint64_t* rng,
                     uint8_t* kind, uint8_t* cauldron) noexcept nogil
cdef int64_t play_out(GameState* game, const uint8_t* policies, uint64_t* rng) noexcept nogil

