"""Whole rounds played from explicit deals, every expected result worked out by hand.

rules.md, "End of a round and scoring" (the round ends when every hand is empty; cauldron
leftovers score for nobody; the lowest total wins, equal lowest totals share it) and "A turn"
(no colour in two cauldrons, dynamic rule; there is always a legal move), pinned on deals and
moves written out below instead of on seeded games checked by formulas.

Three players, two rounds. Every deal is the whole deck: three hands and the set-aside hand.
Each hand is listed in the order its seat plays it, each card with the cauldron it goes into;
seats play in turn (round 1: seat 0 deals, so 1, 2, 0, 1, ...; round 2: seat 1 deals, so
2, 0, 1, 2, ...). The traces in the comments follow each cauldron card by card: "16 -> s1
takes R7 R5 | G4" means the total would be 16, so seat 1 takes R7 and R5 and G4 stays alone.
"""

from core.errors import RuleError
from core.results import Cauldron, Move, Played, RoundResult, Taken, View


def plays(cards, cauldron):
    """Each card of the space-separated `cards`, played into `cauldron`."""
    return [(card, cauldron) for card in cards.split()]


# ---- round 1: seat 0 deals; seats 1 and 2 hold 13 cards, seat 0 12, 12 set aside ------------
#
# Each seat keeps to one cauldron: seat 1 red and poison into cauldron 0, seat 2 blue and
# poison into 1, seat 0 purple and poison into 2.
#
# cauldron 0 (seat 1): R7 7, R5 12, G4 16 -> s1 takes R7 R5 | G4 4, R7 11, R2 13,
#   R1 14 -> s1 takes G4 R7 R2 | R1 1, G4 5, R7 12, G4 16 -> s1 takes R1 G4 R7 | G4 4,
#   R5 9, R4 13, R2 15 -> s1 takes G4 R5 R4 | R2 2, R1 3.            Left: R2 R1.
#   Seat 1 took 2 + 2 + 2 + 2 = 8 red and 0 + 1 + 1 + 1 = 3 poison.
# cauldron 1 (seat 2): B5 5, B5 10, B4 14 -> s2 takes B5 B5 | B4 4, B7 11,
#   G4 15 -> s2 takes B4 B7 | G4 4, B2 6, B1 7, B2 9, B7 16 -> s2 takes G4 B2 B1 B2 | B7 7,
#   G4 11, B1 12, G4 16 -> s2 takes B7 G4 B1 | G4 4, B7 11.            Left: G4 B7.
#   Seat 2 took 2 + 2 + 3 + 2 = 9 blue and 1 + 1 = 2 poison.
# cauldron 2 (seat 0): P7 7, P7 14 -> s0 takes P7 | P7 7, P5 12, P1 13,
#   P2 15 -> s0 takes P7 P5 P1 | P2 2, G4 6, P4 10, P4 14 -> s0 takes P2 G4 P4 | P4 4, P5 9,
#   G4 13, P1 14 -> s0 takes P4 P5 G4 | P1 1, P2 3.                      Left: P1 P2.
#   Seat 0 took 1 + 3 + 2 + 2 = 8 purple and 1 + 1 = 2 poison.
#
# Scores: each seat alone took its colour, so it discards it and pays 2 per poison:
# seat 0: 2 x 2 = 4, seat 1: 2 x 3 = 6, seat 2: 2 x 2 = 4.
ROUND_1 = {
    1: plays("R7 R5 G4 R7 R2 R1 G4 R7 G4 R5 R4 R2 R1", 0),
    2: plays("B5 B5 B4 B7 G4 B2 B1 B2 B7 G4 B1 G4 B7", 1),
    0: plays("P7 P7 P5 P1 P2 G4 P4 P4 P5 G4 P1 P2", 2),
}
#: red 14 = 10 played + 4 here, blue 10 + 4, purple 10 + 4, poison 8 played + 0 here.
ROUND_1_ASIDE = ["R1", "R2", "R4", "R5", "B1", "B2", "B4", "B5", "P1", "P2", "P5", "P7"]
ROUND_1_RESULT = RoundResult(
    round=1,
    dealer=0,
    taken=(Taken(0, 0, 8, 2), Taken(8, 0, 0, 3), Taken(0, 9, 0, 2)),
    discarded=(("purple",), ("red",), ("blue",)),
    scores=(4, 6, 4),
)

# ---- round 2: seat 1 deals; seats 2 and 0 hold 13 cards, seat 1 12, 12 set aside ------------
#
# Seat 2 plays red and poison into cauldron 0, seat 0 blue and poison into 1, seat 1 purple
# into 2 and its two poisons elsewhere. Game A and game B differ in one move only: where
# seat 1 drops its second poison (its 7th card, cycle 7).
#
# Game A: seat 1's second poison goes into cauldron 0.
# cauldron 0: s2 R7 7, s2 R5 12, s1 G4 16 -> s1 takes R7 R5 | G4 4, s2 R7 11, s2 R2 13,
#   s2 R1 14 -> s2 takes G4 R7 R2 | R1 1, s2 R7 8, s2 R5 13, s1 G4 17 -> s1 takes R1 R7 R5 |
#   G4 4, s2 G4 8, s2 R4 12, s2 R2 14 -> s2 takes G4 G4 R4 | R2 2, s2 R5 7, s2 G4 11,
#   s2 R1 12.                                                          Left: R2 R5 G4 R1.
#   Seat 1 took 2 + 3 = 5 red; seat 2 took 2 + 1 = 3 red and 1 + 2 = 3 poison.
# cauldron 1 (seat 0): B1 1, B1 2, B1 3, B2 5, B2 7, B2 9, B4 13,
#   B4 17 -> s0 takes B1 B1 B1 B2 B2 B2 B4 | B4 4, G4 8, B5 13, G4 17 -> s0 takes B4 G4 B5 |
#   G4 4, B7 11, B5 16 -> s0 takes G4 B7 | B5 5 (the round's last card). Left: B5.
#   Seat 0 took 7 + 2 + 1 = 10 blue and 1 + 1 = 2 poison.
# cauldron 2 (seat 1's purples): P7 7, P7 14 -> s1 takes P7 | P7 7, P7 14 -> s1 takes P7 |
#   P7 7, P5 12, P1 13, P4 17 -> s1 takes P7 P5 P1 | P4 4, P4 8, P5 13,
#   P2 15 -> s1 takes P4 P4 P5 | P2 2, P1 3.                             Left: P2 P1.
#   Seat 1 took 1 + 1 + 3 + 3 = 8 purple.
#
# Scores: red 5 (s1) against 3 (s2): seat 1 discards red; seat 0 alone took blue, seat 1
# alone purple. Seat 0: 2 x 2 = 4; seat 1: 0; seat 2: 3 red + 2 x 3 = 9.
# Totals: seat 0: 4 + 4 = 8, seat 1: 6 + 0 = 6, seat 2: 4 + 9 = 13. Seat 1 alone wins.
ROUND_2_A = {
    2: plays("R7 R5 R7 R2 R1 R7 R5 G4 R4 R2 R5 G4 R1", 0),
    0: plays("B1 B1 B1 B2 B2 B2 B4 B4 G4 B5 G4 B7 B5", 1),
    1: [("P7", 2), ("G4", 0), *plays("P7 P7 P5 P1", 2), ("G4", 0), *plays("P4 P4 P5 P2 P1", 2)],
}
ROUND_2_A_RESULT = RoundResult(
    round=2,
    dealer=1,
    taken=(Taken(0, 10, 0, 2), Taken(5, 0, 8, 0), Taken(3, 0, 0, 3)),
    discarded=(("blue",), ("red", "purple"), ()),
    scores=(4, 0, 9),
)

# Game B: seat 1's second poison goes into cauldron 1 instead.
# cauldron 0: s2 R7 7, s2 R5 12, s1 G4 16 -> s1 takes R7 R5 | G4 4, s2 R7 11, s2 R2 13,
#   s2 R1 14 -> s2 takes G4 R7 R2 | R1 1, s2 R7 8, s2 R5 13, s2 G4 17 -> s2 takes R1 R7 R5 |
#   G4 4, s2 R4 8, s2 R2 10, s2 R5 15 -> s2 takes G4 R4 R2 | R5 5, s2 G4 9,
#   s2 R1 10.                                                          Left: R5 G4 R1.
#   Seat 1 took 2 red; seat 2 took 2 + 3 + 2 = 7 red and 1 + 1 = 2 poison.
# cauldron 1: s0 B1 1, B1 2, B1 3, B2 5, B2 7, B2 9, B4 13,
#   s1 G4 17 -> s1 takes B1 B1 B1 B2 B2 B2 B4 | G4 4, s0 B4 8, s0 G4 12,
#   s0 B5 17 -> s0 takes G4 B4 G4 | B5 5, s0 G4 9, s0 B7 16 -> s0 takes B5 G4 | B7 7,
#   s0 B5 12 (the round's last card).                                  Left: B7 B5.
#   Seat 1 took 7 blue; seat 0 took 1 + 1 = 2 blue and 2 + 1 = 3 poison.
# cauldron 2: as in game A; seat 1 took 8 purple.
#
# Scores: red 7 (s2) against 2 (s1): seat 2 discards red; blue 7 (s1) against 2 (s0): seat 1
# discards blue; seat 1 alone took purple. Seat 0: 2 blue + 2 x 3 = 8; seat 1: 2 red = 2;
# seat 2: 2 x 2 = 4. Totals: seat 0: 4 + 8 = 12, seat 1: 6 + 2 = 8, seat 2: 4 + 4 = 8.
# Seats 1 and 2 share the win.
ROUND_2_B = {
    **ROUND_2_A,
    1: [("P7", 2), ("G4", 0), *plays("P7 P7 P5 P1", 2), ("G4", 1), *plays("P4 P4 P5 P2 P1", 2)],
}
ROUND_2_B_RESULT = RoundResult(
    round=2,
    dealer=1,
    taken=(Taken(0, 2, 0, 3), Taken(2, 7, 8, 0), Taken(7, 0, 0, 2)),
    discarded=((), ("blue", "purple"), ("red",)),
    scores=(8, 2, 4),
)
#: red 14 = 11 played + 3 here, blue 11 + 3, purple 10 + 4, poison 6 played + 2 here.
ROUND_2_ASIDE = ["R1", "R2", "R4", "B5", "B7", "B7", "P1", "P2", "P2", "P5", "G4", "G4"]

EMPTY = (Cauldron(None, 0, ()),) * 3


def deal(script, aside):
    return (tuple(tuple(card for card, _ in script[seat]) for seat in range(3)), aside)


def in_turn_order(script, first):
    """The moves of a round: seats take turns from `first`, each playing its next card."""
    seats = [(first + i) % 3 for i in range(3)]
    longest = max(len(cards) for cards in script.values())
    return [(seat, *script[seat][i]) for i in range(longest) for seat in seats if i < len(script[seat])]


MOVES_1 = in_turn_order(ROUND_1, first=1)
MOVES_2_A = in_turn_order(ROUND_2_A, first=2)
MOVES_2_B = in_turn_order(ROUND_2_B, first=2)


def play(game, moves):
    """Play `moves`; each must be the turn's seat playing one of its legal moves."""
    played = None
    for seat, card, cauldron in moves:
        assert game.turn == seat
        assert Move(card, cauldron) in game.legal_moves()
        played = game.play(seat, card, cauldron)
    return played


def game_a(rules):
    return rules.Game(3, rounds=2, deals=[deal(ROUND_1, ROUND_1_ASIDE), deal(ROUND_2_A, ROUND_2_ASIDE)])


def game_b(rules):
    return rules.Game(3, rounds=2, deals=[deal(ROUND_1, ROUND_1_ASIDE), deal(ROUND_2_B, ROUND_2_ASIDE)])


def test_the_scripts_are_whole_rounds():
    # 13 + 13 + 12 cards played, 12 set aside: 50. Round 1 seats play 1, 2, 0; round 2 2, 0, 1.
    assert (len(MOVES_1), len(MOVES_2_A), len(MOVES_2_B)) == (38, 38, 38)
    assert MOVES_1[:4] == [(1, "R7", 0), (2, "B5", 1), (0, "P7", 2), (1, "R5", 0)]
    assert MOVES_1[-3:] == [(0, "P2", 2), (1, "R1", 0), (2, "B7", 1)]
    assert MOVES_2_A[-3:] == [(1, "P1", 2), (2, "R1", 0), (0, "B5", 1)]
    # Cycle 7, seat 1: the one move in which games A and B differ.
    assert MOVES_2_A[20] == (1, "G4", 0)
    assert MOVES_2_B[20] == (1, "G4", 1)
    assert [m for i, m in enumerate(MOVES_2_A) if i != 20] == [m for i, m in enumerate(MOVES_2_B) if i != 20]


# ---- (a) after the last round the lowest total wins; equal lowest totals share it -----------


def test_after_the_last_round_the_lowest_total_wins(rules):
    game = game_a(rules)
    play(game, MOVES_1)
    # Seats 0 and 2 lead 4 to 6 after round 1, but nobody has won yet: a round is left.
    assert (game.status, game.round, game.totals, game.winners) == ("active", 2, (4, 6, 4), ())
    assert game.results() == (ROUND_1_RESULT,)
    last = play(game, MOVES_2_A)
    assert (last.round_over, last.game_over) == (True, True)
    assert game.results() == (ROUND_1_RESULT, ROUND_2_A_RESULT)
    assert game.totals == (8, 6, 13)  # 4 + 4, 6 + 0, 4 + 9
    assert game.winners == (1,)
    assert game.view() == View(
        status="finished",
        round=2,
        rounds=2,
        dealer=1,
        turn=None,
        cauldrons=EMPTY,
        hand_sizes=(0, 0, 0),
        taken=(0, 0, 0),
        scores=((4, 6, 4), (4, 0, 9)),
        totals=(8, 6, 13),
        winners=(1,),
        seat=None,
        hand=None,
        legal_moves=None,
    )
    assert game.view(2).winners == (1,)


def test_equal_lowest_totals_share_the_win(rules):
    game = game_b(rules)
    play(game, MOVES_1)
    assert (game.totals, game.winners) == ((4, 6, 4), ())
    play(game, MOVES_2_B)
    assert game.results() == (ROUND_1_RESULT, ROUND_2_B_RESULT)
    assert game.totals == (12, 8, 8)  # 4 + 8, 6 + 2, 4 + 4
    assert game.winners == (1, 2)
    view = game.view()
    assert (view.status, view.scores, view.totals, view.winners) == (
        "finished",
        ((4, 6, 4), (8, 2, 4)),
        (12, 8, 8),
        (1, 2),
    )


# ---- (b) the round ends when every hand is empty, and not before ----------------------------


def test_the_round_ends_when_every_hand_is_empty_and_not_before(rules):
    game = rules.Game(3, rounds=1, deals=[deal(ROUND_1, ROUND_1_ASIDE)])
    # Twelve full turns of seats 1, 2, 0: seat 0 (the dealer, 12 cards) has played its last
    # card, seats 1 and 2 hold one each. The round goes on, and seat 1 is to move.
    play(game, MOVES_1[:36])
    assert (game.status, game.turn, game.hand_sizes) == ("active", 1, (0, 1, 1))
    assert game.pile_sizes == (10, 11, 11)  # 1 + 3 + 3 + 3; 2 + 3 + 3 + 3; 2 + 2 + 4 + 3
    assert game.results() == ()
    played = game.play(1, "R1", 0)
    assert played == Played(1, "R1", 0, 3, (), False, False)
    assert (game.status, game.turn, game.hand_sizes) == ("active", 2, (0, 0, 1))
    assert game.legal_moves() == (Move("B7", 1),)
    assert game.results() == ()
    # The last card: every hand is now empty, so the round (and this one-round game) ends.
    played = game.play(2, "B7", 1)
    assert played == Played(2, "B7", 1, 11, (), True, True)
    assert (game.status, game.turn, game.hand_sizes, game.legal_moves()) == ("finished", None, (0, 0, 0), ())
    assert game.results() == (ROUND_1_RESULT,)


def test_the_next_round_is_dealt_only_once_the_last_hand_is_empty(rules):
    game = game_a(rules)
    play(game, MOVES_1[:37])
    assert (game.status, game.round, game.dealer, game.turn, game.hand_sizes) == ("active", 1, 0, 2, (0, 0, 1))
    played = game.play(2, "B7", 1)
    assert (played.round_over, played.game_over) == (True, False)
    # Round 2: seat 1 deals, seat 2 plays first; seats 2 and 0 get 13 cards, the dealer 12.
    assert (game.status, game.round, game.dealer, game.turn, game.hand_sizes) == ("active", 2, 1, 2, (13, 12, 13))
    # Round 2's last card is seat 0's (2, 0, 1 twelve times, then 2 and 0).
    play(game, MOVES_2_A[:36])
    assert (game.status, game.turn, game.hand_sizes) == ("active", 2, (1, 0, 1))
    play(game, MOVES_2_A[36:37])
    assert (game.status, game.turn, game.hand_sizes) == ("active", 0, (1, 0, 0))
    assert len(game.results()) == 1
    played = game.play(0, "B5", 1)
    assert (played.round_over, played.game_over) == (True, True)
    assert (game.status, game.turn, game.hand_sizes) == ("finished", None, (0, 0, 0))


# ---- (c) cards left in the cauldrons score for nobody and leave with the round --------------


def test_cards_left_in_the_cauldrons_are_in_no_pile_and_leave_the_cauldrons(rules):
    game = game_a(rules)
    play(game, MOVES_1[:37])
    assert game.cauldrons == (
        Cauldron("red", 3, ("R2", "R1")),
        Cauldron(None, 4, ("G4",)),
        Cauldron("purple", 3, ("P1", "P2")),
    )
    assert game.play(2, "B7", 1) == Played(2, "B7", 1, 11, (), True, False)
    # Left when round 1 ended: R2 R1 | G4 B7 | P1 P2. Per suit, the piles hold the deck less
    # the set-aside hand and these: red 14 - 4 - 2 = 8, blue 14 - 4 - 1 = 9,
    # purple 14 - 4 - 2 = 8, poison 8 - 0 - 1 = 7.
    (result,) = game.results()
    assert result.taken == (Taken(0, 0, 8, 2), Taken(8, 0, 0, 3), Taken(0, 9, 0, 2))
    assert [sum(pile[suit] for pile in result.taken) for suit in range(4)] == [8, 9, 8, 7]
    assert result.scores == (4, 6, 4)
    assert game.cauldrons == EMPTY  # round 2 starts with three empty cauldrons
    assert game.pile_sizes == (0, 0, 0)

    # Round 2 ends on an overflow: seat 0's B5 takes G4 B7, and B5 stays, for nobody.
    play(game, MOVES_2_A[:37])
    assert game.cauldrons == (
        Cauldron("red", 12, ("R2", "R5", "G4", "R1")),
        Cauldron("blue", 11, ("G4", "B7")),
        Cauldron("purple", 3, ("P2", "P1")),
    )
    assert game.pile_sizes == (10, 13, 6)  # 7 + 3; 2 + 1 + 1 + 3 + 3 + 3; 3 + 3
    assert game.play(0, "B5", 1) == Played(0, "B5", 1, 5, ("G4", "B7"), True, True)
    # Left: R2 R5 G4 R1 | B5 | P2 P1. Red 14 - 3 - 3 = 8, blue 14 - 3 - 1 = 10,
    # purple 14 - 4 - 2 = 8, poison 8 - 2 - 1 = 5.
    result = game.results()[1]
    assert result.taken == (Taken(0, 10, 0, 2), Taken(5, 0, 8, 0), Taken(3, 0, 0, 3))
    assert [sum(pile[suit] for pile in result.taken) for suit in range(4)] == [8, 10, 8, 5]
    assert result.scores == (4, 0, 9)
    assert game.cauldrons == EMPTY
    assert game.view().cauldrons == EMPTY


# ---- (d) no colour is ever in two cauldrons (dynamic) --------------------------------------


def refused(game, seat, card, cauldron):
    before = (game.view(seat), game.pile_sizes)
    try:
        game.play(seat, card, cauldron)
    except RuleError as error:
        assert (game.view(seat), game.pile_sizes) == before
        return error.code
    raise AssertionError(f"{card} into cauldron {cauldron} was accepted")


def test_a_colour_that_stands_nowhere_opens_any_colourless_cauldron_and_then_only_its_own(rules):
    game = game_a(rules)
    # Three empty cauldrons take any colour: seat 1 may put each of its cards anywhere.
    assert game.legal_moves() == tuple(
        Move(card, c) for card in ("R1", "R2", "R4", "R5", "R7", "G4") for c in (0, 1, 2)
    )
    play(game, MOVES_1[:1])  # R7 into 0: cauldron 0 is red
    assert [c.colour for c in game.cauldrons] == ["red", None, None]
    # Seat 2 holds B1 B1 B2 B2 B4 B5 B5 B7 B7 B7 G4 G4 G4: blue opens 1 or 2, never red 0.
    blue = ("B1", "B2", "B4", "B5", "B7")
    assert game.legal_moves() == (
        *(Move(card, c) for card in blue for c in (1, 2)),
        *(Move("G4", c) for c in (0, 1, 2)),
    )
    assert refused(game, 2, "B5", 0) == "illegal_cauldron"
    play(game, MOVES_1[1:2])  # B5 into 1
    # Seat 0 holds P1 P1 P2 P2 P4 P4 P5 P5 P7 P7 G4 G4: purple has only cauldron 2 left.
    purple = ("P1", "P2", "P4", "P5", "P7")
    assert game.legal_moves() == (*(Move(card, 2) for card in purple), *(Move("G4", c) for c in (0, 1, 2)))
    assert refused(game, 0, "P7", 0) == "illegal_cauldron"
    assert refused(game, 0, "P7", 1) == "illegal_cauldron"


def test_a_potion_whose_colour_stands_in_a_cauldron_goes_nowhere_else_even_to_a_colourless_one(rules):
    game = game_a(rules)
    play(game, MOVES_1[:15])  # five turns each
    # Cauldron 0: G4 R7 R2 (red, 13); 1: G4 alone (seat 2's G4 overflowed it); 2: P2 (purple).
    assert game.cauldrons == (
        Cauldron("red", 13, ("G4", "R7", "R2")),
        Cauldron(None, 4, ("G4",)),
        Cauldron("purple", 2, ("P2",)),
    )
    # Seat 1 holds R1 R1 R2 R4 R5 R7 G4 G4: red stands in 0, so every red goes there (and
    # overflows it), though cauldron 1 is colourless.
    assert game.hand(1) == ("R1", "R1", "R2", "R4", "R5", "R7", "G4", "G4")
    red = ("R1", "R2", "R4", "R5", "R7")
    assert game.legal_moves() == (*(Move(card, 0) for card in red), *(Move("G4", c) for c in (0, 1, 2)))
    assert refused(game, 1, "R1", 1) == "illegal_cauldron"
    assert refused(game, 1, "R1", 2) == "illegal_cauldron"
    play(game, MOVES_1[15:16])  # R1 into 0: 14, seat 1 takes G4 R7 R2, R1 stays (red)
    # Seat 2 holds B1 B1 B2 B2 B7 B7 G4 G4; blue stands nowhere and the poison-only cauldron 1
    # is the one colourless cauldron: every blue goes there.
    assert game.hand(2) == ("B1", "B1", "B2", "B2", "B7", "B7", "G4", "G4")
    assert [c.colour for c in game.cauldrons] == ["red", None, "purple"]
    assert game.legal_moves() == (Move("B1", 1), Move("B2", 1), Move("B7", 1), *(Move("G4", c) for c in (0, 1, 2)))
    assert refused(game, 2, "B1", 0) == "illegal_cauldron"
    play(game, MOVES_1[16:17])  # B2 into 1: blue now
    assert [c.colour for c in game.cauldrons] == ["red", "blue", "purple"]


def test_two_poison_only_cauldrons_both_take_a_colour_that_stands_nowhere(rules):
    game = game_b(rules)
    play(game, MOVES_1)
    play(game, MOVES_2_B[:22])  # seven turns each, then seat 2's G4 overflows cauldron 0
    # Seat 1's G4 overflowed cauldron 1 (taking seven blues), seat 2's G4 cauldron 0.
    assert game.cauldrons == (
        Cauldron(None, 4, ("G4",)),
        Cauldron(None, 4, ("G4",)),
        Cauldron("purple", 13, ("P7", "P5", "P1")),
    )
    # Seat 0 holds B4 B5 B5 B7 G4 G4: blue stands nowhere, so either poison-only cauldron.
    assert game.hand(0) == ("B4", "B5", "B5", "B7", "G4", "G4")
    assert game.legal_moves() == (
        *(Move(card, c) for card in ("B4", "B5", "B7") for c in (0, 1)),
        *(Move("G4", c) for c in (0, 1, 2)),
    )
    assert refused(game, 0, "B4", 2) == "illegal_cauldron"
    play(game, MOVES_2_B[22:23])  # B4 into 1: blue stands there now
    # Seat 1 holds P1 P2 P4 P4 P5 and no poison: purple stands in 2, so cauldron 0, though
    # colourless, is closed to it.
    assert game.hand(1) == ("P1", "P2", "P4", "P4", "P5")
    assert game.legal_moves() == (Move("P1", 2), Move("P2", 2), Move("P4", 2), Move("P5", 2))
    assert refused(game, 1, "P4", 0) == "illegal_cauldron"
    play(game, MOVES_2_B[23:24])  # P4 into 2: 17, seat 1 takes P7 P5 P1
    # Seat 2 holds R1 R2 R4 R5 G4; red stands nowhere and only cauldron 0 is colourless now.
    assert game.hand(2) == ("R1", "R2", "R4", "R5", "G4")
    assert [c.colour for c in game.cauldrons] == [None, "blue", "purple"]
    assert game.legal_moves() == (
        *(Move(card, 0) for card in ("R1", "R2", "R4", "R5")),
        *(Move("G4", c) for c in (0, 1, 2)),
    )


def test_no_colour_is_in_two_cauldrons_at_any_moment_of_the_scripted_rounds(rules):
    for make, second in ((game_a, MOVES_2_A), (game_b, MOVES_2_B)):
        game = make(rules)
        for seat, card, cauldron in [*MOVES_1, *second]:
            game.play(seat, card, cauldron)
            colours = [c.colour for c in game.cauldrons if c.colour is not None]
            assert len(colours) == len(set(colours))
        assert game.status == "finished"


# ---- (e) there is always a legal move while a round is played -------------------------------


def test_a_hand_of_one_colour_with_the_others_standing_still_has_the_colourless_cauldron(rules):
    game = game_a(rules)
    play(game, MOVES_1[:37])
    # Seat 2's last card is B7 and it has no poison left. Red stands in 0, purple in 2, and
    # cauldron 1 holds only poison: colourless, so B7 goes there (the only legal move).
    assert game.hand(2) == ("B7",)
    assert [c.colour for c in game.cauldrons] == ["red", None, "purple"]
    assert game.legal_moves() == (Move("B7", 1),)
    assert game.view(2).legal_moves == (Move("B7", 1),)


def test_a_last_card_that_must_overflow_still_has_its_cauldron(rules):
    game = game_a(rules)
    play(game, MOVES_1)
    play(game, MOVES_2_A[:37])
    # Every cauldron has a colour (red 12, blue 11, purple 3) and seat 0 holds only B5: its
    # one move is blue's cauldron, although 11 + 5 = 16 overflows.
    assert game.hand(0) == ("B5",)
    assert [c.colour for c in game.cauldrons] == ["red", "blue", "purple"]
    assert game.legal_moves() == (Move("B5", 1),)


def test_every_turn_of_the_scripted_rounds_has_a_legal_move_and_none_once_finished(rules):
    for make, second in ((game_a, MOVES_2_A), (game_b, MOVES_2_B)):
        game = make(rules)
        for seat, card, cauldron in [*MOVES_1, *second]:
            assert game.status == "active"
            assert game.hand_sizes[game.turn] > 0
            assert Move(card, cauldron) in game.legal_moves()
            game.play(seat, card, cauldron)
        assert (game.status, game.legal_moves()) == ("finished", ())
