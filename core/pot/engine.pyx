# cython: language_level=3, boundscheck=True, wraparound=True, cdivision=True, initializedcheck=False
"""The Python face of the pot game's compiled rules: `Game`, `replay`, `simulate`, `seeded_deal`.

This is the one place where the C rules of core/pot/rules.pyx meet Python: it checks and
converts arguments, calls the rule functions, turns their error codes into the exceptions
of core.errors and builds the result tuples of core.results. It holds no rule of its own,
and nothing it does on a refused call changes a game. Bounds checking is on here (off only
inside the rule functions): a wrong answer from the rules must never become a crash.
"""

from cpython.mem cimport PyMem_Free
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.string cimport memcpy, memset

from core.face cimport (
    CheckMove, CompiledGame, EngineRules, Facts, KindFromChars, PlayMove, PlayOut, cards_of, codes_of, game_facts,
    is_int, parse_card, parse_seed, read_moves, replay_refusal, replayed, simulate_games,
)
from core.pot cimport rules
from core.pot.mcts cimport search_rules
from core.pot.rules cimport (
    COPIES, ERR_AWAITING_DEAL, ERR_CARD_NOT_IN_HAND, ERR_CLOSE_ENDGAME, ERR_CLOSE_EXPLODES,
    ERR_GAME_FINISHED, ERR_INVALID_MOVE, ERR_NOT_YOUR_TURN, ERR_SEAT_OUT_OF_RANGE,
    ERR_UNKNOWN_CARD, N_TOXICITIES, NO_CARD, OK, PHASE_DEAL, PHASE_OVER, PHASE_PLAY, POT_CLOSED,
    Outcome, PotRecord, PotState, check_move, deal_from_seed, endgame, game_deal, game_init, game_seed,
    kind_from_chars, move_refusals, pile_size, play_move, play_out, replay_moves,
)

from core import errors
from core.face import BOTS, DEFAULT_PLAYOUTS, ENGINE_BOTS, MILLISECOND_BOUNDS, PLAYOUT_BOUNDS, STATUSES, THREAD_BOUNDS
from core.results import PotDeal, PotMove, PotPlayed, PotResult, PotView

#: Card codes by kind (kind k is toxicity k): the canonical order of hands and legal moves.
CARD_CODES = tuple([f"T{kind}" for kind in range(N_TOXICITIES)])
#: The numbers of the game, as rules.pxd names them.
PLAYER_BOUNDS = (rules.MIN_PLAYERS, rules.MAX_PLAYERS)
DECK_SIZE = rules.DECK_SIZE
HAND_SIZE = rules.HAND_SIZE
EXPLODE_LIMIT = rules.EXPLODE_LIMIT

cdef tuple CODES = CARD_CODES
cdef tuple OUTCOMES = ("closed", "exploded")
# Every move there is (a card kind, and whether it closes the pot), each made once, at its
# code in the search's tables (kind << 1 | close; core/pot/mcts.pyx): a PotMove is
# immutable, so legal_moves hands out these instead of making a named tuple per move.
cdef tuple EVERY_MOVE = tuple([PotMove(code, close) for code in CARD_CODES for close in (False, True)])


# ---- arguments ------------------------------------------------------------------------

cdef int parse_close(object close) noexcept:
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
            kind = parse_card(&ENGINE, hand[i])
            if kind < 0:
                raise errors.rule_error(
                    "unknown_card", f"in the hand of seat {seat}: {errors.unknown_pot_card(hand[i], CARD_CODES)}"
                )
            deck[seat * rules.HAND_SIZE + i] = <uint8_t>kind
    kind = parse_card(&ENGINE, pot)
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
        kind = parse_card(&ENGINE, draw_pile[i])
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


# ---- the game -------------------------------------------------------------------------

cdef void start(void* game, int players, const int* options, uint64_t seed) noexcept nogil:
    # A seeded game for simulate (the pot game has no options).
    game_init(<PotState*>game, players)
    game_seed(<PotState*>game, seed)


cdef EngineRules ENGINE = EngineRules(
    search_rules(), move_refusals(), PHASE_OVER, <KindFromChars>kind_from_chars, parse_close,
    <CheckMove>check_move, <PlayMove>play_move, start, <PlayOut>play_out,
)
cdef Facts FACTS = game_facts(&ENGINE, CODES, EVERY_MOVE, "(seat, card, close)", errors.unknown_pot_card, errors.invalid_close)


cdef class Game(CompiledGame):
    """One pot game, in C. See core/pot/engine.pyi for the documented interface."""

    cdef PotState state

    def __cinit__(self):
        self.at = &self.state
        self.rules = &ENGINE
        self.words = <void*>FACTS

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
    def seed(self):
        return self.state.seed if self.state.seeded else None

    @property
    def endgame(self):
        return bool(endgame(&self.state))

    @property
    def pot(self):
        return codes_of(CODES, self.state.pot, self.state.pot_len)

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

    # -- hidden information: callers decide who may see it -----------------------------

    cdef tuple _hand(self, int seat):
        return cards_of(CODES, self.state.hand[seat], N_TOXICITIES)

    def hand(self, seat):
        return self._hand(self._seat(seat))

    def draw_order(self):
        return codes_of(CODES, &self.state.pile[self.state.pile_top], self.state.pile_end - self.state.pile_top)

    # -- moves -------------------------------------------------------------------------

    cdef object _phase_error(self, int wanted):
        if self.state.phase == PHASE_OVER:
            return errors.pot_game_finished()
        return errors.pot_awaiting_deal() if wanted == PHASE_PLAY else errors.pot_not_awaiting_deal()

    cdef object _own_move_error(self, int error, object seat, object card, object second):
        if error == ERR_CLOSE_ENDGAME:
            return errors.cannot_close(card, "no pot may be closed once the draw pile is empty")
        if error == ERR_CLOSE_EXPLODES:
            after = self.state.pot_toxicity + parse_card(&ENGINE, card)
            return errors.cannot_close(card, f"it makes the pot explode (toxicity {after} > {rules.EXPLODE_LIMIT})")
        return None

    def check(self, seat, card, close=False):
        self._check(seat, card, close)

    def play(self, seat, card, close=False):
        cdef Outcome outcome
        self._play(seat, card, close, &outcome)
        return PotPlayed(
            outcome.seat,
            CODES[outcome.kind],
            outcome.close == 1,
            outcome.toxicity,
            None if outcome.ended < 0 else self._result(outcome.ended),
            None if outcome.started == NO_CARD else CODES[outcome.started],
            codes_of(CODES, outcome.drawn, outcome.n_drawn),
            None if outcome.final < 0 else self._result(outcome.final),
            outcome.game_over == 1,
        )

    def deal(self, hands, pot, draw_pile):
        cdef uint8_t deck[rules.DECK_SIZE]
        self._expect(PHASE_DEAL)
        parse_deal(self.state.n_players, hands, pot, draw_pile, deck)
        if game_deal(&self.state, deck) != OK:   # parse_deal checked all; this is a backstop
            raise errors.rule_error("invalid_deal", "the engine refused the deal")

    # -- results -----------------------------------------------------------------------

    cdef object _result(self, int r):
        cdef PotRecord* record = &self.state.record[r]
        return PotResult(
            record.seat,
            OUTCOMES[0 if record.outcome == POT_CLOSED else 1],
            codes_of(CODES, &self.state.ended_cards[record.first], record.n_cards),
            record.toxicity,
            record.points,
        )

    def results(self):
        cdef int r
        return tuple([self._result(r) for r in range(self.state.n_records)])

    def view(self, seat=None):
        seen, hand, moves = self._seen(seat)
        return PotView(
            self.status, self.turn, self.endgame, self.pot, self.state.pot_toxicity, self.draw_pile,
            self.hand_sizes, self.results(), self.totals, self.winners,
            seen, hand, moves,
        )

    def copy(self):
        cdef Game twin = Game.__new__(Game)
        memcpy(&twin.state, &self.state, sizeof(PotState))
        return twin

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
        hands.append(cards_of(CODES, counts, N_TOXICITIES))
    dealt = n * rules.HAND_SIZE
    return PotDeal(tuple(hands), CODES[deck[dealt]], codes_of(CODES, &deck[dealt + 1], rules.DECK_SIZE - dealt - 1))


def replay(players, moves, *, seed=None, deal=None):
    """Replay a recorded game in one C loop; see core/pot/engine.pyi."""
    cdef Game game = Game.__new__(Game)
    game.setup(players, seed, deal)  # not Game(...): matching keywords cost a tenth of a replay
    cdef int n = game.state.n_players
    cdef int64_t usable, applied
    cdef int error = OK
    cdef uint8_t* move_bytes = NULL
    cdef object stop = None             # an error found while reading the record
    if not isinstance(moves, (list, tuple)):
        raise errors.rule_error("invalid_move", "moves must be a list")
    try:
        stop = read_moves(FACTS, moves, n, &move_bytes, &usable)
        with nogil:
            applied = replay_moves(&game.state, move_bytes, usable, &error)
    finally:
        PyMem_Free(move_bytes)
    if error != OK:
        return replay_refusal(game, moves, applied, usable, error)
    return replayed(game, applied, stop)


def simulate(players, games, *, seed=0, bots=None, first=0, threads=1, playouts=None):
    """Play `games` complete games of bot moves in C; see core/pot/engine.pyi."""
    return simulate_games(FACTS, parse_players(players), NULL, games, seed, bots, first, threads, playouts)
