# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The rules of the pot game in C: functions over one `PotState` struct (rules.pxd), built as
Poison's are (core/poison/rules.pyx), so the same holds: no Python object, no exception (an
error code says what a call refused), and `check_move`'s order of checks is the contract
that core/pot/reference.py keeps too.
"""

from libc.string cimport memcpy, memset

from core.bots cimport BotChoose, BotKey, BotLegalMoves, bot_move, bots_play_out
from core.turns cimport move_refusal
from core.splitmix cimport random_below, shuffle, stream_seed


cdef int kind_from_chars(int first, int second) noexcept nogil:
    # "T0" .. "T6": kind k is toxicity k.
    if first == 84 and 48 <= second < 48 + N_TOXICITIES:
        return second - 48
    return -1


# ---- dealing --------------------------------------------------------------------------

cdef int pile_size(int n_players) noexcept nogil:
    return DECK_SIZE - n_players * HAND_SIZE - 1


cdef void shuffled_deck(uint64_t seed, uint8_t* deck) noexcept nogil:
    """The deck in canonical order (kind by kind), shuffled exactly as Poison shuffles
    its first round: Fisher–Yates from the seed's stream 1."""
    cdef int kind, copy
    cdef int n = 0
    cdef uint64_t rng = stream_seed(seed, 1)
    for kind in range(N_TOXICITIES):
        for copy in range(COPIES):
            deck[n] = <uint8_t>kind
            n += 1
    shuffle(deck, DECK_SIZE, &rng)


cdef int check_deck(const uint8_t* deck) noexcept nogil:
    cdef uint8_t count[N_TOXICITIES]
    cdef int i, kind
    memset(count, 0, sizeof(count))
    for i in range(DECK_SIZE):
        if deck[i] >= N_TOXICITIES:
            return ERR_INVALID_DEAL
        count[deck[i]] += 1
    for kind in range(N_TOXICITIES):
        if count[kind] != COPIES:
            return ERR_INVALID_DEAL
    return OK


# ---- a game ---------------------------------------------------------------------------

cdef int game_init(PotState* game, int n_players) noexcept nogil:
    if n_players < MIN_PLAYERS or n_players > MAX_PLAYERS:
        return ERR_INVALID_PLAYERS
    memset(game, 0, sizeof(PotState))
    game.n_players = <uint8_t>n_players
    game.phase = PHASE_DEAL
    return OK


cdef int game_deal(PotState* game, const uint8_t* deck) noexcept nogil:
    """Deal from `deck`, laid out as rules.pxd says: the hands seat by seat, four cards
    each, then the pot's first card, then the pile from the top."""
    cdef int seat, i
    cdef int dealt = game.n_players * HAND_SIZE
    if game.phase == PHASE_OVER:
        return ERR_GAME_FINISHED
    if game.phase != PHASE_DEAL:
        return ERR_NOT_AWAITING_DEAL
    if check_deck(deck) != OK:
        return ERR_INVALID_DEAL
    memset(game.hand, 0, sizeof(game.hand))
    for seat in range(game.n_players):
        for i in range(HAND_SIZE):
            game.hand[seat][deck[seat * HAND_SIZE + i]] += 1
        game.hand_size[seat] = HAND_SIZE
    game.pot[0] = deck[dealt]
    game.pot_len = 1
    game.pot_toxicity = deck[dealt]
    memcpy(game.pile, deck, DECK_SIZE)
    game.pile_top = <uint8_t>(dealt + 1)
    game.pile_end = DECK_SIZE
    game.turn = 0                                # seat 0 plays first
    game.phase = PHASE_PLAY
    return OK


cdef void deal_from_seed(uint64_t seed, int n_players, uint8_t* deck) noexcept nogil:
    """The seed's deal, laid out as game_deal takes it."""
    cdef uint8_t shuffled[DECK_SIZE]
    cdef int i
    cdef int dealt = n_players * HAND_SIZE
    shuffled_deck(seed, shuffled)
    # Cards go out one at a time from seat 0: card i of the deck goes to seat i % n.
    for i in range(dealt):
        deck[(i % n_players) * HAND_SIZE + i // n_players] = shuffled[i]
    for i in range(dealt, DECK_SIZE):
        deck[i] = shuffled[i]


cdef void game_seed(PotState* game, uint64_t seed) noexcept nogil:
    cdef uint8_t deck[DECK_SIZE]
    game.seeded = 1
    game.seed = seed
    deal_from_seed(seed, game.n_players, deck)
    game_deal(game, deck)


cdef inline int pile_left(const PotState* game) noexcept nogil:
    return game.pile_end - game.pile_top


cdef bint endgame(const PotState* game) noexcept nogil:
    return game.phase != PHASE_DEAL and pile_left(game) == 0


cdef int closing_points(int n_cards, int toxicity) noexcept nogil:
    if toxicity <= n_cards:
        return CLOSING_POINT + n_cards
    return CLOSING_POINT - toxicity


cdef MoveRefusals REFUSALS = MoveRefusals(
    ERR_SEAT_OUT_OF_RANGE, ERR_UNKNOWN_CARD, ERR_INVALID_MOVE, ERR_GAME_FINISHED, ERR_AWAITING_DEAL, ERR_NOT_YOUR_TURN,
    ERR_CARD_NOT_IN_HAND,
)


cdef const MoveRefusals* move_refusals() noexcept nogil:
    return &REFUSALS


cdef int check_move(const PotState* game, int seat, int kind, int close) noexcept nogil:
    return checked(game, seat, kind, close)


cdef inline int checked(const PotState* game, int seat, int kind, int close) noexcept nogil:
    # check_move's body, inline so that play_move, which runs it for every move, inlines it.
    # Then the pot game's own: a closing needs a draw pile, and a pot the card does not explode.
    cdef int refused = move_refusal(&REFUSALS, game.n_players, N_TOXICITIES, close == 0 or close == 1,
                                    game.phase == PHASE_OVER, game.phase == PHASE_DEAL, game.turn,
                                    &game.hand[0][0], seat, kind)
    if refused != OK:
        return refused
    if close:
        if pile_left(game) == 0:
            return ERR_CLOSE_ENDGAME
        if game.pot_toxicity + kind > EXPLODE_LIMIT:
            return ERR_CLOSE_EXPLODES
    return OK


cdef int end_pot(PotState* game, int seat, int outcome) noexcept nogil:
    """Write the pot onto the score sheet, score it and empty it; returns its record."""
    cdef int r = game.n_records
    cdef PotRecord* record = &game.record[r]
    record.seat = <uint8_t>seat
    record.outcome = <uint8_t>outcome
    record.first = game.n_ended_cards
    record.n_cards = game.pot_len
    record.toxicity = game.pot_toxicity
    record.points = 0
    if outcome == POT_CLOSED:
        record.points = <int8_t>closing_points(game.pot_len, game.pot_toxicity)
        game.total[seat] += record.points
    memcpy(&game.ended_cards[game.n_ended_cards], game.pot, game.pot_len)
    game.n_ended_cards += game.pot_len
    game.n_records += 1
    game.pot_len = 0
    game.pot_toxicity = 0
    return r


cdef int play_move(PotState* game, int seat, int kind, int close, Outcome* outcome) noexcept nogil:
    cdef int error = checked(game, seat, kind, close)
    cdef bint endgame_turn
    cdef int next_seat, s
    cdef bint cards_left = False
    if error != OK:
        return error
    endgame_turn = pile_left(game) == 0
    game.hand[seat][kind] -= 1
    game.hand_size[seat] -= 1
    game.pot[game.pot_len] = <uint8_t>kind
    game.pot_len += 1
    game.pot_toxicity += kind
    outcome.seat = <uint8_t>seat
    outcome.kind = <uint8_t>kind
    outcome.close = <uint8_t>close
    outcome.toxicity = game.pot_toxicity
    outcome.ended = -1
    outcome.started = NO_CARD
    outcome.n_drawn = 0
    outcome.final = -1
    outcome.game_over = False
    if game.pot_toxicity > EXPLODE_LIMIT:
        outcome.ended = <int8_t>end_pot(game, seat, POT_EXPLODED)
    elif close:
        outcome.ended = <int8_t>end_pot(game, seat, POT_CLOSED)
    if outcome.ended >= 0 and pile_left(game) > 0:
        # The pile's top card starts the next pot; with the pile empty it starts empty.
        game.pot[0] = game.pile[game.pile_top]
        game.pot_len = 1
        game.pot_toxicity = game.pot[0]
        outcome.started = <int8_t>game.pot[0]
        game.pile_top += 1
    if not endgame_turn:
        while game.hand_size[seat] < HAND_SIZE and pile_left(game) > 0:
            kind = game.pile[game.pile_top]
            game.pile_top += 1
            game.hand[seat][kind] += 1
            game.hand_size[seat] += 1
            outcome.drawn[outcome.n_drawn] = <uint8_t>kind
            outcome.n_drawn += 1
    for s in range(game.n_players):
        if game.hand_size[s] > 0:
            cards_left = True
    if not cards_left:
        # The last card of the last hand: the pot, if it holds any card, is closed for it.
        if game.pot_len > 0:
            outcome.final = <int8_t>end_pot(game, seat, POT_CLOSED)
        game.phase = PHASE_OVER
        outcome.game_over = True
        return OK
    next_seat = (seat + 1) % game.n_players
    while game.hand_size[next_seat] == 0:        # empty hands are skipped
        next_seat = (next_seat + 1) % game.n_players
    game.turn = <uint8_t>next_seat
    return OK


cdef int legal_moves(const PotState* game, uint8_t* kinds, uint8_t* closes) noexcept nogil:
    cdef int kind
    cdef int n = 0
    cdef int seat = game.turn
    cdef bint may_close = pile_left(game) > 0
    if game.phase != PHASE_PLAY:
        return 0
    for kind in range(N_TOXICITIES):
        if game.hand[seat][kind] == 0:
            continue
        kinds[n] = <uint8_t>kind
        closes[n] = 0
        n += 1
        if may_close and game.pot_toxicity + kind <= EXPLODE_LIMIT:
            kinds[n] = <uint8_t>kind
            closes[n] = 1
            n += 1
    return n


# ---- batch loops and bots -------------------------------------------------------------

cdef int64_t replay_moves(PotState* game, const uint8_t* moves, int64_t n_moves, int* error) noexcept nogil:
    """Play `moves` (seat, kind, close triples). Returns how many were applied; `error`
    says why it stopped early (OK if it did not)."""
    cdef Outcome outcome
    cdef int64_t i
    error[0] = OK
    for i in range(n_moves):
        error[0] = play_move(game, moves[3 * i], moves[3 * i + 1], moves[3 * i + 2], &outcome)
        if error[0] != OK:
            return i
    return n_moves


cdef int greedy_key(const PotState* game, int kind, int close) noexcept nogil:
    """How much the greedy bot likes a legal move; it plays the best, the first in
    canonical order on a tie (the rule in words is in core/pot/engine.pyi).

    A closing that scores is best, the more points the better. Otherwise it keeps the pot
    open and plays its highest card that does not explode it (a toxic pot is a poor gift
    to the next seat); when every card explodes it, its lowest. A closing that scores
    nothing or less comes last: the same card kept open is always legal."""
    cdef int after = game.pot_toxicity + kind
    cdef int points
    if close:
        points = closing_points(game.pot_len + 1, after)
        return 1000 + points if points > 0 else -1000 + points
    if after > EXPLODE_LIMIT:
        return -kind
    return 100 + kind


cdef int choose_move(const PotState* game, int policy, uint64_t* rng,
                     uint8_t* kind, uint8_t* close) noexcept nogil:
    if not bot_move(game, <BotLegalMoves>legal_moves, <BotKey>greedy_key, False, policy == POLICY_GREEDY, rng,
                    kind, close):     # the greedy bot plays the move it likes best (greedy_key)
        return ERR_GAME_FINISHED if game.phase == PHASE_OVER else ERR_AWAITING_DEAL
    return OK


cdef void play_checked(void* game, int seat, int kind, int close) noexcept nogil:
    cdef Outcome outcome
    play_move(<PotState*>game, seat, kind, close, &outcome)


cdef int64_t play_out(PotState* game, const uint8_t* policies, uint64_t* rng) noexcept nogil:
    """Play until the game ends; returns the number of moves made."""
    return bots_play_out(game, &game.phase, PHASE_PLAY, &game.turn, policies, rng, <BotChoose>choose_move,
                         play_checked, OK)
