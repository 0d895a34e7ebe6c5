# cython: language_level=3, boundscheck=True, wraparound=True, cdivision=True, initializedcheck=False
"""The Python face of the pot game's compiled rules: `Game`, `replay`, `simulate`, `seeded_deal`.

This is the one place where the C rules of core/pot/rules.pyx meet Python: it checks and
converts arguments, calls the rule functions, turns their error codes into the exceptions
of core.errors and builds the result tuples of core.results. It holds no rule of its own,
and nothing it does on a refused call changes a game. Bounds checking is on here (off only
inside the rule functions): a wrong answer from the rules must never become a crash.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.long cimport PyLong_AsLongAndOverflow
from cpython.unicode cimport PyUnicode_GET_LENGTH, PyUnicode_READ_CHAR
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

from core.pot cimport rules
from core.pot.mcts cimport SeatView, observe, search_rules
from core.search cimport DEFAULT_PLAYOUTS as MCTS_PLAYOUTS
from core.search cimport ERR_NO_MEMORY, Budget, play_out_searching
from core.search cimport search as search_view
from core.pot.rules cimport (
    COPIES, ERR_AWAITING_DEAL, ERR_CARD_NOT_IN_HAND, ERR_CLOSE_ENDGAME, ERR_CLOSE_EXPLODES,
    ERR_GAME_FINISHED, ERR_INVALID_MOVE, ERR_NOT_YOUR_TURN, ERR_SEAT_OUT_OF_RANGE,
    ERR_UNKNOWN_CARD, MAX_LEGAL_MOVES, N_TOXICITIES, NO_CARD, OK, PHASE_DEAL, PHASE_OVER,
    PHASE_PLAY, POLICY_MCTS, POLICY_RANDOM, POT_CLOSED, Outcome, PotRecord, PotState, check_move,
    choose_move, deal_from_seed, endgame, game_deal, game_init, game_seed, kind_from_chars,
    legal_moves, pile_size, play_move, play_out, replay_moves,
)
from core.splitmix cimport stream_seed

import threading

from core import errors
from core.poison.engine import THREAD_BOUNDS
from core.results import PotDeal, PotMove, PotPlayed, PotResult, PotView, Replayed, Searched, Simulation

#: Card codes by kind (kind k is toxicity k): the canonical order of hands and legal moves.
CARD_CODES = tuple([f"T{kind}" for kind in range(N_TOXICITIES)])
#: The bots both implementations play, the plain reference too (index = policy code in
#: rules.pxd).
BOTS = ("random", "greedy")
#: Every bot `Game.choose` and `simulate` play: those and the search bot (core/search.pyx),
#: whose policy code follows theirs. The reference does not play `mcts`, so BOTS leaves it out;
#: wherever a seat may be a bot's (the service, `poison play`), these are offered.
ENGINE_BOTS = BOTS + (errors.SEARCH_BOT,)
#: The playouts of one `mcts` decision when none are given.
DEFAULT_PLAYOUTS = MCTS_PLAYOUTS
#: The fewest and the most playouts, and milliseconds, of one decision (core.errors').
PLAYOUT_BOUNDS = errors.PLAYOUT_BOUNDS
MILLISECOND_BOUNDS = errors.MILLISECOND_BOUNDS
STATUSES = ("dealing", "active", "finished")
#: The numbers of the game, as rules.pxd names them.
MIN_PLAYERS = rules.MIN_PLAYERS
MAX_PLAYERS = rules.MAX_PLAYERS
DECK_SIZE = rules.DECK_SIZE
HAND_SIZE = rules.HAND_SIZE
EXPLODE_LIMIT = rules.EXPLODE_LIMIT

cdef tuple CODES = CARD_CODES
cdef tuple OUTCOMES = ("closed", "exploded")
# Every move there is (a card kind, and whether it closes the pot), each made once: a PotMove
# is immutable, so legal_moves hands out these instead of making a named tuple per move.
cdef tuple EVERY_MOVE = tuple([PotMove(code, close) for code in CARD_CODES for close in (False, True)])
# The bounds are core.errors' (one declaration for every layer), bound here once.
cdef object SEED_LIMIT = errors.SEED_LIMIT
cdef object DRAW_LIMIT = errors.DRAW_LIMIT


# ---- arguments ------------------------------------------------------------------------

cdef inline bint is_int(object value):
    # The exact type first: it is what every caller passes, and the cheapest test.
    return type(value) is int or (isinstance(value, int) and not isinstance(value, bool))


cdef int parse_card(object card):
    """The kind of a card code, or -1 when it is none. Read with the C API's own macros,
    without Cython's checked indexing: this runs for every card of a deal and every move
    of a replay, where checked indexing was a large share of a replay's instructions
    (figures: docs/performance.md)."""
    if type(card) is not str or PyUnicode_GET_LENGTH(card) != 2:
        return -1
    return kind_from_chars(PyUnicode_READ_CHAR(card, 0), PyUnicode_READ_CHAR(card, 1))


cdef inline int seat_index(object seat, int players):
    """The seat as a C int when it is one of the game's, else -1 (compared in C: a
    comparison of Python objects costs more than the whole move it checks)."""
    cdef long value
    cdef int overflow = 0
    if type(seat) is not int and (not isinstance(seat, int) or isinstance(seat, bool)):
        return -1
    value = PyLong_AsLongAndOverflow(seat, &overflow)  # never raises for an int
    return <int>value if overflow == 0 and 0 <= value < players else -1


cdef inline int parse_close(object close):
    """1 or 0 for a boolean, -1 for anything else (which the rules refuse)."""
    if close is True:
        return 1
    if close is False:
        return 0
    return -1


cdef int parse_players(object players) except -1:
    if not is_int(players) or not rules.MIN_PLAYERS <= players <= rules.MAX_PLAYERS:
        raise errors.invalid_pot_players(players)
    return players


cdef uint64_t parse_seed(object seed) except? 0:
    """A game's seed, or a simulation's."""
    if not is_int(seed) or not 0 <= seed <= SEED_LIMIT:
        raise errors.invalid_seed(seed)
    return seed


cdef uint64_t parse_draw(object seed) except? 0:
    """What a bot draws from: any 64-bit state (core.rulesets.bot_seed derives them)."""
    if not is_int(seed) or not 0 <= seed <= DRAW_LIMIT:
        raise errors.invalid_draw(seed)
    return seed


cdef int parse_bot(object bot) except -1:
    if type(bot) is str and bot in ENGINE_BOTS:
        return ENGINE_BOTS.index(bot)
    raise errors.unknown_bot(bot, ENGINE_BOTS)


cdef int64_t parse_playouts(object playouts) except -1:
    if playouts is None:
        return DEFAULT_PLAYOUTS
    if not is_int(playouts) or not PLAYOUT_BOUNDS[0] <= playouts <= PLAYOUT_BOUNDS[1]:
        raise errors.invalid_playouts(playouts)
    return playouts


cdef int64_t parse_milliseconds(object milliseconds) except -1:
    """0 for none: the playouts alone bound the search."""
    if milliseconds is None:
        return 0
    if not is_int(milliseconds) or not MILLISECOND_BOUNDS[0] <= milliseconds <= MILLISECOND_BOUNDS[1]:
        raise errors.invalid_milliseconds(milliseconds)
    return milliseconds


cdef int parse_budgets(object playouts, int players, int64_t* budgets) except -1:
    """Each seat's playouts for `simulate`: one number (or None, the default) for every seat,
    or one per seat."""
    cdef int s
    if playouts is None or is_int(playouts):
        for s in range(players):
            budgets[s] = parse_playouts(playouts)
        return 0
    if not isinstance(playouts, (list, tuple)) or len(playouts) != players:
        raise errors.playouts_per_seat(players)
    for s in range(players):
        budgets[s] = parse_playouts(playouts[s])
    return 0


cdef tuple unpack_deal(object deal):
    cdef tuple triple
    if isinstance(deal, tuple) and len(<tuple>deal) == 3:
        # Read as the tuple it is (a PotDeal is one): indexing a tuple subclass the generic
        # way goes through its class's __getitem__, far dearer than reading the tuple
        # (figures: docs/performance.md).
        triple = <tuple>deal
        return (triple[0], triple[1], triple[2])
    if not (isinstance(deal, list) and len(deal) == 3):
        raise errors.rule_error("invalid_deal", "a deal is a triple (hands, pot, draw_pile)")
    return (deal[0], deal[1], deal[2])


cdef parse_deal(int players, object hands, object pot, object draw_pile, uint8_t* deck):
    """Lay out a deal as game_deal takes it (rules.pxd), or raise saying what is wrong;
    the checks and their order are core/pot/reference.py's `check_deal`."""
    cdef int seat, kind, count, i
    cdef int pile = pile_size(players)
    cdef int counts[N_TOXICITIES]
    memset(counts, 0, sizeof(counts))
    if not isinstance(hands, (list, tuple)) or len(hands) != players:
        raise errors.rule_error("invalid_deal", f"a deal holds one hand per seat: {players} hands expected")
    for seat in range(players):
        hand = hands[seat]
        if not isinstance(hand, (list, tuple)):
            raise errors.rule_error("invalid_deal", f"the hand of seat {seat} must be a list of card codes")
        if len(hand) != rules.HAND_SIZE:
            raise errors.rule_error("invalid_deal", f"seat {seat} must be dealt {rules.HAND_SIZE} cards, not {len(hand)}")
        for i in range(rules.HAND_SIZE):
            kind = parse_card(hand[i])
            if kind < 0:
                raise errors.rule_error(
                    "unknown_card", f"in the hand of seat {seat}: {errors.unknown_pot_card(hand[i], CARD_CODES)}"
                )
            deck[seat * rules.HAND_SIZE + i] = <uint8_t>kind
    kind = parse_card(pot)
    if kind < 0:
        raise errors.rule_error("unknown_card", f"the pot's first card: {errors.unknown_pot_card(pot, CARD_CODES)}")
    deck[players * rules.HAND_SIZE] = <uint8_t>kind
    if not isinstance(draw_pile, (list, tuple)):
        raise errors.rule_error("invalid_deal", "the draw pile must be a list of card codes")
    if len(draw_pile) != pile:
        raise errors.rule_error(
            "invalid_deal", f"the draw pile holds {pile} cards with {players} players, not {len(draw_pile)}"
        )
    for i in range(pile):
        kind = parse_card(draw_pile[i])
        if kind < 0:
            raise errors.rule_error(
                "unknown_card", f"in the draw pile: {errors.unknown_pot_card(draw_pile[i], CARD_CODES)}"
            )
        deck[rules.DECK_SIZE - pile + i] = <uint8_t>kind
    for i in range(rules.DECK_SIZE):
        counts[deck[i]] += 1
    for kind in range(N_TOXICITIES):
        count = counts[kind]
        if count != COPIES:
            raise errors.rule_error(
                "invalid_deal", f"the deal holds {count} × {CODES[kind]}, but the deck has {COPIES}"
            )


cdef tuple cards_of(const uint8_t* counts):
    """Card codes, in canonical order, of a row of counts per kind."""
    cdef list cards = []
    cdef int kind, copy
    for kind in range(N_TOXICITIES):
        for copy in range(counts[kind]):
            cards.append(CODES[kind])
    return tuple(cards)


cdef tuple codes_of(const uint8_t* kinds, int n):
    """Card codes of `n` kinds, in their order."""
    cdef int i
    return tuple([CODES[kinds[i]] for i in range(n)])


cdef int move_codes(object seat, object card, object close, int* s, int* kind, int* c) except -1:
    """A move's arguments as the rule functions take them; -1 for anything out of range,
    which they report with its error code (so the order of checks stays theirs)."""
    s[0] = seat if is_int(seat) and -1 <= seat <= rules.MAX_PLAYERS else -1
    kind[0] = parse_card(card)
    c[0] = parse_close(close)
    return 0


cdef raise_move_error(const PotState* state, int error, object seat, object card, object close):
    if error == ERR_SEAT_OUT_OF_RANGE:
        raise errors.seat_out_of_range(seat, state.n_players)
    if error == ERR_UNKNOWN_CARD:
        raise errors.unknown_pot_card(card, CARD_CODES)
    if error == ERR_INVALID_MOVE:
        raise errors.invalid_close(close)
    if error == ERR_GAME_FINISHED:
        raise errors.pot_game_finished()
    if error == ERR_AWAITING_DEAL:
        raise errors.pot_awaiting_deal()
    if error == ERR_NOT_YOUR_TURN:
        raise errors.not_your_turn(seat, state.turn)
    if error == ERR_CARD_NOT_IN_HAND:
        raise errors.card_not_in_hand(seat, card)
    if error == ERR_CLOSE_ENDGAME:
        raise errors.cannot_close(card, "no pot may be closed once the draw pile is empty")
    if error == ERR_CLOSE_EXPLODES:
        raise errors.cannot_close(
            card,
            f"it makes the pot explode (toxicity {state.pot_toxicity + parse_card(card)} > {rules.EXPLODE_LIMIT})",
        )
    raise errors.rule_error("invalid_move", f"the engine refused the move (error {error})")


cdef object parse_move(object move, int players, Py_ssize_t index, uint8_t* out):
    """Encode a recorded (seat, card, close) triple into `out`, or return the error that
    playing it would raise whatever the game's state (None when it is well-formed)."""
    cdef int s, kind, close
    cdef tuple triple
    if type(move) is tuple and len(<tuple>move) == 3:
        # The exact type first, read by index: what every caller passes, and a third of
        # a replay's time when unpacked the generic way.
        triple = <tuple>move
        seat, card, closing = triple[0], triple[1], triple[2]
    elif isinstance(move, (tuple, list)) and len(move) == 3:
        seat, card, closing = move
    else:
        return errors.rule_error("invalid_move", f"move {index} is not a (seat, card, close) triple: {errors.quoted(move)}")
    s = seat_index(seat, players)
    if s < 0:
        return errors.seat_out_of_range(seat, players)
    kind = parse_card(card)
    if kind < 0:
        return errors.unknown_pot_card(card, CARD_CODES)
    close = parse_close(closing)
    if close < 0:
        return errors.invalid_close(closing)
    out[0] = <uint8_t>s
    out[1] = <uint8_t>kind
    out[2] = <uint8_t>close
    return None


# ---- the game -------------------------------------------------------------------------

cdef tuple moves_at(const PotState* state):
    """Every legal move at `state`, in canonical order."""
    cdef uint8_t kinds[MAX_LEGAL_MOVES]
    cdef uint8_t closes[MAX_LEGAL_MOVES]
    cdef int n = legal_moves(state, kinds, closes)
    cdef int i
    return tuple([EVERY_MOVE[kinds[i] * 2 + (closes[i] == 1)] for i in range(n)])


cdef class Game:
    """One pot game, in C. See core/pot/engine.pyi for the documented interface."""

    cdef PotState state

    def __init__(self, players, *, seed=None, deal=None):
        self.setup(players, seed, deal)

    cdef setup(self, object players, object seed, object deal):
        cdef int n = parse_players(players)
        cdef uint64_t s = 0
        cdef uint8_t deck[rules.DECK_SIZE]
        if seed is not None:
            s = parse_seed(seed)
            if deal is not None:
                raise errors.rule_error("invalid_deal", "give a seed or a deal, not both")
        elif deal is not None:
            hands, pot, draw_pile = unpack_deal(deal)
            parse_deal(n, hands, pot, draw_pile, deck)
        game_init(&self.state, n)
        if seed is not None:
            game_seed(&self.state, s)
        elif deal is not None:
            game_deal(&self.state, deck)

    # -- public state ------------------------------------------------------------------

    @property
    def players(self):
        return self.state.n_players

    @property
    def seed(self):
        return self.state.seed if self.state.seeded else None

    @property
    def status(self):
        return STATUSES[self.state.phase]

    @property
    def turn(self):
        return self.state.turn if self.state.phase == PHASE_PLAY else None

    @property
    def endgame(self):
        return bool(endgame(&self.state))

    @property
    def pot(self):
        return codes_of(self.state.pot, self.state.pot_len)

    @property
    def toxicity(self):
        return self.state.pot_toxicity

    @property
    def draw_pile(self):
        return self.state.pile_end - self.state.pile_top

    @property
    def hand_sizes(self):
        cdef int s
        return tuple([self.state.hand_size[s] for s in range(self.state.n_players)])

    @property
    def totals(self):
        cdef int s
        return tuple([self.state.total[s] for s in range(self.state.n_players)])

    @property
    def winners(self):
        cdef int s
        if self.state.phase != PHASE_OVER:
            return ()
        best = max(self.totals)
        return tuple([s for s in range(self.state.n_players) if self.state.total[s] == best])

    # -- hidden information: callers decide who may see it -----------------------------

    def hand(self, seat):
        return cards_of(self.state.hand[self._seat(seat)])

    def draw_order(self):
        return codes_of(&self.state.pile[self.state.pile_top], self.state.pile_end - self.state.pile_top)

    cdef int _seat(self, object seat) except -1:
        if not is_int(seat) or not 0 <= seat < self.state.n_players:
            raise errors.seat_out_of_range(seat, self.state.n_players)
        return seat

    # -- moves -------------------------------------------------------------------------

    def legal_moves(self):
        return moves_at(&self.state)

    def check(self, seat, card, close=False):
        cdef int s, kind, c
        move_codes(seat, card, close, &s, &kind, &c)
        cdef int error = check_move(&self.state, s, kind, c)
        if error != OK:
            raise_move_error(&self.state, error, seat, card, close)

    def play(self, seat, card, close=False):
        cdef Outcome outcome
        cdef int s, kind, c
        move_codes(seat, card, close, &s, &kind, &c)
        cdef int error = play_move(&self.state, s, kind, c, &outcome)
        if error != OK:
            raise_move_error(&self.state, error, seat, card, close)
        return PotPlayed(
            outcome.seat,
            CODES[outcome.kind],
            outcome.close == 1,
            outcome.toxicity,
            None if outcome.ended < 0 else self._result(outcome.ended),
            None if outcome.started == NO_CARD else CODES[outcome.started],
            codes_of(outcome.drawn, outcome.n_drawn),
            None if outcome.final < 0 else self._result(outcome.final),
            outcome.game_over == 1,
        )

    def choose(self, bot, seed=0, *, playouts=None, milliseconds=None):
        """The move `bot` plays for the seat to move (`seed` drives the random bot and the
        search; `playouts` and `milliseconds` are the search's budget)."""
        cdef int policy = parse_bot(bot)
        cdef uint64_t rng = stream_seed(parse_draw(seed), 0)
        cdef uint8_t kind, close
        if policy == POLICY_MCTS:
            return self.search(seed, playouts=playouts, milliseconds=milliseconds).move
        if playouts is not None or milliseconds is not None:
            raise errors.budget_without_search(bot)
        if self.state.phase == PHASE_OVER:
            raise errors.pot_game_finished()
        if self.state.phase != PHASE_PLAY:
            raise errors.pot_awaiting_deal()
        if choose_move(&self.state, policy, &rng, &kind, &close) != OK:  # the phase says not: a bug of ours
            raise errors.rule_error("invalid_move", "the rules found no move to choose")
        return PotMove(CODES[kind], close == 1)

    def search(self, seed=0, *, playouts=None, milliseconds=None):
        """The `mcts` bot's search for the seat to move, from that seat's view alone, run
        without the GIL on a copy of the view (the game may change meanwhile)."""
        cdef SeatView view
        cdef Budget budget
        cdef uint64_t rng = stream_seed(parse_draw(seed), 0)
        cdef uint32_t visits[MAX_LEGAL_MOVES]
        cdef uint8_t kind, close
        cdef int64_t done = 0
        cdef int error
        budget.playouts = parse_playouts(playouts)
        budget.milliseconds = parse_milliseconds(milliseconds)
        if self.state.phase == PHASE_OVER:
            raise errors.pot_game_finished()
        if self.state.phase != PHASE_PLAY:
            raise errors.pot_awaiting_deal()
        observe(&self.state, &view)
        with nogil:
            error = search_view(search_rules(), &view, rng, &budget, &kind, &close, visits, &done)
        if error == ERR_NO_MEMORY:
            raise MemoryError("no memory for the search tree")
        if error != OK:     # the phase says there is a move: a bug of ours
            raise errors.rule_error("invalid_move", "the search found no move to choose")
        # The moves of the position searched, read from the view: another thread may have
        # played on in the game itself while the search ran without the GIL.
        moves = moves_at(&view.public)
        return Searched(
            PotMove(CODES[kind], close == 1), done, moves, tuple([visits[i] for i in range(len(moves))])
        )

    def deal(self, hands, pot, draw_pile):
        cdef uint8_t deck[rules.DECK_SIZE]
        if self.state.phase == PHASE_OVER:
            raise errors.pot_game_finished()
        if self.state.phase != PHASE_DEAL:
            raise errors.pot_not_awaiting_deal()
        parse_deal(self.state.n_players, hands, pot, draw_pile, deck)
        if game_deal(&self.state, deck) != OK:   # parse_deal checked all; this is a backstop
            raise errors.rule_error("invalid_deal", "the engine refused the deal")

    # -- results -----------------------------------------------------------------------

    cdef object _result(self, int r):
        cdef PotRecord* record = &self.state.record[r]
        return PotResult(
            record.seat,
            OUTCOMES[0 if record.outcome == POT_CLOSED else 1],
            codes_of(&self.state.ended_cards[record.first], record.n_cards),
            record.toxicity,
            record.points,
        )

    def pot_results(self):
        cdef int r
        return tuple([self._result(r) for r in range(self.state.n_records)])

    def view(self, seat=None):
        cdef int s = -1
        if seat is not None:
            s = self._seat(seat)
        hand = None
        moves = None
        if s >= 0:
            hand = cards_of(self.state.hand[s])
            moves = self.legal_moves() if self.state.phase == PHASE_PLAY and self.state.turn == s else ()
        return PotView(
            self.status, self.turn, self.endgame, self.pot, self.state.pot_toxicity, self.draw_pile,
            self.hand_sizes, self.pot_results(), self.totals, self.winners,
            None if s < 0 else s, hand, moves,
        )

    def copy(self):
        cdef Game twin = Game.__new__(Game)
        memcpy(&twin.state, &self.state, sizeof(PotState))
        return twin

    def __copy__(self):
        return self.copy()

    def __repr__(self):
        return f"<pot Game {self.state.n_players} players, {self.status}>"


# ---- free functions -------------------------------------------------------------------

def seeded_deal(seed, players):
    """The deal a game with this seed uses."""
    cdef uint8_t deck[rules.DECK_SIZE]
    cdef uint64_t s = parse_seed(seed)
    cdef int n = parse_players(players)
    cdef int seat, kind, i
    cdef uint8_t counts[N_TOXICITIES]
    cdef list hands = []
    deal_from_seed(s, n, deck)
    for seat in range(n):
        memset(counts, 0, sizeof(counts))
        for i in range(rules.HAND_SIZE):
            counts[deck[seat * rules.HAND_SIZE + i]] += 1
        hands.append(cards_of(counts))
    dealt = n * rules.HAND_SIZE
    return PotDeal(tuple(hands), CODES[deck[dealt]], codes_of(&deck[dealt + 1], rules.DECK_SIZE - dealt - 1))


cdef inline object replayed(Game game, int64_t applied, object error):
    # A Replayed made as the tuple it is: its class's generated __new__ runs as Python
    # bytecode, which cost more than the replay of a whole short game.
    return tuple.__new__(Replayed, (game, applied, error))


def replay(players, moves, *, seed=None, deal=None):
    """Replay a recorded game in one C loop; see core/pot/engine.pyi."""
    cdef Game game = Game.__new__(Game)
    game.setup(players, seed, deal)  # not Game(...): matching keywords cost a tenth of a replay
    cdef int n = game.state.n_players
    cdef Py_ssize_t n_moves, i
    cdef int64_t usable, applied
    cdef int error = OK
    cdef uint8_t* move_bytes = NULL
    cdef object stop = None             # an error found while reading the record
    if not isinstance(moves, (list, tuple)):
        raise errors.rule_error("invalid_move", "moves must be a list")
    n_moves = len(moves)
    try:
        move_bytes = <uint8_t*>PyMem_Malloc(3 * n_moves + 1)
        if move_bytes == NULL:
            raise MemoryError()
        usable = n_moves
        for i in range(n_moves):
            stop = parse_move(moves[i], n, i, move_bytes + 3 * i)
            if stop is not None:
                usable = i
                break
        with nogil:
            applied = replay_moves(&game.state, move_bytes, usable, &error)
    finally:
        PyMem_Free(move_bytes)
    if error != OK:
        if not 0 <= applied < usable:  # the rules named no move: a bug of ours, never a crash
            return replayed(game, applied, errors.rule_error(
                "invalid_move", f"the rules stopped the replay at move {applied} of {usable} (error {error})"))
        seat, card, close = moves[applied]
        try:
            raise_move_error(&game.state, error, seat, card, close)
        except errors.RuleError as refused:
            return replayed(game, applied, refused)
    return replayed(game, applied, stop)


cdef struct Tally:
    # One share's figures: summed over shares, they are the whole run's (integer sums,
    # so the order the shares finish in does not matter).
    int64_t moves
    int64_t wins[rules.MAX_PLAYERS]
    int64_t score_sum[rules.MAX_PLAYERS]
    int64_t score_squares[rules.MAX_PLAYERS]
    int64_t unfinished        # games a search stopped, its tree not allocated: none counted


cdef void play_games(int n, uint64_t master, int64_t start, int64_t count,
                     const uint8_t* policies, const int64_t* budgets, Tally* tally) noexcept nogil:
    """Play games start .. start + count - 1 of a simulation and add them to `tally`. Each
    game draws only from its own stream, so any split of the games gives the same sums.
    The tally is kept on this thread's stack and added once at the end: the shares of
    one call lie side by side in memory, and a tally written every game next to another
    thread's policies would bounce their cache line between the cores."""
    cdef Tally mine
    cdef uint8_t seats[rules.MAX_PLAYERS]
    cdef PotState state
    cdef int64_t g
    cdef uint64_t game_seed_value, rng
    cdef int s, best
    cdef bint searching = False
    memset(&mine, 0, sizeof(Tally))
    memcpy(seats, policies, sizeof(seats))
    for s in range(n):
        searching = searching or seats[s] == POLICY_MCTS
    for g in range(start, start + count):
        game_init(&state, n)
        game_seed_value = stream_seed(master, <uint64_t>g)
        game_seed(&state, game_seed_value)
        rng = stream_seed(game_seed_value, 0)
        if searching:
            mine.moves += play_out_searching(search_rules(), &state, seats, budgets, &rng)
        else:
            mine.moves += play_out(&state, seats, &rng)
        if searching and state.phase != PHASE_OVER:
            # Only a search short of memory stops a seeded game early: its totals are no result.
            mine.unfinished += 1
            break
        best = state.total[0]
        for s in range(n):
            if state.total[s] > best:
                best = state.total[s]
        for s in range(n):
            mine.wins[s] += state.total[s] == best
            mine.score_sum[s] += state.total[s]
            mine.score_squares[s] += state.total[s] * state.total[s]
    tally.moves += mine.moves
    tally.unfinished += mine.unfinished
    for s in range(n):
        tally.wins[s] += mine.wins[s]
        tally.score_sum[s] += mine.score_sum[s]
        tally.score_squares[s] += mine.score_squares[s]


cdef class _Share:
    """The games one thread of a `simulate` call plays, and their tally."""

    cdef int n
    cdef uint64_t master
    cdef int64_t start, count
    cdef uint8_t policies[rules.MAX_PLAYERS]
    cdef int64_t budgets[rules.MAX_PLAYERS]
    cdef Tally tally

    def run(self):
        # The whole share runs without the GIL: the threads of one call play at once.
        with nogil:
            play_games(self.n, self.master, self.start, self.count, self.policies, self.budgets, &self.tally)


cdef int parse_threads(object threads) except -1:
    if not is_int(threads) or not THREAD_BOUNDS[0] <= threads <= THREAD_BOUNDS[1]:
        raise errors.invalid_threads(threads)
    return threads


def simulate(players, games, *, seed=0, bots=None, first=0, threads=1, playouts=None):
    """Play `games` complete games of bot moves in C; see core/pot/engine.pyi."""
    cdef int n = parse_players(players)
    cdef uint64_t master = parse_seed(seed)
    cdef int64_t n_games, start
    cdef uint8_t policies[rules.MAX_PLAYERS]
    cdef int64_t budgets[rules.MAX_PLAYERS]
    cdef Tally total
    cdef _Share share
    cdef list shares
    cdef int s, t, n_threads
    if not is_int(games) or not 0 <= games <= errors.MAX_GAMES:
        raise errors.invalid_games(games)
    if not is_int(first) or not 0 <= first <= errors.MAX_FIRST:
        raise errors.invalid_first(first)
    n_threads = parse_threads(threads)
    n_games = games
    start = first
    memset(policies, POLICY_RANDOM, sizeof(policies))
    if bots is not None:
        if not isinstance(bots, (list, tuple)) or len(bots) != n:
            raise errors.bots_per_seat(n)
        for s in range(n):
            policies[s] = parse_bot(bots[s])
    parse_budgets(playouts, n, budgets)
    shares = []
    for t in range(n_threads):
        # Contiguous runs of game numbers, as even as whole games allow.
        share = _Share()
        share.n, share.master = n, master
        share.start = start + n_games * t // n_threads
        share.count = start + n_games * (t + 1) // n_threads - share.start
        memcpy(share.policies, policies, sizeof(policies))
        memcpy(share.budgets, budgets, sizeof(budgets))
        memset(&share.tally, 0, sizeof(Tally))
        shares.append(share)
    run_shares(shares)
    memset(&total, 0, sizeof(Tally))
    for share in shares:
        total.moves += share.tally.moves
        total.unfinished += share.tally.unfinished
        for s in range(n):
            total.wins[s] += share.tally.wins[s]
            total.score_sum[s] += share.tally.score_sum[s]
            total.score_squares[s] += share.tally.score_squares[s]
    if total.unfinished:
        raise MemoryError("no memory for a search tree: the games could not be played out")
    return Simulation(
        n_games, total.moves,
        tuple([total.wins[s] for s in range(n)]),
        tuple([total.score_sum[s] for s in range(n)]),
        tuple([total.score_squares[s] for s in range(n)]),
    )


cdef run_shares(list shares):
    """Run every share, each but the first on a thread of its own and the first on the
    caller's, and wait for all of them."""
    helpers = [threading.Thread(target=share.run, name="pot-simulate") for share in shares[1:]]
    for helper in helpers:
        helper.start()
    shares[0].run()
    for helper in helpers:
        helper.join()
