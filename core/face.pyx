# cython: language_level=3, boundscheck=True, wraparound=True, cdivision=True, initializedcheck=False
"""The machinery every game's Python face shares, written once (core/face.pxd says how a game
takes part): the parsing of what every engine takes (seeds, bots, budgets, threads), the
common part of a game object (`CompiledGame`: its state, turn, totals and winners, legal
moves, the bots' choice and the search), the reading of a batch replay's moves, and
`simulate`, its games shared out over threads that play without the GIL.

Each game's engine.pyx subclasses CompiledGame and fills an EngineRules and a Facts; all a
game adds is what is its own (its options, deals, the tuples of its moves and views). Every
access to a Python object here is checked, as in the engines (bounds checking is on), and
nothing a refused call does changes a game.
"""

from cpython.long cimport PyLong_AsLongAndOverflow
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdint cimport int16_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from core.search cimport DEFAULT_PLAYOUTS as SEARCH_PLAYOUTS
from core.search cimport ERR_NO_MEMORY, MAX_SEARCH_MOVES, MAX_SEARCH_SEATS, Budget, play_out_searching, search
from core.splitmix cimport stream_seed

import threading

from core import errors
from core.results import Replayed, Searched, Simulation

#: The bots both implementations of every game play, the plain references too (index = the
#: policy code of each rules.pxd).
BOTS = ("random", "greedy")
#: Every bot `Game.choose` and `simulate` play: BOTS and the search bot `mcts` (core/search.pyx),
#: whose policy code follows theirs. The references do not play `mcts`, so BOTS leaves it out;
#: wherever a seat may be a bot's (the service, `poison play`), these are offered.
ENGINE_BOTS = BOTS + (errors.SEARCH_BOT,)
#: The playouts of one `mcts` decision when none are given.
DEFAULT_PLAYOUTS = SEARCH_PLAYOUTS
#: The fewest and the most playouts, and milliseconds, of one decision; the threads of one
#: `simulate` call (core.errors').
PLAYOUT_BOUNDS = errors.PLAYOUT_BOUNDS
MILLISECOND_BOUNDS = errors.MILLISECOND_BOUNDS
THREAD_BOUNDS = errors.THREAD_BOUNDS
#: A game's status by its phase (every rules.pxd numbers its phases so).
STATUSES = ("dealing", "active", "finished")

# The bounds are core.errors' (one declaration for every layer), bound here once.
cdef object SEED_LIMIT = errors.SEED_LIMIT
cdef object DRAW_LIMIT = errors.DRAW_LIMIT


# ---- arguments ------------------------------------------------------------------------

cdef inline int seat_index(object seat, int players):
    """The seat as a C int when it is one of the game's, else -1 (compared in C: a
    comparison of Python objects costs more than the whole move it checks)."""
    cdef long value
    cdef int overflow = 0
    if type(seat) is not int and (not isinstance(seat, int) or isinstance(seat, bool)):
        return -1
    value = PyLong_AsLongAndOverflow(seat, &overflow)  # never raises for an int
    return <int>value if overflow == 0 and 0 <= value < players else -1


cdef uint64_t parse_seed(object seed) except? 0:
    """A game's seed, or a simulation's."""
    if not is_int(seed) or not 0 <= seed <= SEED_LIMIT:
        raise errors.invalid_seed(seed)
    return seed


cdef uint64_t parse_draw(object seed) except? 0:
    """What a bot draws from, or what derive_seed derives from: any 64-bit state."""
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


cdef int parse_threads(object threads) except -1:
    if not is_int(threads) or not THREAD_BOUNDS[0] <= threads <= THREAD_BOUNDS[1]:
        raise errors.invalid_threads(threads)
    return threads


cdef tuple cards_of(tuple codes, const uint8_t* counts, int n_kinds):
    """Card codes, in canonical order, of a row of counts per kind."""
    cdef list cards = []
    cdef int kind, copy
    for kind in range(n_kinds):
        for copy in range(counts[kind]):
            cards.append(codes[kind])
    return tuple(cards)


cdef tuple codes_of(tuple codes, const uint8_t* kinds, int n):
    """Card codes of `n` kinds, in their order."""
    cdef int i
    return tuple([codes[kinds[i]] for i in range(n)])


# ---- a game ---------------------------------------------------------------------------

cdef class Facts:
    """One game's words for what its face returns and refuses (core/face.pxd)."""


cdef inline const uint8_t* state_bytes(const void* state):
    return <const uint8_t*>state


cdef class CompiledGame:
    """What every compiled game object has (its engine's Game subclasses it): see core/face.pyi."""

    cdef object _phase_error(self, int wanted):
        """The error of a call that needs the game in phase `wanted`: the game's own."""
        raise NotImplementedError

    cdef object _own_move_error(self, int error, object seat, object card, object second):
        """The error of a move refused by one of the game's own checks (None if `error` is
        none of them)."""
        return None

    cdef object _move_error(self, int error, object seat, object card, object second):
        """The error a move refused with `error` raises (the checks of core/turns.pxd, then
        the game's own)."""
        cdef const MoveRefusals* codes = self.rules.refusals
        cdef const SearchRules* rules = self.rules.search
        if error == codes.seat_out_of_range:
            return errors.seat_out_of_range(seat, state_bytes(self.at)[rules.players_at])
        if error == codes.unknown_card:
            return (<Facts>self.words).unknown_card(card, (<Facts>self.words).codes)
        if error == codes.bad_second:
            return (<Facts>self.words).bad_second(second)
        if error == codes.game_finished or error == codes.awaiting_deal:
            return self._phase_error(rules.phase_play)
        if error == codes.not_your_turn:
            return errors.not_your_turn(seat, state_bytes(self.at)[rules.turn_at])
        if error == codes.card_not_in_hand:
            return errors.card_not_in_hand(seat, card)
        refused = self._own_move_error(error, seat, card, second)
        if refused is None:
            refused = errors.rule_error("invalid_move", f"the engine refused the move (error {error})")
        return refused

    cdef tuple _hand(self, int seat):
        """The cards `seat` holds, as card codes in canonical order: the game's own."""
        raise NotImplementedError

    cdef tuple _seen(self, object seat):
        """What a view of `seat` shows of it alone: (seat, its hand, its legal moves when
        it is to move, else ()), or (None, None, None) for the public's view (seat None)."""
        cdef const SearchRules* rules = self.rules.search
        cdef int s
        if seat is None:
            return (None, None, None)
        s = self._seat(seat)
        to_move = state_bytes(self.at)[rules.phase_at] == rules.phase_play and state_bytes(self.at)[rules.turn_at] == s
        return (s, self._hand(s), self._moves_at(self.at) if to_move else ())

    cdef int _expect(self, int phase) except -1:
        if state_bytes(self.at)[self.rules.search.phase_at] != phase:
            raise self._phase_error(phase)
        return 0

    cdef int _seat(self, object seat) except -1:
        cdef int players = state_bytes(self.at)[self.rules.search.players_at]
        if not is_int(seat) or not 0 <= seat < players:
            raise errors.seat_out_of_range(seat, players)
        return seat

    cdef int _move_codes(self, object seat, object card, object second, int* s, int* kind, int* c) except -1:
        """A move's arguments as the rule functions take them; -1 for anything out of range,
        which they report with its error code (so the order of checks stays theirs)."""
        s[0] = seat if is_int(seat) and -1 <= seat <= MAX_SEARCH_SEATS else -1
        kind[0] = parse_card(self.rules, card)
        c[0] = self.rules.parse_second(second)
        return 0

    cdef int _check(self, object seat, object card, object second) except -1:
        cdef int s, kind, c
        self._move_codes(seat, card, second, &s, &kind, &c)
        cdef int error = self.rules.check_move(self.at, s, kind, c)
        if error != self.rules.search.ok:
            raise self._move_error(error, seat, card, second)
        return 0

    cdef int _play(self, object seat, object card, object second, void* outcome) except -1:
        cdef int s, kind, c
        self._move_codes(seat, card, second, &s, &kind, &c)
        cdef int error = self.rules.play_move(self.at, s, kind, c, outcome)
        if error != self.rules.search.ok:
            raise self._move_error(error, seat, card, second)
        return 0

    cdef tuple _moves_at(self, const void* state):
        """Every legal move at `state`, in canonical order: the moves of Facts.every_move,
        made once (a move tuple's __new__ is Python, and making them was a read's largest
        single part in the service; figures: docs/performance.md)."""
        cdef const SearchRules* rules = self.rules.search
        cdef uint8_t kinds[MAX_SEARCH_MOVES]
        cdef uint8_t seconds[MAX_SEARCH_MOVES]
        cdef int n = rules.legal_moves(state, kinds, seconds)
        cdef int i
        cdef tuple every = (<Facts>self.words).every_move
        return tuple([every[(kinds[i] << rules.move_shift) | seconds[i]] for i in range(n)])

    # -- public state ------------------------------------------------------------------

    @property
    def players(self):
        return state_bytes(self.at)[self.rules.search.players_at]

    @property
    def status(self):
        return STATUSES[state_bytes(self.at)[self.rules.search.phase_at]]

    @property
    def turn(self):
        cdef const SearchRules* rules = self.rules.search
        if state_bytes(self.at)[rules.phase_at] != rules.phase_play:
            return None
        return state_bytes(self.at)[rules.turn_at]

    @property
    def totals(self):
        cdef const SearchRules* rules = self.rules.search
        cdef const int16_t* total = <const int16_t*>(state_bytes(self.at) + rules.totals_at)
        cdef int s
        return tuple([total[s] for s in range(state_bytes(self.at)[rules.players_at])])

    @property
    def winners(self):
        cdef int s
        if state_bytes(self.at)[self.rules.search.phase_at] != self.rules.phase_over:
            return ()
        totals = self.totals
        best = min(totals) if self.rules.search.lowest_wins else max(totals)
        return tuple([s for s in range(len(totals)) if totals[s] == best])

    # -- moves -------------------------------------------------------------------------

    def legal_moves(self):
        return self._moves_at(self.at)

    def choose(self, bot, seed=0, *, playouts=None, milliseconds=None):
        """The move `bot` plays for the seat to move (`seed` drives the random bot and the
        search; `playouts` and `milliseconds` are the search's budget)."""
        cdef const SearchRules* rules = self.rules.search
        cdef int policy = parse_bot(bot)
        cdef uint64_t rng = stream_seed(parse_draw(seed), 0)
        cdef uint8_t kind, second
        if policy == rules.search_policy:
            return self.search(seed, playouts=playouts, milliseconds=milliseconds).move
        if playouts is not None or milliseconds is not None:
            raise errors.budget_without_search(bot)
        self._expect(rules.phase_play)
        if rules.choose_move(self.at, policy, &rng, &kind, &second) != rules.ok:  # the phase says not: a bug of ours
            raise errors.rule_error("invalid_move", "the rules found no move to choose")
        return (<Facts>self.words).every_move[(kind << rules.move_shift) | second]

    def search(self, seed=0, *, playouts=None, milliseconds=None):
        """The `mcts` bot's search for the seat to move, from that seat's view alone, run
        without the GIL on a copy of the view (the game may change meanwhile)."""
        cdef const SearchRules* rules = self.rules.search
        cdef Budget budget
        cdef uint64_t rng = stream_seed(parse_draw(seed), 0)
        cdef uint32_t visits[MAX_SEARCH_MOVES]
        cdef uint8_t kind, second
        cdef int64_t done = 0
        cdef int error
        cdef void* view
        budget.playouts = parse_playouts(playouts)
        budget.milliseconds = parse_milliseconds(milliseconds)
        self._expect(rules.phase_play)
        view = PyMem_Malloc(rules.view_size)
        if view == NULL:
            raise MemoryError("no memory for the seat's view")
        try:
            rules.observe(self.at, view)
            with nogil:
                error = search(rules, view, rng, &budget, &kind, &second, visits, &done)
            if error == ERR_NO_MEMORY:
                raise MemoryError("no memory for the search tree")
            if error != rules.ok:     # the phase says there is a move: a bug of ours
                raise errors.rule_error("invalid_move", "the search found no move to choose")
            # The moves of the position searched, read from the view (which begins with it):
            # another thread may have played on in the game itself while the search ran.
            moves = self._moves_at(view)
        finally:
            PyMem_Free(view)
        return Searched(
            (<Facts>self.words).every_move[(kind << rules.move_shift) | second], done, moves,
            tuple([visits[i] for i in range(len(moves))]),
        )

    def __copy__(self):
        return self.copy()


# ---- batch replay ---------------------------------------------------------------------

cdef object replayed(CompiledGame game, int64_t applied, object error):
    # A Replayed made as the tuple it is: its class's generated __new__ runs as Python
    # bytecode, which cost more than the replay of a whole short game.
    return tuple.__new__(Replayed, (game, applied, error))


cdef object parse_move(Facts facts, object move, int players, Py_ssize_t index, uint8_t* out):
    """Encode a recorded (seat, card, second) triple into `out`, or return the error that
    playing it would raise whatever the game's state (None when it is well-formed)."""
    cdef int s, kind, second
    cdef tuple triple
    if type(move) is tuple and len(<tuple>move) == 3:
        # The exact type first, read by index: what every caller passes, and a third of
        # a replay's time when unpacked the generic way.
        triple = <tuple>move
        seat, card, other = triple[0], triple[1], triple[2]
    elif isinstance(move, (tuple, list)) and len(move) == 3:
        seat, card, other = move
    else:
        return errors.rule_error(
            "invalid_move", f"move {index} is not a {facts.move_shape} triple: {errors.quoted(move)}"
        )
    s = seat_index(seat, players)
    if s < 0:
        return errors.seat_out_of_range(seat, players)
    kind = parse_card(facts.rules, card)
    if kind < 0:
        return facts.unknown_card(card, facts.codes)
    second = facts.rules.parse_second(other)
    if second < 0:
        return facts.bad_second(other)
    out[0] = <uint8_t>s
    out[1] = <uint8_t>kind
    out[2] = <uint8_t>second
    return None


cdef object read_moves(Facts facts, object moves, int players, uint8_t** out, int64_t* usable):
    """Encode recorded moves, three bytes each, into a buffer this allocates (`out[0]`, for the
    caller to PyMem_Free); `usable[0]` is how many are well-formed before the first that is
    not, whose error this returns (None if every one is)."""
    cdef Py_ssize_t i
    cdef Py_ssize_t n_moves = len(moves)
    out[0] = <uint8_t*>PyMem_Malloc(3 * n_moves + 1)
    if out[0] == NULL:
        raise MemoryError()
    usable[0] = n_moves
    for i in range(n_moves):
        stop = parse_move(facts, moves[i], players, i, out[0] + 3 * i)
        if stop is not None:
            usable[0] = i
            return stop
    return None


cdef object replay_refusal(CompiledGame game, object moves, int64_t applied, int64_t usable, int error):
    """The Replayed of a replay whose rules stopped at move `applied` with `error`."""
    if not 0 <= applied < usable:  # the rules named no move: a bug of ours, never a crash
        return replayed(game, applied, errors.rule_error(
            "invalid_move", f"the rules stopped the replay at move {applied} of {usable} (error {error})"))
    seat, card, second = moves[applied]
    return replayed(game, applied, game._move_error(error, seat, card, second))


# ---- simulate -------------------------------------------------------------------------

cdef struct Tally:
    # One share's figures: summed over shares, they are the whole run's (integer sums,
    # so the order the shares finish in does not matter).
    int64_t moves
    int64_t wins[MAX_SEARCH_SEATS]
    int64_t score_sum[MAX_SEARCH_SEATS]
    int64_t score_squares[MAX_SEARCH_SEATS]
    int64_t unfinished        # games a search stopped, short of memory: none counted


cdef void play_games(const EngineRules* rules, int n, const int* options, uint64_t master, int64_t start,
                     int64_t count, const uint8_t* policies, const int64_t* budgets, Tally* tally) noexcept nogil:
    """Play games start .. start + count - 1 of a simulation and add them to `tally`. Each
    game draws only from its own stream, so any split of the games gives the same sums.
    The tally is kept on this thread's stack and added once at the end: the shares of
    one call lie side by side in memory, and a tally written every game next to another
    thread's policies would bounce their cache line between the cores."""
    cdef const SearchRules* search_rules = rules.search
    cdef Tally mine
    cdef uint8_t seats[MAX_SEARCH_SEATS]
    cdef void* state = malloc(search_rules.state_size)
    cdef const int16_t* total = <const int16_t*>(<uint8_t*>state + search_rules.totals_at)
    cdef int64_t g
    cdef uint64_t game_seed, rng
    cdef int s, best
    cdef bint searching = False
    if state == NULL:
        tally.unfinished += 1
        return
    memset(&mine, 0, sizeof(Tally))
    memcpy(seats, policies, sizeof(seats))
    for s in range(n):
        searching = searching or seats[s] == search_rules.search_policy
    for g in range(start, start + count):
        game_seed = stream_seed(master, <uint64_t>g)
        rules.start(state, n, options, game_seed)
        rng = stream_seed(game_seed, 0)
        if searching:
            mine.moves += play_out_searching(search_rules, state, seats, budgets, &rng)
        else:
            mine.moves += rules.play_out(state, seats, &rng)
        if searching and (<uint8_t*>state)[search_rules.phase_at] != rules.phase_over:
            # Only a search short of memory stops a seeded game early: its totals are no result.
            mine.unfinished += 1
            break
        best = total[0]
        for s in range(n):
            if (total[s] < best) if search_rules.lowest_wins else (total[s] > best):
                best = total[s]
        for s in range(n):
            mine.wins[s] += total[s] == best
            mine.score_sum[s] += total[s]
            mine.score_squares[s] += total[s] * total[s]
    free(state)
    tally.moves += mine.moves
    tally.unfinished += mine.unfinished
    for s in range(n):
        tally.wins[s] += mine.wins[s]
        tally.score_sum[s] += mine.score_sum[s]
        tally.score_squares[s] += mine.score_squares[s]


cdef class _Share:
    """The games one thread of a `simulate` call plays, and their tally."""

    cdef const EngineRules* rules
    cdef int n
    cdef int options[MAX_OPTIONS]
    cdef uint64_t master
    cdef int64_t start, count
    cdef uint8_t policies[MAX_SEARCH_SEATS]
    cdef int64_t budgets[MAX_SEARCH_SEATS]
    cdef Tally tally

    def run(self):
        # The whole share runs without the GIL: the threads of one call play at once.
        with nogil:
            play_games(self.rules, self.n, self.options, self.master, self.start, self.count,
                       self.policies, self.budgets, &self.tally)


cdef run_shares(list shares):
    """Run every share, each but the first on a thread of its own and the first on the
    caller's, and wait for all of them."""
    helpers = [threading.Thread(target=share.run, name="core-simulate") for share in shares[1:]]
    for helper in helpers:
        helper.start()
    shares[0].run()
    for helper in helpers:
        helper.join()


cdef object simulate_games(Facts facts, int players, const int* options, object games, object seed,
                           object bots, object first, object threads, object playouts):
    """`simulate` once the game's own arguments are read: `players` and its `options`
    (MAX_OPTIONS numbers for its StartGame; NULL for none)."""
    cdef uint64_t master = parse_seed(seed)
    cdef int64_t n_games, start
    cdef uint8_t policies[MAX_SEARCH_SEATS]
    cdef int64_t budgets[MAX_SEARCH_SEATS]
    cdef Tally total
    cdef _Share share
    cdef list shares
    cdef int s, t, n_threads
    cdef int n = players
    if not is_int(games) or not 0 <= games <= errors.MAX_GAMES:
        raise errors.invalid_games(games)
    if not is_int(first) or not 0 <= first <= errors.MAX_FIRST:
        raise errors.invalid_first(first)
    n_threads = parse_threads(threads)
    n_games = games
    start = first
    memset(policies, facts.rules.search.random_policy, sizeof(policies))
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
        share.rules, share.n, share.master = facts.rules, n, master
        memset(share.options, 0, sizeof(share.options))
        if options != NULL:
            memcpy(share.options, options, sizeof(share.options))
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


cdef Facts game_facts(const EngineRules* rules, tuple codes, tuple every_move, str move_shape,
                      object unknown_card, object bad_second):
    cdef Facts facts = Facts()
    facts.rules, facts.codes, facts.every_move, facts.move_shape = rules, codes, every_move, move_shape
    facts.unknown_card, facts.bad_second = unknown_card, bad_second
    return facts
