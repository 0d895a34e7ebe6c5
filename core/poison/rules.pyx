# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The rules of Poison as C functions over one `GameState` struct (declared in rules.pxd).

Every function here is `noexcept nogil` and touches no Python object: a broken rule shows
up as an error code, never as an exception. The order in which `check_move` tests things is
part of the contract (the first failing check names the error) and `core/poison/reference.py`
follows the same order.
"""

from libc.string cimport memcpy, memset

from core.bots cimport BotChoose, BotKey, BotLegalMoves, bot_move, bots_play_out
from core.turns cimport move_refusal

# Card kinds are colour * N_VALUES + value index for potions, and POISON_KIND for poison.
cdef uint8_t[5] POTION_VALUES = [1, 2, 4, 5, 7]
cdef uint8_t[5] POTION_COPIES = [3, 3, 2, 3, 3]
cdef uint8_t N_POISON_CARDS = 8

cdef uint8_t kind_colour(int kind) noexcept nogil:
    if kind == POISON_KIND:
        return POISON
    return <uint8_t>(kind // N_VALUES)


cdef uint8_t kind_value(int kind) noexcept nogil:
    if kind == POISON_KIND:
        return POISON_VALUE
    return POTION_VALUES[kind % N_VALUES]


cdef uint8_t kind_copies(int kind) noexcept nogil:
    if kind == POISON_KIND:
        return N_POISON_CARDS
    return POTION_COPIES[kind % N_VALUES]


cdef int kind_from_chars(int first, int second) noexcept nogil:
    cdef int colour
    if first == 71 and second == 52:        # "G4"
        return POISON_KIND
    if first == 82:                          # "R"
        colour = 0
    elif first == 66:                        # "B"
        colour = 1
    elif first == 80:                        # "P"
        colour = 2
    else:
        return -1
    if second == 49:                         # "1"
        return colour * N_VALUES
    if second == 50:                         # "2"
        return colour * N_VALUES + 1
    if second == 52:                         # "4"
        return colour * N_VALUES + 2
    if second == 53:                         # "5"
        return colour * N_VALUES + 3
    if second == 55:                         # "7"
        return colour * N_VALUES + 4
    return -1


# ---- dealing --------------------------------------------------------------------------

cdef int round_dealer(const GameState* game, int round) noexcept nogil:
    # Seat 0 deals the first round (round 0); the deal passes left (seat + 1) each round.
    return round % game.n_players


cdef int hands_dealt(int n_players) noexcept nogil:
    # Three players deal as if there were four and set the fourth hand aside.
    return 4 if n_players == 3 else n_players


cdef inline int deal_position(int n_players, int dealer, int hand) noexcept nogil:
    # Cards go out one at a time from the dealer's left; the set-aside hand comes last.
    if hand >= n_players:
        return hand
    return (hand - dealer - 1 + n_players) % n_players


cdef int dealt_hand_size(int n_players, int dealer, int hand) noexcept nogil:
    cdef int hands = hands_dealt(n_players)
    if hand < 0 or hand >= hands:
        return 0
    return DECK_SIZE // hands + (1 if deal_position(n_players, dealer, hand) < DECK_SIZE % hands else 0)


cdef void deal_from_seed(uint64_t seed, int round, int n_players, int dealer, uint8_t* deal) noexcept nogil:
    cdef uint8_t deck[DECK_SIZE]
    cdef int kind, copy, i, position, hand
    cdef int n = 0
    cdef int hands = hands_dealt(n_players)
    cdef uint64_t rng = stream_seed(seed, <uint64_t>(round + 1))
    for kind in range(N_KINDS):
        for copy in range(kind_copies(kind)):
            deck[n] = <uint8_t>kind
            n += 1
    shuffle(deck, DECK_SIZE, &rng)
    memset(deal, 0, DEAL_SIZE)
    # One card at a time from the dealer's left (a three-player deal's fourth hand last),
    # counted round the table rather than worked out with a division per card.
    position = 0
    hand = (dealer + 1) % n_players
    for i in range(DECK_SIZE):
        deal[hand * N_KINDS + deck[i]] += 1
        position += 1
        if position == hands:
            position = 0
            hand = (dealer + 1) % n_players
        elif position >= n_players:
            hand = position
        else:
            hand = hand + 1 if hand + 1 < n_players else 0


# ---- a game ---------------------------------------------------------------------------

cdef inline void clear_cauldrons(GameState* game) noexcept nogil:
    cdef int c
    for c in range(N_CAULDRONS):
        game.cauldron_len[c] = 0
        game.cauldron_total[c] = 0
        game.cauldron_colour[c] = c if game.cauldron_rule == CAULDRONS_FIXED else NO_COLOUR


cdef int game_init(GameState* game, int n_players, int n_rounds, int cauldron_rule) noexcept nogil:
    if n_players < MIN_PLAYERS or n_players > MAX_PLAYERS:
        return ERR_INVALID_PLAYERS
    if n_rounds < MIN_ROUNDS or n_rounds > MAX_ROUNDS:
        return ERR_INVALID_ROUNDS
    if cauldron_rule != CAULDRONS_DYNAMIC and cauldron_rule != CAULDRONS_FIXED:
        return ERR_INVALID_RULE
    memset(game, 0, sizeof(GameState))
    game.n_players = <uint8_t>n_players
    game.n_rounds = <uint8_t>n_rounds
    game.cauldron_rule = <uint8_t>cauldron_rule
    game.phase = PHASE_DEAL
    game.dealer = <uint8_t>round_dealer(game, 0)
    clear_cauldrons(game)
    return OK


cdef void game_seed(GameState* game, uint64_t seed) noexcept nogil:
    cdef uint8_t deal[DEAL_SIZE]
    game.seeded = 1
    game.seed = seed
    if game.phase == PHASE_DEAL:
        deal_from_seed(seed, game.round, game.n_players, game.dealer, deal)
        game_deal(game, deal)


cdef int game_deal(GameState* game, const uint8_t* deal) noexcept nogil:
    cdef int hand, kind, size
    cdef int hands = hands_dealt(game.n_players)
    cdef int copies
    if game.phase == PHASE_OVER:
        return ERR_GAME_FINISHED
    if game.phase != PHASE_DEAL:
        return ERR_NOT_AWAITING_DEAL
    # Validate all before changing anything: every hand its size, the whole deck once.
    for hand in range(MAX_HANDS):
        size = 0
        for kind in range(N_KINDS):
            size += deal[hand * N_KINDS + kind]
        if size != dealt_hand_size(game.n_players, game.dealer, hand):
            return ERR_INVALID_DEAL
    for kind in range(N_KINDS):
        copies = 0
        for hand in range(hands):
            copies += deal[hand * N_KINDS + kind]
        if copies != kind_copies(kind):
            return ERR_INVALID_DEAL
    memcpy(game.hand, deal, DEAL_SIZE)
    for hand in range(MAX_HANDS):
        game.hand_size[hand] = <uint8_t>dealt_hand_size(game.n_players, game.dealer, hand)
    memset(game.taken, 0, sizeof(game.taken))
    memset(game.played, 0, sizeof(game.played))
    clear_cauldrons(game)
    game.turn = (game.dealer + 1) % game.n_players
    game.phase = PHASE_PLAY
    return OK


cdef inline bint cauldron_accepts(const GameState* game, int kind, int cauldron) noexcept nogil:
    cdef int colour = kind_colour(kind)
    cdef int c
    if colour == POISON:
        return True
    if game.cauldron_rule == CAULDRONS_FIXED:
        return cauldron == colour
    # A potion follows its colour; only when no cauldron has it may it open a colourless one.
    for c in range(N_CAULDRONS):
        if game.cauldron_colour[c] == colour:
            return c == cauldron
    return game.cauldron_colour[cauldron] == NO_COLOUR


cdef MoveRefusals REFUSALS = MoveRefusals(
    ERR_SEAT_OUT_OF_RANGE, ERR_UNKNOWN_CARD, ERR_CAULDRON_OUT_OF_RANGE, ERR_GAME_FINISHED, ERR_AWAITING_DEAL,
    ERR_NOT_YOUR_TURN, ERR_CARD_NOT_IN_HAND,
)


cdef const MoveRefusals* move_refusals() noexcept nogil:
    return &REFUSALS


cdef int check_move(const GameState* game, int seat, int kind, int cauldron) noexcept nogil:
    return checked(game, seat, kind, cauldron)


cdef inline int checked(const GameState* game, int seat, int kind, int cauldron) noexcept nogil:
    # check_move's body, inline so that play_move, which runs it for every move, inlines it.
    cdef int refused = move_refusal(
        &REFUSALS, game.n_players, N_KINDS, 0 <= cauldron < N_CAULDRONS, game.phase == PHASE_OVER,
        game.phase == PHASE_DEAL, game.turn, &game.hand[0][0], seat, kind,
    )
    if refused != OK:
        return refused
    if not cauldron_accepts(game, kind, cauldron):
        return ERR_ILLEGAL_CAULDRON
    return OK


cdef void score_taken(int n_players, const uint8_t* taken, int16_t* scores, uint8_t* discarded) noexcept nogil:
    cdef int seat, colour, most, leader, count, points
    for seat in range(n_players):
        discarded[seat] = 0
    for colour in range(N_COLOURS):
        # Whoever took strictly more of a colour than everyone else discards it.
        most = 0
        leader = -1
        for seat in range(n_players):
            count = taken[seat * N_SUITS + colour]
            if count > most:
                most = count
                leader = seat
            elif count == most:
                leader = -1
        if leader >= 0:
            discarded[leader] |= <uint8_t>(1 << colour)
    for seat in range(n_players):
        points = POISON_POINTS * taken[seat * N_SUITS + POISON]
        for colour in range(N_COLOURS):
            if not (discarded[seat] >> colour) & 1:
                points += taken[seat * N_SUITS + colour]
        scores[seat] = <int16_t>points


cdef void end_round(GameState* game) noexcept nogil:
    cdef int seat
    cdef int r = game.round
    cdef uint8_t deal[DEAL_SIZE]
    memcpy(game.round_taken[r], game.taken, sizeof(game.taken))
    game.scored_dealer[r] = game.dealer
    score_taken(game.n_players, &game.taken[0][0], game.score[r], game.discarded[r])
    for seat in range(game.n_players):
        game.total[seat] += game.score[r][seat]
    game.rounds_scored += 1
    # Cards left in the cauldrons score for nobody; they leave the table with the round.
    memset(game.taken, 0, sizeof(game.taken))
    memset(game.hand, 0, sizeof(game.hand))
    memset(game.hand_size, 0, sizeof(game.hand_size))
    clear_cauldrons(game)
    if game.rounds_scored == game.n_rounds:
        game.phase = PHASE_OVER
        return
    game.round += 1
    game.dealer = <uint8_t>round_dealer(game, game.round)
    game.phase = PHASE_DEAL
    if game.seeded:
        deal_from_seed(game.seed, game.round, game.n_players, game.dealer, deal)
        game_deal(game, deal)


cdef int play_move(GameState* game, int seat, int kind, int cauldron, Outcome* outcome) noexcept nogil:
    cdef int error = checked(game, seat, kind, cauldron)
    if error != OK:
        return error
    apply_move(game, seat, kind, cauldron, outcome)
    return OK


cdef void apply_move(GameState* game, int seat, int kind, int cauldron, Outcome* outcome) noexcept nogil:
    # A move check_move allows (or legal_moves listed): play_out's moves skip the check,
    # which asked again what legal_moves had just worked out.
    cdef int i, n, value
    value = kind_value(kind)
    game.hand[seat][kind] -= 1
    game.hand_size[seat] -= 1
    game.played[kind] += 1                # face up for all to see: what a search may count as gone
    outcome.seat = <uint8_t>seat
    outcome.kind = <uint8_t>kind
    outcome.cauldron = <uint8_t>cauldron
    outcome.n_taken = 0
    if game.cauldron_total[cauldron] + value > OVERFLOW_LIMIT:
        # Overflow: the player takes what was there before; the card just played stays.
        n = game.cauldron_len[cauldron]
        for i in range(n):
            outcome.taken[i] = game.cauldron[cauldron][i]
            game.taken[seat][kind_colour(game.cauldron[cauldron][i])] += 1
        outcome.n_taken = <uint8_t>n
        game.cauldron[cauldron][0] = <uint8_t>kind
        game.cauldron_len[cauldron] = 1
        game.cauldron_total[cauldron] = <uint8_t>value
        if game.cauldron_rule == CAULDRONS_DYNAMIC:
            game.cauldron_colour[cauldron] = NO_COLOUR if kind == POISON_KIND else kind_colour(kind)
    else:
        game.cauldron[cauldron][game.cauldron_len[cauldron]] = <uint8_t>kind
        game.cauldron_len[cauldron] += 1
        game.cauldron_total[cauldron] += value
        if kind != POISON_KIND:
            game.cauldron_colour[cauldron] = kind_colour(kind)
    outcome.total = game.cauldron_total[cauldron]
    game.turn = (seat + 1) % game.n_players
    # Hands are dealt from the dealer's left, so the round is over exactly when the next
    # seat has nothing left to play.
    outcome.round_over = game.hand_size[game.turn] == 0
    outcome.game_over = False
    if outcome.round_over:
        end_round(game)
        outcome.game_over = game.phase == PHASE_OVER


cdef int legal_moves(const GameState* game, uint8_t* kinds, uint8_t* cauldrons) noexcept nogil:
    # The moves cauldron_accepts allows, worked out once per colour rather than asked of
    # every card and cauldron (this is the inner loop of `simulate`): a potion goes to the
    # cauldron its colour stands in, or, with none, to any colourless one; poison anywhere.
    # Every kind's moves are written whether it is held or not, and counted only if it is:
    # which cards a random hand holds is a coin toss the processor cannot predict, and a
    # mispredicted branch per kind cost more than the stores, though the stores are more
    # instructions (four-player random `simulate`; figures: docs/performance.md).
    cdef int kind, c, colour, d, value, held
    cdef int n = 0
    cdef int seat = game.turn
    cdef int n_to
    cdef uint8_t to[N_CAULDRONS]
    cdef const uint8_t* hand = game.hand[seat]
    if game.phase != PHASE_PLAY:
        return 0
    for colour in range(N_COLOURS):
        n_to = 0
        for c in range(N_CAULDRONS):
            if game.cauldron_colour[c] == colour:
                to[0] = <uint8_t>c
                n_to = 1
                break
        if n_to == 0:
            for c in range(N_CAULDRONS):
                to[n_to] = <uint8_t>c
                n_to += game.cauldron_colour[c] == NO_COLOUR
        for value in range(N_VALUES):
            kind = colour * N_VALUES + value
            held = hand[kind] != 0
            for d in range(n_to):
                kinds[n + d] = <uint8_t>kind
                cauldrons[n + d] = to[d]
            n += held * n_to
    held = hand[POISON_KIND] != 0
    for c in range(N_CAULDRONS):
        kinds[n + c] = POISON_KIND
        cauldrons[n + c] = <uint8_t>c
    n += held * N_CAULDRONS
    return n


# ---- batch loops ----------------------------------------------------------------------

cdef int64_t replay_moves(GameState* game, const uint8_t* deals, int n_deals,
                          const uint8_t* moves, int64_t n_moves, int* error) noexcept nogil:
    """Play `moves` (seat, kind, cauldron triples), dealing rounds from `deals` as they
    start. Returns how many moves were applied; `error` says why it stopped early (OK if
    it did not)."""
    cdef Outcome outcome
    cdef int next_deal = 0
    cdef int64_t i
    error[0] = OK
    for i in range(n_moves + 1):
        if game.phase == PHASE_DEAL and next_deal < n_deals:
            error[0] = game_deal(game, deals + next_deal * DEAL_SIZE)
            next_deal += 1
            if error[0] != OK:
                return i
        if i == n_moves:
            break
        error[0] = play_move(game, moves[3 * i], moves[3 * i + 1], moves[3 * i + 2], &outcome)
        if error[0] != OK:
            return i
    return n_moves


cdef inline bint leads(const GameState* game, int seat, int colour) noexcept nogil:
    """Has `seat` taken strictly more of `colour` this round than every other seat?"""
    cdef int other
    if game.taken[seat][colour] == 0:
        return False
    for other in range(game.n_players):
        if other != seat and game.taken[other][colour] >= game.taken[seat][colour]:
            return False
    return True


cdef int greedy_key(const GameState* game, int kind, int cauldron) noexcept nogil:
    """How much the greedy bot dislikes a legal move; it plays the least disliked, the
    first in canonical order on a tie.

    A move that does not overflow is always preferred: among those, the highest card (get
    rid of it while it is safe), then the highest total left (a trap for the next seat).
    Forced to overflow, it takes the pile that costs least: poison 2, a potion 1, nothing
    for a colour it already leads in (it would discard that colour as things stand); then
    the fewest cards; then it plays its lowest card.
    """
    cdef int seat = game.turn
    cdef int value = kind_value(kind)
    cdef int total = game.cauldron_total[cauldron] + value
    cdef int i, card, colour
    cdef int penalty = 0
    if total <= OVERFLOW_LIMIT:
        return (7 - value) * 16 + (OVERFLOW_LIMIT - total)
    for i in range(game.cauldron_len[cauldron]):
        card = game.cauldron[cauldron][i]
        colour = kind_colour(card)
        if colour == POISON:
            penalty += POISON_POINTS
        elif not leads(game, seat, colour):
            penalty += 1
    return 100000 + penalty * 1000 + game.cauldron_len[cauldron] * 10 + value


cdef int choose_move(const GameState* game, int policy, uint64_t* rng,
                     uint8_t* kind, uint8_t* cauldron) noexcept nogil:
    # The greedy bot plays the move it dislikes least (greedy_key).
    if bot_move(game, <BotLegalMoves>legal_moves, <BotKey>greedy_key, True, policy == POLICY_GREEDY, rng, kind, cauldron):
        return OK
    return ERR_GAME_FINISHED if game.phase == PHASE_OVER else ERR_AWAITING_DEAL


cdef void apply_unchecked(void* game, int seat, int kind, int cauldron) noexcept nogil:
    cdef Outcome outcome
    apply_move(<GameState*>game, seat, kind, cauldron, &outcome)   # a legal move: no need to check


cdef int64_t play_out(GameState* game, const uint8_t* policies, uint64_t* rng) noexcept nogil:
    """Play until the game ends or waits for a deal; returns the number of moves made."""
    return bots_play_out(game, &game.phase, PHASE_PLAY, &game.turn, policies, rng,
                         <BotChoose>choose_move, apply_unchecked, OK)
