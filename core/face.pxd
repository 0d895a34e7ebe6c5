# The machinery of every game's Python face (core/face.pyx), written once: argument parsing,
# a game object's common part (`CompiledGame`: state, turn, totals, legal moves, bots, the
# search), the batch replay's reading of moves, and `simulate` over threads.
#
# A game takes part with an `EngineRules` table of its C rules (beside its SearchRules,
# core/search.pxd) and a `Facts` object of its Python-level words (card codes, moves, the
# errors of a malformed move); its Game subclasses CompiledGame, keeps its state struct
# and points `at`, `rules` and `words` at its state, table and facts.

from cpython.unicode cimport PyUnicode_GET_LENGTH, PyUnicode_READ_CHAR
from libc.stdint cimport int64_t, uint8_t, uint64_t

from core.search cimport SearchRules
from core.turns cimport MoveRefusals

ctypedef int (*KindFromChars)(int first, int second) noexcept nogil
ctypedef int (*ParseSecond)(object second) noexcept
ctypedef int (*CheckMove)(const void* game, int seat, int kind, int second) noexcept nogil
ctypedef int (*PlayMove)(void* game, int seat, int kind, int second, void* outcome) noexcept nogil
ctypedef void (*StartGame)(void* game, int players, const int* options, uint64_t seed) noexcept nogil
ctypedef int64_t (*PlayOut)(void* game, const uint8_t* policies, uint64_t* rng) noexcept nogil

cdef enum:
    MAX_OPTIONS = 2          # a game's options as simulate passes them to StartGame

# One game's C rules as its face calls them, each the rules' own (their state as void*).
cdef struct EngineRules:
    const SearchRules* search
    const MoveRefusals* refusals # the codes of the checks every game makes of a move
    uint8_t phase_over           # the phase of a finished game
    KindFromChars kind_from_chars
    ParseSecond parse_second     # a move's second number (cauldron, close) in C, or -1
    CheckMove check_move
    PlayMove play_move
    StartGame start              # a new game of `players`, its options, dealt from `seed`
    PlayOut play_out


cdef class Facts:
    # One game's words for what its face returns and refuses.
    cdef const EngineRules* rules
    cdef tuple codes             # card codes by kind
    cdef tuple every_move        # the move of each code (kind << move_shift | second), None if none
    cdef str move_shape          # how a recorded move reads: "(seat, card, cauldron)"
    cdef object unknown_card     # errors.* (card, codes) -> RuleError
    cdef object bad_second       # errors.* (second) -> RuleError


cdef class CompiledGame:
    # No object attribute, so that a game is as cheap to make as before (not tracked by the
    # garbage collector): its Facts is held borrowed, each engine's module-level FACTS.
    cdef void* at                # the subclass's state struct
    cdef const EngineRules* rules
    cdef void* words             # its game's Facts
    cdef object _phase_error(self, int wanted)
    cdef object _move_error(self, int error, object seat, object card, object second)
    cdef object _own_move_error(self, int error, object seat, object card, object second)
    cdef tuple _hand(self, int seat)
    cdef tuple _seen(self, object seat)
    cdef int _expect(self, int phase) except -1
    cdef int _seat(self, object seat) except -1
    cdef int _move_codes(self, object seat, object card, object second, int* s, int* kind, int* c) except -1
    cdef int _check(self, object seat, object card, object second) except -1
    cdef int _play(self, object seat, object card, object second, void* outcome) except -1
    cdef tuple _moves_at(self, const void* state)


cdef inline int parse_card(const EngineRules* rules, object card) noexcept:
    """The kind of a card code, or -1 when it is none. Read with the C API's own macros,
    without Cython's checked indexing: this runs for every card of a deal and every move
    of a replay, where checked indexing was a large share of a replay's instructions
    (figures: docs/performance.md)."""
    if type(card) is not str or PyUnicode_GET_LENGTH(card) != 2:
        return -1
    return rules.kind_from_chars(PyUnicode_READ_CHAR(card, 0), PyUnicode_READ_CHAR(card, 1))


cdef inline bint is_int(object value):
    # The exact type first: it is what every caller passes, and the cheapest test.
    return type(value) is int or (isinstance(value, int) and not isinstance(value, bool))


cdef int parse_bot(object bot) except -1
cdef int64_t parse_playouts(object playouts) except -1
cdef int64_t parse_milliseconds(object milliseconds) except -1
cdef uint64_t parse_seed(object seed) except? 0
cdef uint64_t parse_draw(object seed) except? 0
cdef tuple cards_of(tuple codes, const uint8_t* counts, int n_kinds)
cdef tuple codes_of(tuple codes, const uint8_t* kinds, int n)
cdef object replayed(CompiledGame game, int64_t applied, object error)
cdef object read_moves(Facts facts, object moves, int players, uint8_t** out, int64_t* usable)
cdef object replay_refusal(CompiledGame game, object moves, int64_t applied, int64_t usable, int error)
cdef Facts game_facts(const EngineRules* rules, tuple codes, tuple every_move, str move_shape,
                      object unknown_card, object bad_second)
cdef object simulate_games(Facts facts, int players, const int* options, object games, object seed,
                           object bots, object first, object threads, object playouts)
