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
from libc.stdint cimport int16_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

from core.poison.mcts cimport SeatView, observe, search_rules
from core.search cimport DEFAULT_PLAYOUTS as MCTS_PLAYOUTS
from core.search cimport ERR_NO_MEMORY, Budget, play_out_searching
from core.search cimport search as search_view
from core.poison.rules cimport (
    CAULDRONS_DYNAMIC, CAULDRONS_FIXED, DEAL_SIZE, DECK_SIZE, ERR_AWAITING_DEAL,
    ERR_CARD_NOT_IN_HAND, ERR_CAULDRON_OUT_OF_RANGE, ERR_GAME_FINISHED, ERR_ILLEGAL_CAULDRON,
    ERR_INVALID_DEAL, ERR_NOT_AWAITING_DEAL, ERR_NOT_YOUR_TURN, ERR_SEAT_OUT_OF_RANGE,
    ERR_UNKNOWN_CARD, MAX_CAULDRON_CARDS, MAX_HANDS, MAX_LEGAL_MOVES, MAX_PLAYERS, MAX_ROUNDS,
    MIN_PLAYERS, MIN_ROUNDS, N_CAULDRONS, N_COLOURS, N_KINDS, N_SUITS, NO_COLOUR, OK,
    PHASE_DEAL, PHASE_OVER, PHASE_PLAY, POISON, POISON_KIND, POLICY_GREEDY, POLICY_MCTS, POLICY_RANDOM, GameState, Outcome,
    check_move, choose_move, dealt_hand_size, deal_from_seed, game_deal, game_init, game_seed,
    hands_dealt, kind_colour, kind_copies, kind_from_chars, legal_moves, play_move, play_out,
    replay_moves, round_dealer, score_taken, stream_seed,
)

import threading

from core import errors
from core.results import (
    COLOURS, Cauldron, Deal, Move, Played, Replayed, RoundResult, Searched, Simulation, Taken, View,
)

# Card codes by kind: the canonical order of hands, legal moves and decks everywhere.
CARD_CODES = (
    "R1", "R2", "R4", "R5", "R7",
    "B1", "B2", "B4", "B5", "B7",
    "P1", "P2", "P4", "P5", "P7",
    "G4",
)
CAULDRON_RULES = ("dynamic", "fixed")
#: The bots both implementations play, the plain reference too (index = policy code in
#: rules.pxd).
BOTS = ("random", "greedy")
#: Every bot `Game.choose` and `simulate` play: those and the search bot (core/search.pyx), whose
#: policy code follows theirs. The reference does not play `mcts`, so BOTS leaves it out;
#: wherever a seat may be a bot's (the service, `poison play`), these are offered.
ENGINE_BOTS = BOTS + (errors.SEARCH_BOT,)
#: The playouts of one `mcts` decision when none are given.
DEFAULT_PLAYOUTS = MCTS_PLAYOUTS
#: The fewest and the most playouts, and milliseconds, of one decision (core.errors').
PLAYOUT_BOUNDS = errors.PLAYOUT_BOUNDS
MILLISECOND_BOUNDS = errors.MILLISECOND_BOUNDS
STATUSES = ("dealing", "active", "finished")
#: The fewest and the most players, and rounds, as the rules declare them (core/poison/rules.pxd).
PLAYER_BOUNDS = (MIN_PLAYERS, MAX_PLAYERS)
ROUND_BOUNDS = (MIN_ROUNDS, MAX_ROUNDS)

cdef tuple CODES = CARD_CODES
cdef tuple COLOUR_NAMES = COLOURS
# Every move there is (a card kind into a cauldron), each made once: a Move is immutable, so
# legal_moves hands out these instead of making a named tuple per move (its __new__ is
# Python, and making them was a read's largest single part in the service; figures:
# docs/performance.md).
cdef tuple EVERY_MOVE = tuple([Move(code, cauldron) for code in CARD_CODES for cauldron in range(N_CAULDRONS)])
# The bounds are core.errors' (one declaration for every layer), bound here once.
cdef object SEED_LIMIT = errors.SEED_LIMIT
cdef object DRAW_LIMIT = errors.DRAW_LIMIT


# ---- arguments ------------------------------------------------------------------------

cdef inline bint is_int(object value):
    # The exact type first: it is what every caller passes, and the cheapest test.
    return type(value) is int or (isinstance(value, int) and not isinstance(value, bool))


cdef int parse_card(object card) except -2:
    """The kind of a card code, or -1 when it is none."""
    cdef str code
    if type(card) is not str:
        return -1
    code = <str>card
    if len(code) != 2:
        return -1
    return kind_from_chars(code[0], code[1])


cdef int card_kind(object card) except -1:
    cdef int kind = parse_card(card)
    if kind < 0:
        raise errors.unknown_card(card, CARD_CODES)
    return kind


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


cdef str hand_owner(int seat, int players):
    return f"seat {seat}" if seat < players else "the set-aside hand"


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
            kind = parse_card(card)
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
            kind = parse_card(card)
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


cdef tuple cards_of(const uint8_t* counts):
    """Card codes, in canonical order, of a row of counts per kind."""
    cdef list cards = []
    cdef int kind, copy
    for kind in range(N_KINDS):
        for copy in range(counts[kind]):
            cards.append(CODES[kind])
    return tuple(cards)


cdef int move_codes(object seat, object card, object cauldron, int* s, int* kind, int* c) except -1:
    """A move's arguments as the rule functions take them; -1 for anything out of range,
    which they report with its error code (so the order of checks stays theirs)."""
    s[0] = seat if is_int(seat) and -1 <= seat <= MAX_PLAYERS else -1
    kind[0] = parse_card(card)
    c[0] = cauldron if is_int(cauldron) and 0 <= cauldron < N_CAULDRONS else -1
    return 0


cdef raise_move_error(const GameState* state, int error, object seat, object card, object cauldron):
    cdef int c
    if error == ERR_SEAT_OUT_OF_RANGE:
        raise errors.seat_out_of_range(seat, state.n_players)
    if error == ERR_UNKNOWN_CARD:
        raise errors.unknown_card(card, CARD_CODES)
    if error == ERR_CAULDRON_OUT_OF_RANGE:
        raise errors.cauldron_out_of_range(cauldron)
    if error == ERR_GAME_FINISHED:
        raise errors.game_finished()
    if error == ERR_AWAITING_DEAL:
        raise errors.awaiting_deal(state.round + 1)
    if error == ERR_NOT_YOUR_TURN:
        raise errors.not_your_turn(seat, state.turn)
    if error == ERR_CARD_NOT_IN_HAND:
        raise errors.card_not_in_hand(seat, card)
    if error == ERR_ILLEGAL_CAULDRON:
        colours = tuple([
            None if state.cauldron_colour[c] == NO_COLOUR else COLOUR_NAMES[state.cauldron_colour[c]]
            for c in range(N_CAULDRONS)
        ])
        colour = COLOUR_NAMES[kind_colour(parse_card(card))]
        raise errors.illegal_cauldron(card, cauldron, colour, colours, state.cauldron_rule == CAULDRONS_FIXED)
    raise errors.rule_error("invalid_move", f"the engine refused the move (error {error})")


cdef object parse_move(object move, int players, Py_ssize_t index, uint8_t* out):
    """Encode a recorded (seat, card, cauldron) triple into `out`, or return the error
    that playing it would raise whatever the game's state (None when it is well-formed)."""
    cdef int kind
    cdef tuple triple
    if type(move) is tuple and len(<tuple>move) == 3:
        triple = <tuple>move
        seat, card, cauldron = triple[0], triple[1], triple[2]
    elif isinstance(move, (tuple, list)) and len(move) == 3:
        seat, card, cauldron = move
    else:
        return errors.rule_error(
            "invalid_move", f"move {index} is not a (seat, card, cauldron) triple: {errors.quoted(move)}"
        )
    if not is_int(seat) or not 0 <= seat < players:
        return errors.seat_out_of_range(seat, players)
    kind = parse_card(card)
    if kind < 0:
        return errors.unknown_card(card, CARD_CODES)
    if not is_int(cauldron) or not 0 <= cauldron < N_CAULDRONS:
        return errors.cauldron_out_of_range(cauldron)
    out[0] = <uint8_t>seat
    out[1] = <uint8_t>kind
    out[2] = <uint8_t>cauldron
    return None


# ---- the game -------------------------------------------------------------------------

cdef tuple moves_at(const GameState* state):
    """Every legal move at `state`, in canonical order."""
    cdef uint8_t kinds[MAX_LEGAL_MOVES]
    cdef uint8_t cauldrons[MAX_LEGAL_MOVES]
    cdef int n = legal_moves(state, kinds, cauldrons)
    cdef int i
    return tuple([EVERY_MOVE[kinds[i] * N_CAULDRONS + cauldrons[i]] for i in range(n)])


cdef class Game:
    """One game of Poison, in C. See core/poison/engine.pyi for the documented interface."""

    cdef GameState state
    cdef list pending_deals

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
    def players(self):
        return self.state.n_players

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
    def status(self):
        return STATUSES[self.state.phase]

    @property
    def round(self):
        return self.state.round + 1

    @property
    def dealer(self):
        return self.state.dealer

    @property
    def turn(self):
        return self.state.turn if self.state.phase == PHASE_PLAY else None

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

    @property
    def totals(self):
        return tuple([self.state.total[s] for s in range(self.state.n_players)])

    @property
    def winners(self):
        cdef int s
        if self.state.phase != PHASE_OVER:
            return ()
        best = min(self.totals)
        return tuple([s for s in range(self.state.n_players) if self.state.total[s] == best])

    # -- hidden information: callers decide who may see it -----------------------------

    def hand(self, seat):
        return cards_of(self.state.hand[self._seat(seat)])

    def set_aside(self):
        if self.state.n_players != 3:
            return ()
        return cards_of(self.state.hand[3])

    def taken(self, seat):
        cdef int s = self._seat(seat)
        return Taken(self.state.taken[s][0], self.state.taken[s][1],
                     self.state.taken[s][2], self.state.taken[s][3])

    cdef int _seat(self, object seat) except -1:
        if not is_int(seat) or not 0 <= seat < self.state.n_players:
            raise errors.seat_out_of_range(seat, self.state.n_players)
        return seat

    # -- moves -------------------------------------------------------------------------

    def legal_moves(self):
        return moves_at(&self.state)

    def check(self, seat, card, cauldron):
        cdef int s, kind, c
        move_codes(seat, card, cauldron, &s, &kind, &c)
        cdef int error = check_move(&self.state, s, kind, c)
        if error != OK:
            raise_move_error(&self.state, error, seat, card, cauldron)

    def play(self, seat, card, cauldron):
        cdef Outcome outcome
        cdef int s, kind, c
        move_codes(seat, card, cauldron, &s, &kind, &c)
        cdef int error = play_move(&self.state, s, kind, c, &outcome)
        if error != OK:
            raise_move_error(&self.state, error, seat, card, cauldron)
        if outcome.round_over and self.pending_deals:
            self._deal_pending()
        return Played(
            outcome.seat, CODES[outcome.kind], outcome.cauldron, outcome.total,
            tuple([CODES[outcome.taken[i]] for i in range(outcome.n_taken)]),
            bool(outcome.round_over), bool(outcome.game_over),
        )

    def choose(self, bot, seed=0, *, playouts=None, milliseconds=None):
        """The move `bot` plays for the seat to move (`seed` drives the random bot and the
        search; `playouts` and `milliseconds` are the search's budget)."""
        cdef int policy = parse_bot(bot)
        cdef uint64_t rng = stream_seed(parse_draw(seed), 0)
        cdef uint8_t kind, cauldron
        if policy == POLICY_MCTS:
            return self.search(seed, playouts=playouts, milliseconds=milliseconds).move
        if playouts is not None or milliseconds is not None:
            raise errors.budget_without_search(bot)
        if self.state.phase == PHASE_OVER:
            raise errors.game_finished()
        if self.state.phase != PHASE_PLAY:
            raise errors.awaiting_deal(self.state.round + 1)
        if choose_move(&self.state, policy, &rng, &kind, &cauldron) != OK:  # the phase says not: a bug of ours
            raise errors.rule_error("invalid_move", "the rules found no move to choose")
        return Move(CODES[kind], cauldron)

    def search(self, seed=0, *, playouts=None, milliseconds=None):
        """The `mcts` bot's search for the seat to move, from that seat's view alone, run
        without the GIL on a copy of the view (the game may change meanwhile)."""
        cdef SeatView view
        cdef Budget budget
        cdef uint64_t rng = stream_seed(parse_draw(seed), 0)
        cdef uint32_t visits[MAX_LEGAL_MOVES]
        cdef uint8_t kind, cauldron
        cdef int64_t done = 0
        cdef int error
        budget.playouts = parse_playouts(playouts)
        budget.milliseconds = parse_milliseconds(milliseconds)
        if self.state.phase == PHASE_OVER:
            raise errors.game_finished()
        if self.state.phase != PHASE_PLAY:
            raise errors.awaiting_deal(self.state.round + 1)
        observe(&self.state, &view)
        with nogil:
            error = search_view(search_rules(), &view, rng, &budget, &kind, &cauldron, visits, &done)
        if error == ERR_NO_MEMORY:
            raise MemoryError("no memory for the search tree")
        if error != OK:     # the phase says there is a move: a bug of ours
            raise errors.rule_error("invalid_move", "the search found no move to choose")
        # The moves of the position searched, read from the view: another thread may have
        # played on in the game itself while the search ran without the GIL.
        moves = moves_at(&view.public)
        return Searched(
            Move(CODES[kind], cauldron), done, moves, tuple([visits[i] for i in range(len(moves))])
        )

    def deal(self, hands, set_aside=()):
        cdef uint8_t deal[DEAL_SIZE]
        if self.state.phase == PHASE_OVER:
            raise errors.game_finished()
        if self.state.phase != PHASE_DEAL:
            raise errors.not_awaiting_deal(self.state.round + 1)
        parse_deal(self.state.n_players, self.state.dealer, hands, set_aside, deal)
        if game_deal(&self.state, deal) != OK:   # parse_deal checked all; this is a backstop
            raise errors.rule_error("invalid_deal", "the engine refused the deal")

    # -- results -----------------------------------------------------------------------

    def round_results(self):
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
        cdef int s = -1
        if seat is not None:
            s = self._seat(seat)
        hand = None
        moves = None
        if s >= 0:
            hand = cards_of(self.state.hand[s])
            moves = self.legal_moves() if self.state.phase == PHASE_PLAY and self.state.turn == s else ()
        return View(
            self.status, self.round, self.state.n_rounds, self.state.dealer, self.turn,
            self.cauldrons, self.hand_sizes, self.pile_sizes,
            tuple([result.scores for result in self.round_results()]),
            self.totals, self.winners, None if s < 0 else s, hand, moves,
        )

    def copy(self):
        cdef Game twin = Game.__new__(Game)
        memcpy(&twin.state, &self.state, sizeof(GameState))
        twin.pending_deals = list(self.pending_deals)
        return twin

    def __copy__(self):
        return self.copy()

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
        tuple([cards_of(&deal[seat * N_KINDS]) for seat in range(n)]),
        cards_of(&deal[n * N_KINDS]) if n == 3 else (),
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
    cdef Py_ssize_t n_moves, n_deals, i, waiting
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
    n_moves = len(moves)
    n_deals = min(len(deals), game.state.n_rounds)
    try:
        move_bytes = <uint8_t*>PyMem_Malloc(3 * n_moves + 1)
        deal_bytes = <uint8_t*>PyMem_Malloc(DEAL_SIZE * n_deals + 1)
        if move_bytes == NULL or deal_bytes == NULL:
            raise MemoryError()
        usable = n_moves
        for i in range(n_moves):
            stop = parse_move(moves[i], n, i, move_bytes + 3 * i)
            if stop is not None:
                usable = i
                break
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
        return Replayed(game, applied, refused)
    if error != OK:
        if applied >= usable:
            refused = errors.rule_error(
                "invalid_move", f"the rules stopped the replay at move {applied} (error {error})"
            )
            return Replayed(game, applied, refused)
        move = moves[applied]
        try:
            raise_move_error(&game.state, error, move[0], move[1], move[2])
        except errors.RuleError as raised:
            return Replayed(game, applied, raised)
    return Replayed(game, applied, stop)


#: The fewest and the most threads one `simulate` call plays its games on (core.errors').
THREAD_BOUNDS = errors.THREAD_BOUNDS


cdef struct Tally:
    # One share's figures: summed over shares, they are the whole run's (integer sums,
    # so the order the shares finish in does not matter).
    int64_t moves
    int64_t wins[MAX_PLAYERS]
    int64_t score_sum[MAX_PLAYERS]
    int64_t score_squares[MAX_PLAYERS]
    int64_t unfinished        # games a search stopped, its tree not allocated: none counted


cdef void play_games(int n, int n_rounds, int rule, uint64_t master, int64_t start, int64_t count,
                     const uint8_t* policies, const int64_t* budgets, Tally* tally) noexcept nogil:
    """Play games start .. start + count - 1 of a simulation and add them to `tally`. Each
    game draws only from its own stream, so any split of the games gives the same sums.
    The tally is kept on this thread's stack and added once at the end: the shares of
    one call lie side by side in memory, and a tally written every game next to another
    thread's policies would bounce their cache line between the cores."""
    cdef Tally mine
    cdef uint8_t seats[MAX_PLAYERS]
    cdef GameState state
    cdef int64_t g
    cdef uint64_t game_seed_value, rng
    cdef int s, best
    cdef bint searching = False
    memset(&mine, 0, sizeof(Tally))
    memcpy(seats, policies, sizeof(seats))
    for s in range(n):
        searching = searching or seats[s] == POLICY_MCTS
    for g in range(start, start + count):
        game_init(&state, n, n_rounds, rule)
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
            if state.total[s] < best:
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

    cdef int n, n_rounds, rule
    cdef uint64_t master
    cdef int64_t start, count
    cdef uint8_t policies[MAX_PLAYERS]
    cdef int64_t budgets[MAX_PLAYERS]
    cdef Tally tally

    def run(self):
        # The whole share runs without the GIL: the threads of one call play at once.
        with nogil:
            play_games(self.n, self.n_rounds, self.rule, self.master, self.start, self.count,
                       self.policies, self.budgets, &self.tally)


cdef int parse_threads(object threads) except -1:
    if not is_int(threads) or not THREAD_BOUNDS[0] <= threads <= THREAD_BOUNDS[1]:
        raise errors.invalid_threads(threads)
    return threads


def simulate(players, games, *, seed=0, rounds=None, cauldrons="dynamic", bots=None, first=0, threads=1,
             playouts=None):
    """Play `games` complete games of bot moves in C; see core/poison/engine.pyi."""
    cdef int n = parse_players(players)
    cdef int n_rounds = parse_rounds(rounds, n)
    cdef int rule = parse_rule(cauldrons)
    cdef uint64_t master = parse_seed(seed)
    cdef int64_t n_games, start
    cdef uint8_t policies[MAX_PLAYERS]
    cdef int64_t budgets[MAX_PLAYERS]
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
        share.n, share.n_rounds, share.rule, share.master = n, n_rounds, rule, master
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
    helpers = [threading.Thread(target=share.run, name="poison-simulate") for share in shares[1:]]
    for helper in helpers:
        helper.start()
    shares[0].run()
    for helper in helpers:
        helper.join()
