# cython: language_level=3, boundscheck=True, wraparound=True, cdivision=True, initializedcheck=False
"""The Python face of the compiled rules: `Game`, `replay`, `simulate`, `score_round`, `seeded_deal`.

This is the one place where the C rules of rules.pyx meet Python: it checks and converts
arguments, calls the rule functions, turns their error codes into the exceptions of
core.errors and builds the result tuples of core.results. It holds no rule of its own, and
nothing it does on a refused call changes a game.

Every access to a Python object here is checked (bounds checking and negative indices are
on for this module, unlike the `nogil` rule functions of rules.pyx), so a wrong count from
the rules becomes an exception, never a read past the end of a list. Facts the rules decide
(the dealer, the turn, the round) are read from the GameState, never worked out here.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdint cimport int16_t, int64_t, uint8_t, uint64_t
from libc.string cimport memcpy, memset

from core.face cimport (
    CheckMove, CompiledGame, EngineRules, Facts, KindFromChars, PlayMove, PlayOut, cards_of, game_facts, is_int,
    parse_card, parse_draw, parse_seed, read_moves, replay_refusal, replayed, simulate_games,
)
from core.poison.mcts cimport search_rules
from core.poison.rules cimport (
    CAULDRONS_DYNAMIC, CAULDRONS_FIXED, DEAL_SIZE, DECK_SIZE, ERR_AWAITING_DEAL,
    ERR_CARD_NOT_IN_HAND, ERR_CAULDRON_OUT_OF_RANGE, ERR_GAME_FINISHED, ERR_ILLEGAL_CAULDRON,
    ERR_INVALID_DEAL, ERR_NOT_AWAITING_DEAL, ERR_NOT_YOUR_TURN, ERR_SEAT_OUT_OF_RANGE,
    ERR_UNKNOWN_CARD, MAX_PLAYERS, MAX_ROUNDS, MIN_PLAYERS, MIN_ROUNDS, N_CAULDRONS, N_COLOURS,
    N_KINDS, N_SUITS, NO_COLOUR, OK, PHASE_DEAL, PHASE_OVER, PHASE_PLAY, GameState, Outcome,
    check_move, dealt_hand_size, deal_from_seed, game_deal, game_init, game_seed, hands_dealt,
    kind_colour, kind_copies, kind_from_chars, move_refusals, play_move, play_out, replay_moves, round_dealer,
    score_taken, stream_seed,
)
from core.search cimport MAX_SEARCH_MOVES

from core import errors
from core.face import BOTS, DEFAULT_PLAYOUTS, ENGINE_BOTS, MILLISECOND_BOUNDS, PLAYOUT_BOUNDS, STATUSES, THREAD_BOUNDS
from core.results import COLOURS, Cauldron, Deal, Move, Played, RoundResult, Taken, View


# Card codes by kind: the canonical order of hands, legal moves and decks everywhere.
CARD_CODES = (
    "R1", "R2", "R4", "R5", "R7",
    "B1", "B2", "B4", "B5", "B7",
    "P1", "P2", "P4", "P5", "P7",
    "G4",
)
CAULDRON_RULES = ("dynamic", "fixed")
#: The fewest and the most players, and rounds, as the rules declare them (core/poison/rules.pxd).
PLAYER_BOUNDS = (MIN_PLAYERS, MAX_PLAYERS)
ROUND_BOUNDS = (MIN_ROUNDS, MAX_ROUNDS)

cdef tuple CODES = CARD_CODES
cdef tuple COLOUR_NAMES = COLOURS
# Every move there is (a card kind into a cauldron), each made once, at its code in the
# search's tables (kind << 2 | cauldron; core/poison/mcts.pyx): a Move is immutable, so
# legal_moves hands out these instead of making a named tuple per move.
cdef tuple EVERY_MOVE = tuple([
    Move(code, cauldron) if cauldron < N_CAULDRONS else None for code in CARD_CODES for cauldron in range(4)
])


# ---- arguments ------------------------------------------------------------------------

cdef int parse_players(object players) except -1:
    if not is_int(players) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise errors.rule_error("invalid_players", f"a game has 3 to 6 players, not {errors.quoted(players)}")
    return players


cdef int parse_rounds(object rounds, int players) except -1:
    if rounds is None:
        return players
    if not is_int(rounds) or not MIN_ROUNDS <= rounds <= MAX_ROUNDS:
        raise errors.rule_error("invalid_rounds", f"a game has 1 to 20 rounds, not {errors.quoted(rounds)}")
    return rounds


cdef int parse_rule(object cauldrons) except -1:
    if cauldrons == "dynamic" and type(cauldrons) is str:
        return CAULDRONS_DYNAMIC
    if cauldrons == "fixed" and type(cauldrons) is str:
        return CAULDRONS_FIXED
    raise errors.rule_error(
        "invalid_rule", f"cauldrons must be 'dynamic' or 'fixed', not {errors.quoted(cauldrons)}"
    )


cdef str hand_owner(int seat, int players):
    return f"seat {seat}" if seat < players else "the set-aside hand"


cdef parse_deal(int players, int dealer, object hands, object set_aside, uint8_t* deal):
    """Fill `deal` (DEAL_SIZE bytes) from card codes, or raise saying what is wrong."""
    cdef int seat, kind, expected, count
    cdef int n_hands = hands_dealt(players)
    memset(deal, 0, DEAL_SIZE)
    if not isinstance(hands, (list, tuple)) or len(hands) != players:
        raise errors.rule_error(
            "invalid_deal", f"a deal holds one hand per seat: {players} hands expected"
        )
    if set_aside is None:
        set_aside = ()
    if not isinstance(set_aside, (list, tuple)):
        raise errors.rule_error("invalid_deal", "set_aside must be a list of card codes")
    for seat in range(n_hands):
        hand = hands[seat] if seat < players else set_aside
        if not isinstance(hand, (list, tuple)):
            raise errors.rule_error(
                "invalid_deal", f"the hand of {hand_owner(seat, players)} must be a list of card codes"
            )
        expected = dealt_hand_size(players, dealer, seat)
        if len(hand) != expected:
            raise errors.rule_error(
                "invalid_deal",
                f"{hand_owner(seat, players)} must be dealt {expected} cards (one at a time from the "
                f"dealer's left), not {len(hand)}",
            )
        for card in hand:
            kind = parse_card(&ENGINE, card)
            if kind < 0:
                raise errors.rule_error(
                    "unknown_card",
                    f"in the hand of {hand_owner(seat, players)}: {errors.unknown_card(card, CARD_CODES)}",
                )
            deal[seat * N_KINDS + kind] += 1
    if players != 3 and len(set_aside) != 0:
        raise errors.rule_error("invalid_deal", "only a three-player round sets a hand aside")
    for kind in range(N_KINDS):
        count = 0
        for seat in range(n_hands):
            count += deal[seat * N_KINDS + kind]
        if count != kind_copies(kind):
            raise errors.rule_error(
                "invalid_deal",
                f"the deal holds {count} × {CODES[kind]}, but the deck has {kind_copies(kind)}",
            )


cdef bint encode_deal(int players, object deal, uint8_t* out):
    """Card counts of a recorded deal (a pair: hands, set_aside) into `out` (DEAL_SIZE bytes)
    if it has the shape of one: a hand per seat, each a list of card codes no longer than
    the deck, a set-aside hand only with three players. False if not (`deal_error` then
    says why). Hand sizes and the whole deck are the rules' to check, against the dealer
    the game state names, when the round is dealt."""
    cdef int seat, kind
    cdef int n_hands = hands_dealt(players)
    memset(out, 0, DEAL_SIZE)
    if not isinstance(deal, (list, tuple)) or len(deal) != 2:
        return False
    hands, set_aside = deal[0], deal[1]
    if set_aside is None:
        set_aside = ()
    if not isinstance(hands, (list, tuple)) or len(hands) != players:
        return False
    if not isinstance(set_aside, (list, tuple)) or (players != 3 and len(set_aside) != 0):
        return False
    for seat in range(n_hands):
        hand = hands[seat] if seat < players else set_aside
        if not isinstance(hand, (list, tuple)) or len(hand) > DECK_SIZE:
            return False
        for card in hand:
            kind = parse_card(&ENGINE, card)
            if kind < 0:
                return False
            out[seat * N_KINDS + kind] += 1
    return True


cdef object deal_error(int players, int dealer, object deal):
    """The RuleError dealing `deal` from `dealer`'s left raises (None if there is none)."""
    cdef uint8_t scratch[DEAL_SIZE]
    if not isinstance(deal, (list, tuple)) or len(deal) != 2:
        return errors.rule_error("invalid_deal", "each deal is a pair (hands, set_aside)")
    try:
        parse_deal(players, dealer, deal[0], deal[1], scratch)
    except errors.RuleError as refused:
        return refused
    return None


cdef int parse_cauldron(object cauldron) noexcept:
    """The cauldron as the rules take it; -1 for anything out of range, which they report
    with its error code (so the order of checks stays theirs)."""
    return cauldron if is_int(cauldron) and 0 <= cauldron < N_CAULDRONS else -1


cdef object illegal_cauldron(const GameState* state, object card, object cauldron):
    """The error of a card its cauldron may not take."""
    cdef int c
    colours = tuple([
        None if state.cauldron_colour[c] == NO_COLOUR else COLOUR_NAMES[state.cauldron_colour[c]]
        for c in range(N_CAULDRONS)
    ])
    colour = COLOUR_NAMES[kind_colour(parse_card(&ENGINE, card))]
    return errors.illegal_cauldron(card, cauldron, colour, colours, state.cauldron_rule == CAULDRONS_FIXED)


# ---- the game -------------------------------------------------------------------------

cdef void start(void* game, int players, const int* options, uint64_t seed) noexcept nogil:
    # A seeded game for simulate: options are its rounds and cauldron rule.
    game_init(<GameState*>game, players, options[0], options[1])
    game_seed(<GameState*>game, seed)


cdef EngineRules ENGINE = EngineRules(
    search_rules(), move_refusals(), PHASE_OVER, <KindFromChars>kind_from_chars, parse_cauldron, <CheckMove>check_move,
    <PlayMove>play_move, start, <PlayOut>play_out,
)
cdef Facts FACTS = game_facts(
    &ENGINE, CODES, EVERY_MOVE, "(seat, card, cauldron)", errors.unknown_card, errors.cauldron_out_of_range
)


cdef class Game(CompiledGame):
    """One game of Poison, in C. See core/poison/engine.pyi for the documented interface."""

    cdef GameState state
    cdef list pending_deals

    def __cinit__(self):
        self.at = &self.state
        self.rules = &ENGINE
        self.words = <void*>FACTS

    def __init__(self, players, *, rounds=None, cauldrons="dynamic", seed=None, deals=None):
        cdef int n = parse_players(players)
        cdef int n_rounds = parse_rounds(rounds, n)
        cdef int rule = parse_rule(cauldrons)
        cdef uint64_t s = 0
        cdef int number
        cdef object refused
        if seed is not None:
            s = parse_seed(seed)
            if deals is not None:
                raise errors.rule_error("invalid_deal", "give a seed or explicit deals, not both")
        if deals is not None and not isinstance(deals, (list, tuple)):
            raise errors.rule_error("invalid_deal", "deals must be a list of deals, one per round")
        if deals is not None and len(deals) > n_rounds:
            raise errors.rule_error("invalid_deal", f"{len(deals)} deals for a game of {n_rounds} rounds")
        if game_init(&self.state, n, n_rounds, rule) != OK:   # the options were checked; a backstop
            raise errors.rule_error("invalid_rule", "the rules refused the game's options")
        if deals is not None:
            # Check every deal now, so that a bad one is refused before any move is made; the
            # rules say who deals each round.
            for number in range(len(deals)):
                refused = deal_error(n, round_dealer(&self.state, number), deals[number])
                if refused is not None:
                    raise refused
        self.pending_deals = list(deals) if deals is not None else []
        if seed is not None:
            game_seed(&self.state, s)
        else:
            self._deal_pending()

    cdef _deal_pending(self):
        if self.pending_deals and self.state.phase == PHASE_DEAL:
            hands, set_aside = self.pending_deals.pop(0)
            self.deal(hands, set_aside)

    # -- options and public state ------------------------------------------------------

    @property
    def rounds(self):
        return self.state.n_rounds

    @property
    def cauldron_rule(self):
        return CAULDRON_RULES[self.state.cauldron_rule]

    @property
    def seed(self):
        return self.state.seed if self.state.seeded else None

    @property
    def round(self):
        return self.state.round + 1

    @property
    def dealer(self):
        return self.state.dealer

    @property
    def cauldrons(self):
        cdef int c, i
        cdef list cauldrons = []
        for c in range(N_CAULDRONS):
            colour = self.state.cauldron_colour[c]
            cauldrons.append(Cauldron(
                None if colour == NO_COLOUR else COLOUR_NAMES[colour],
                self.state.cauldron_total[c],
                tuple([CODES[self.state.cauldron[c][i]] for i in range(self.state.cauldron_len[c])]),
            ))
        return tuple(cauldrons)

    @property
    def hand_sizes(self):
        return tuple([self.state.hand_size[s] for s in range(self.state.n_players)])

    @property
    def pile_sizes(self):
        cdef int s
        return tuple([
            self.state.taken[s][0] + self.state.taken[s][1] + self.state.taken[s][2] + self.state.taken[s][3]
            for s in range(self.state.n_players)
        ])

    # -- hidden information: callers decide who may see it -----------------------------

    cdef tuple _hand(self, int seat):
        return cards_of(CODES, self.state.hand[seat], N_KINDS)

    def hand(self, seat):
        return self._hand(self._seat(seat))

    def set_aside(self):
        if self.state.n_players != 3:
            return ()
        return cards_of(CODES, self.state.hand[3], N_KINDS)

    def taken(self, seat):
        cdef int s = self._seat(seat)
        return Taken(self.state.taken[s][0], self.state.taken[s][1],
                     self.state.taken[s][2], self.state.taken[s][3])

    # -- moves -------------------------------------------------------------------------

    cdef object _phase_error(self, int wanted):
        if self.state.phase == PHASE_OVER:
            return errors.game_finished()
        if wanted == PHASE_PLAY:
            return errors.awaiting_deal(self.state.round + 1)
        return errors.not_awaiting_deal(self.state.round + 1)

    cdef object _own_move_error(self, int error, object seat, object card, object second):
        return illegal_cauldron(&self.state, card, second) if error == ERR_ILLEGAL_CAULDRON else None

    def check(self, seat, card, cauldron):
        self._check(seat, card, cauldron)

    def play(self, seat, card, cauldron):
        cdef Outcome outcome
        self._play(seat, card, cauldron, &outcome)
        if outcome.round_over and self.pending_deals:
            self._deal_pending()
        return Played(
            outcome.seat, CODES[outcome.kind], outcome.cauldron, outcome.total,
            tuple([CODES[outcome.taken[i]] for i in range(outcome.n_taken)]),
            bool(outcome.round_over), bool(outcome.game_over),
        )

    def deal(self, hands, set_aside=()):
        cdef uint8_t deal[DEAL_SIZE]
        self._expect(PHASE_DEAL)
        parse_deal(self.state.n_players, self.state.dealer, hands, set_aside, deal)
        if game_deal(&self.state, deal) != OK:   # parse_deal checked all; this is a backstop
            raise errors.rule_error("invalid_deal", "the engine refused the deal")

    # -- results -----------------------------------------------------------------------

    def results(self):
        cdef int r, s, colour
        cdef int n = self.state.n_players
        results = []
        for r in range(min(self.state.rounds_scored, MAX_ROUNDS)):
            results.append(RoundResult(
                r + 1,
                self.state.scored_dealer[r],
                tuple([Taken(*[self.state.round_taken[r][s][colour] for colour in range(N_SUITS)])
                       for s in range(n)]),
                tuple([tuple([COLOUR_NAMES[colour] for colour in range(N_COLOURS)
                              if (self.state.discarded[r][s] >> colour) & 1]) for s in range(n)]),
                tuple([self.state.score[r][s] for s in range(n)]),
            ))
        return tuple(results)

    def view(self, seat=None):
        seen, hand, moves = self._seen(seat)
        return View(
            self.status, self.round, self.state.n_rounds, self.state.dealer, self.turn,
            self.cauldrons, self.hand_sizes, self.pile_sizes,
            tuple([result.scores for result in self.results()]),
            self.totals, self.winners, seen, hand, moves,
        )

    def copy(self):
        cdef Game twin = Game.__new__(Game)
        memcpy(&twin.state, &self.state, sizeof(GameState))
        twin.pending_deals = list(self.pending_deals)
        return twin

    def __repr__(self):
        return (f"<Game {self.state.n_players} players, round {self.round}/{self.state.n_rounds}, "
                f"{self.status}>")


# ---- free functions -------------------------------------------------------------------

def derive_seed(seed, stream):
    """An independent seed for one use of `seed` (a round's deal, a bot's choices)."""
    return stream_seed(parse_draw(seed), parse_draw(stream))


def seeded_deal(seed, players, round):
    """The deal a seeded game uses for `round` (1-based)."""
    cdef uint8_t deal[DEAL_SIZE]
    cdef GameState scratch
    cdef int n = parse_players(players)
    cdef uint64_t s = parse_seed(seed)
    cdef int seat
    if not is_int(round) or not MIN_ROUNDS <= round <= MAX_ROUNDS:
        raise errors.rule_error("invalid_rounds", f"round {errors.quoted(round)} is not 1 to 20")
    game_init(&scratch, n, MAX_ROUNDS, CAULDRONS_DYNAMIC)
    deal_from_seed(s, round - 1, n, round_dealer(&scratch, round - 1), deal)
    return Deal(
        tuple([cards_of(CODES, &deal[seat * N_KINDS], N_KINDS) for seat in range(n)]),
        cards_of(CODES, &deal[n * N_KINDS], N_KINDS) if n == 3 else (),
    )


def score_round(taken):
    """Scores and discards of one round from per-seat counts (red, blue, purple, poison)."""
    cdef uint8_t counts[MAX_PLAYERS * N_SUITS]
    cdef int16_t scores[MAX_PLAYERS]
    cdef uint8_t discarded[MAX_PLAYERS]
    cdef int n, s, colour
    if not isinstance(taken, (list, tuple)) or not MIN_PLAYERS <= len(taken) <= MAX_PLAYERS:
        raise errors.rule_error("invalid_players", "score_round takes the piles of 3 to 6 seats")
    n = len(taken)
    for s in range(n):
        row = taken[s]
        if not isinstance(row, (list, tuple)) or len(row) != N_SUITS:
            raise errors.rule_error("invalid_deal", f"seat {s}: a pile is four counts (red, blue, purple, poison)")
        for colour in range(N_SUITS):
            value = row[colour]
            if not is_int(value) or not 0 <= value <= (14 if colour < N_COLOURS else 8):
                raise errors.rule_error("invalid_deal", f"seat {s}: {errors.quoted(value)} cannot be a count of that suit")
            counts[s * N_SUITS + colour] = value
    score_taken(n, counts, scores, discarded)
    return (
        tuple([scores[s] for s in range(n)]),
        tuple([tuple([COLOUR_NAMES[colour] for colour in range(N_COLOURS) if (discarded[s] >> colour) & 1])
               for s in range(n)]),
    )


def replay(players, moves, *, rounds=None, cauldrons="dynamic", seed=None, deals=()):
    """Replay a recorded game in one C loop; see core/poison/engine.pyi."""
    cdef Game game = Game(players, rounds=rounds, cauldrons=cauldrons, seed=seed)
    cdef int n = game.state.n_players
    cdef Py_ssize_t n_deals, i, waiting
    cdef int64_t usable, applied
    cdef int error = OK
    cdef uint8_t* move_bytes = NULL
    cdef uint8_t* deal_bytes = NULL
    cdef object stop = None             # an error found while reading the moves
    cdef object refused
    if seed is not None and deals:
        raise errors.rule_error("invalid_deal", "give a seed or explicit deals, not both")
    if not isinstance(moves, (list, tuple)) or not isinstance(deals, (list, tuple)):
        raise errors.rule_error("invalid_move", "moves and deals must be lists")
    n_deals = min(len(deals), game.state.n_rounds)
    try:
        stop = read_moves(FACTS, moves, n, &move_bytes, &usable)
        deal_bytes = <uint8_t*>PyMem_Malloc(DEAL_SIZE * n_deals + 1)
        if deal_bytes == NULL:
            raise MemoryError()
        # Deals are read here, checked by the rules as their rounds start (against the dealer
        # the game state names then); the C loop stops before the first unreadable one.
        for i in range(n_deals):
            if not encode_deal(n, deals[i], deal_bytes + i * DEAL_SIZE):
                n_deals = i
                break
        with nogil:
            applied = replay_moves(&game.state, deal_bytes, <int>n_deals, move_bytes, usable, &error)
    finally:
        PyMem_Free(move_bytes)
        PyMem_Free(deal_bytes)
    if not 0 <= applied <= usable:
        raise errors.rule_error("invalid_move", f"the rules stopped the replay at move {applied} of {usable}")
    waiting = game.state.round   # the round (from 0) the game waits for, when it waits for a deal
    if error == ERR_INVALID_DEAL or (
        game.state.phase == PHASE_DEAL and (error == OK or error == ERR_AWAITING_DEAL) and waiting < len(deals)
    ):
        # The deal of the round that stopped the replay was refused, or could not be read:
        # say why, as dealing it from the state's dealer does.
        refused = None
        if waiting < len(deals):
            refused = deal_error(n, game.state.dealer, deals[waiting])
        if refused is None:
            refused = errors.rule_error("invalid_deal", f"the rules refused the deal of round {waiting + 1}")
        return replayed(game, applied, refused)
    if error != OK:
        return replay_refusal(game, moves, applied, usable, error)
    return replayed(game, applied, stop)


def simulate(players, games, *, seed=0, rounds=None, cauldrons="dynamic", bots=None, first=0, threads=1,
             playouts=None):
    """Play `games` complete games of bot moves in C; see core/poison/engine.pyi."""
    cdef int options[2]
    cdef int n = parse_players(players)
    options[0] = parse_rounds(rounds, n)
    options[1] = parse_rule(cauldrons)
    return simulate_games(FACTS, n, options, games, seed, bots, first, threads, playouts)
