"""The rules of Poison in plain Python, written to be read next to rules.md.

This is the oracle: the tests play the compiled engine (core.poison.engine) and this module side
by side and demand the same legal moves, cauldrons, piles, scores and errors after every
move, and the benchmarks measure the engine against it. It is deliberately simple and
slow; it must never import the compiled engine, or it would prove nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from core import errors
from core.plain import BOTS as BOTS
from core.plain import STATUSES as STATUSES
from core.plain import PlainGame, Random, check_seed, is_int, replay_moves, simulate_games, stream_seed
from core.results import (
    Cauldron,
    Colour,
    Deal,
    Move,
    Played,
    Replayed,
    RoundResult,
    Simulation,
    Taken,
    View,
)

# ---- the cards (rules.md, "Components") --------------------------------------------------

COLOURS: tuple[Colour, ...] = ("red", "blue", "purple")
POISON = "poison"
POTION_COLOURS: dict[str, Colour] = {"R": "red", "B": "blue", "P": "purple"}
LETTERS: dict[str, str] = {**POTION_COLOURS, "G": POISON}
POTION_VALUES = (1, 2, 4, 5, 7)
POTION_COPIES = {1: 3, 2: 3, 4: 2, 5: 3, 7: 3}  # fourteen cards of each colour
POISON_VALUE = 4
POISON_COPIES = 8
OVERFLOW_LIMIT = 13  # a total above this overflows
CAULDRONS = 3

# Every card code in the canonical order used for hands and legal moves.
CARD_CODES = (*(f"{letter}{value}" for letter in "RBP" for value in POTION_VALUES), "G4")


def copies(card: str) -> int:
    return POISON_COPIES if card == "G4" else POTION_COPIES[int(card[1])]


DECK = tuple(code for code in CARD_CODES for _ in range(copies(code)))


def colour_of(card: str) -> str:
    """A card's suit: its colour, or poison."""
    return LETTERS[card[0]]


def potion_colour(card: str) -> Colour:
    return POTION_COLOURS[card[0]]


def value_of(card: str) -> int:
    return int(card[1])


def is_card(card: object) -> bool:
    return isinstance(card, str) and card in CARD_CODES


# ---- dealing (rules.md, "Dealing") --------------------------------------------------------


def hands_dealt(players: int) -> int:
    # Three players deal as if there were four; the fourth hand is set aside.
    return 4 if players == 3 else players


def dealing_order(players: int, dealer: int) -> list[int | None]:
    """The seats in the order they receive cards, from the dealer's left; None is the
    hand set aside in a three-player round, dealt after the dealer's."""
    order: list[int | None] = [(dealer + 1 + i) % players for i in range(players)]
    if players == 3:
        order.append(None)
    return order


def hand_sizes(players: int, dealer: int) -> dict[int | None, int]:
    order = dealing_order(players, dealer)
    sizes = dict.fromkeys(order, 0)
    for i in range(len(DECK)):
        sizes[order[i % len(order)]] += 1
    return sizes


def seeded_deal(seed: int, players: int, round: int) -> Deal:
    """Shuffle the deck with the round's own random stream and deal it one card at a time."""
    check_players(players)
    check_seed(seed)
    if not is_int(round) or not 1 <= round <= 20:
        raise errors.rule_error("invalid_rounds", f"round {errors.quoted(round)} is not 1 to 20")
    return _deal_from(seed, players, round)


def _deal_from(seed: int, players: int, round: int) -> Deal:
    """seeded_deal without its checks: `seed` may be any 64-bit state (simulate's games are
    dealt from derived seeds)."""
    dealer = (round - 1) % players
    deck = list(DECK)
    rng = Random(stream_seed(seed, round))
    for i in range(len(deck) - 1, 0, -1):  # Fisher–Yates
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    order = dealing_order(players, dealer)
    dealt: dict[int | None, list[str]] = {who: [] for who in order}
    for i, card in enumerate(deck):
        dealt[order[i % len(order)]].append(card)
    return Deal(
        tuple(sort_cards(dealt[seat]) for seat in range(players)),
        sort_cards(dealt[None]) if players == 3 else (),
    )


def sort_cards(cards: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted(cards, key=CARD_CODES.index))


def check_deal(players: int, dealer: int, hands: object, set_aside: object) -> None:
    """Raise unless `hands` (one per seat) and `set_aside` are exactly what the deck deals
    from `dealer`'s left: every hand its size, every card once. Seats are checked in
    order, the set-aside hand last, as the engine does."""
    if not isinstance(hands, (list, tuple)) or len(hands) != players:
        raise errors.rule_error("invalid_deal", f"a deal holds one hand per seat: {players} hands expected")
    if set_aside is None:
        set_aside = ()
    if not isinstance(set_aside, (list, tuple)):
        raise errors.rule_error("invalid_deal", "set_aside must be a list of card codes")
    sizes = hand_sizes(players, dealer)
    for who in [*range(players), *([None] if players == 3 else [])]:
        hand = hands[who] if who is not None else set_aside
        name = f"seat {who}" if who is not None else "the set-aside hand"
        if not isinstance(hand, (list, tuple)):
            raise errors.rule_error("invalid_deal", f"the hand of {name} must be a list of card codes")
        if len(hand) != sizes[who]:
            raise errors.rule_error(
                "invalid_deal",
                f"{name} must be dealt {sizes[who]} cards (one at a time from the dealer's left), not {len(hand)}",
            )
        for card in hand:
            if not is_card(card):
                raise errors.rule_error(
                    "unknown_card", f"in the hand of {name}: {errors.unknown_card(card, CARD_CODES)}"
                )
    if players != 3 and len(set_aside) != 0:
        raise errors.rule_error("invalid_deal", "only a three-player round sets a hand aside")
    dealt = Counter(card for hand in [*hands, set_aside] for card in hand)
    for card in CARD_CODES:
        if dealt[card] != copies(card):
            raise errors.rule_error(
                "invalid_deal", f"the deal holds {dealt[card]} × {card}, but the deck has {copies(card)}"
            )


# ---- scoring (rules.md, "End of a round and scoring") -----------------------------------


def score_round(taken: Sequence[Sequence[int]]) -> tuple[tuple[int, ...], tuple[tuple[Colour, ...], ...]]:
    """Scores and discarded colours from each seat's counts (red, blue, purple, poison)."""
    if not isinstance(taken, (list, tuple)) or not 3 <= len(taken) <= 6:
        raise errors.rule_error("invalid_players", "score_round takes the piles of 3 to 6 seats")
    for seat, pile in enumerate(taken):
        if not isinstance(pile, (list, tuple)) or len(pile) != 4:
            raise errors.rule_error("invalid_deal", f"seat {seat}: a pile is four counts (red, blue, purple, poison)")
        for suit, count in enumerate(pile):
            if not is_int(count) or not 0 <= count <= (14 if suit < 3 else 8):
                raise errors.rule_error(
                    "invalid_deal", f"seat {seat}: {errors.quoted(count)} cannot be a count of that suit"
                )
    discarded: list[list[Colour]] = [[] for _ in taken]
    for index, colour in enumerate(COLOURS):
        counts = [pile[index] for pile in taken]
        most = max(counts)
        # Strictly more than every other player: a tie for most discards nothing.
        if most > 0 and counts.count(most) == 1:
            discarded[counts.index(most)].append(colour)
    scores = []
    for seat, pile in enumerate(taken):
        potions = sum(pile[i] for i, colour in enumerate(COLOURS) if colour not in discarded[seat])
        scores.append(potions + 2 * pile[3])
    return tuple(scores), tuple(tuple(colours) for colours in discarded)


# ---- a game ------------------------------------------------------------------------------


@dataclass
class Pot:
    """One cauldron: its cards in order and, with fixed cauldrons, its colour for good."""

    fixed_colour: Colour | None = None
    cards: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(value_of(card) for card in self.cards)

    @property
    def colour(self) -> Colour | None:
        if self.fixed_colour is not None:
            return self.fixed_colour
        potions = [potion_colour(card) for card in self.cards if card != "G4"]
        return potions[0] if potions else None  # colourless: empty, or poison only


def check_players(players: object) -> int:
    if not is_int(players) or not 3 <= players <= 6:
        raise errors.rule_error("invalid_players", f"a game has 3 to 6 players, not {errors.quoted(players)}")
    return players


class Game(PlainGame[Move]):
    """One game of Poison; the same interface as core.poison.engine.Game."""

    card_codes = CARD_CODES
    lowest_wins = True
    lowest_key = True  # the greedy bot plays the move it dislikes least

    def __init__(
        self,
        players: int,
        *,
        rounds: int | None = None,
        cauldrons: str = "dynamic",
        seed: int | None = None,
        deals: Sequence[Deal | tuple] | None = None,
    ) -> None:
        self.players = check_players(players)
        if rounds is None:
            rounds = players
        if not is_int(rounds) or not 1 <= rounds <= 20:
            raise errors.rule_error("invalid_rounds", f"a game has 1 to 20 rounds, not {errors.quoted(rounds)}")
        if not (type(cauldrons) is str and cauldrons in ("dynamic", "fixed")):
            raise errors.rule_error(
                "invalid_rule", f"cauldrons must be 'dynamic' or 'fixed', not {errors.quoted(cauldrons)}"
            )
        if seed is not None:
            check_seed(seed)
            if deals is not None:
                raise errors.rule_error("invalid_deal", "give a seed or explicit deals, not both")
        if deals is not None and not isinstance(deals, (list, tuple)):
            raise errors.rule_error("invalid_deal", "deals must be a list of deals, one per round")
        if deals is not None and len(deals) > rounds:
            raise errors.rule_error("invalid_deal", f"{len(deals)} deals for a game of {rounds} rounds")
        for number, deal in enumerate(deals or ()):
            # Check every deal now, so that a bad one is refused before any move is made.
            if not (isinstance(deal, (list, tuple)) and len(deal) == 2):
                raise errors.rule_error("invalid_deal", "each deal is a pair (hands, set_aside)")
            check_deal(players, number % players, deal[0], deal[1])
        self.rounds = rounds
        self.cauldron_rule = cauldrons
        self.seed = seed
        self.pending_deals = list(deals or ())
        self.status = "dealing"
        self.round = 1
        self.dealer = 0  # the first dealer is seat 0
        self._turn = 0
        self.hands: list[list[str]] = [[] for _ in range(players)]
        self.aside: list[str] = []
        self.piles: list[list[str]] = [[] for _ in range(players)]
        self.pots = self._new_cauldrons()
        self.sheet: list[RoundResult] = []
        self._start_round()

    def _new_cauldrons(self) -> list[Pot]:
        if self.cauldron_rule == "fixed":
            return [Pot(fixed_colour=colour) for colour in COLOURS]
        return [Pot() for _ in range(CAULDRONS)]

    def _start_round(self) -> None:
        if self.seed is not None:
            self.deal(*_deal_from(self.seed, self.players, self.round))
        elif self.pending_deals:
            hands, set_aside = self.pending_deals.pop(0)
            self.deal(hands, set_aside)

    # -- public state ----------------------------------------------------------------------

    @property
    def cauldrons(self) -> tuple[Cauldron, ...]:
        return tuple(Cauldron(pot.colour, pot.total, tuple(pot.cards)) for pot in self.pots)

    @property
    def pile_sizes(self) -> tuple[int, ...]:
        return tuple(len(pile) for pile in self.piles)

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(sum(result.scores[seat] for result in self.sheet) for seat in range(self.players))

    def set_aside(self) -> tuple[str, ...]:
        return sort_cards(self.aside)

    def taken(self, seat: int) -> Taken:
        pile = self.piles[self._seat(seat)]
        return Taken(*(sum(1 for card in pile if colour_of(card) == suit) for suit in (*COLOURS, POISON)))

    # -- dealing ---------------------------------------------------------------------------

    def deal(self, hands: Sequence[Sequence[str]], set_aside: Sequence[str] = ()) -> None:
        if self.status == "finished":
            raise errors.game_finished()
        if self.status != "dealing":
            raise errors.not_awaiting_deal(self.round)
        check_deal(self.players, self.dealer, hands, set_aside)
        self.hands = [list(hand) for hand in hands]
        self.aside = list(set_aside or ())
        self.piles = [[] for _ in range(self.players)]
        self.pots = self._new_cauldrons()
        self._turn = (self.dealer + 1) % self.players  # left of the dealer plays first
        self.status = "active"

    # -- a turn (rules.md, "A turn") -------------------------------------------------------

    def _home(self, card: str) -> int | None:
        """The cauldron a potion must go into, or None when it may open a colourless one."""
        colour = colour_of(card)
        for index, pot in enumerate(self.pots):
            if pot.colour == colour:
                return index
        return None

    def _accepts(self, card: str, cauldron: int) -> bool:
        if card == "G4":
            return True  # poison goes anywhere
        home = self._home(card)
        if home is not None:
            return cauldron == home  # never one colour in two cauldrons
        return self.pots[cauldron].colour is None  # open a colourless cauldron

    def check(self, seat: int, card: str, cauldron: int) -> None:
        """Raise the error playing this move would raise; change nothing."""
        if not is_int(seat) or not 0 <= seat < self.players:
            raise errors.seat_out_of_range(seat, self.players)
        if not is_card(card):
            raise errors.unknown_card(card, CARD_CODES)
        if not is_int(cauldron) or not 0 <= cauldron < CAULDRONS:
            raise errors.cauldron_out_of_range(cauldron)
        if self.status == "finished":
            raise errors.game_finished()
        if self.status == "dealing":
            raise errors.awaiting_deal(self.round)
        if seat != self._turn:
            raise errors.not_your_turn(seat, self._turn)
        if card not in self.hands[seat]:
            raise errors.card_not_in_hand(seat, card)
        if not self._accepts(card, cauldron):
            fixed = self.cauldron_rule == "fixed"
            colours = [pot.colour for pot in self.pots]
            raise errors.illegal_cauldron(card, cauldron, potion_colour(card), colours, fixed)

    def legal_moves(self) -> tuple[Move, ...]:
        if self.status != "active":
            return ()
        hand = self.hands[self._turn]
        return tuple(
            Move(card, cauldron)
            for card in CARD_CODES
            if card in hand
            for cauldron in range(CAULDRONS)
            if self._accepts(card, cauldron)
        )

    # -- bots ------------------------------------------------------------------------------

    def _leads(self, seat: int, colour: str) -> bool:
        """Has `seat` taken strictly more of `colour` this round than every other seat?"""
        mine = self.taken(seat)._asdict()[colour]
        return mine > 0 and all(
            self.taken(other)._asdict()[colour] < mine for other in range(self.players) if other != seat
        )

    def greedy_key(self, card: str, cauldron: int) -> tuple:
        """How much the greedy bot dislikes a move (lower is better): never overflow if it
        can help it (then play its highest card, leaving the highest total); forced, take
        the cheapest pile (poison 2, a potion 1, a colour it leads in 0), the fewest cards,
        and play its lowest card."""
        pot = self.pots[cauldron]
        total = pot.total + value_of(card)
        if total <= OVERFLOW_LIMIT:
            return (0, -value_of(card), -total)
        penalty = sum(
            2 if taken == "G4" else (0 if self._leads(self._turn, colour_of(taken)) else 1) for taken in pot.cards
        )
        return (1, penalty, len(pot.cards), value_of(card))

    def _not_active(self) -> errors.RuleError:
        if self.status == "finished":
            return errors.game_finished()
        return errors.awaiting_deal(self.round)

    def play(self, seat: int, card: str, cauldron: int) -> Played:
        self.check(seat, card, cauldron)
        seat, cauldron = int(seat), int(cauldron)  # reported as the ints they are, as the engine does
        self.hands[seat].remove(card)
        pot = self.pots[cauldron]
        taken: tuple[str, ...] = ()
        if pot.total + value_of(card) > OVERFLOW_LIMIT:
            # Overflow: take what was there before; the card just played stays alone, and
            # the cauldron takes its colour (colourless after poison).
            taken = tuple(pot.cards)
            self.piles[seat].extend(pot.cards)
            pot.cards = [card]
        else:
            pot.cards.append(card)
        total = pot.total
        self._turn = (seat + 1) % self.players
        round_over = all(not hand for hand in self.hands)
        if round_over:
            self._end_round()
        return Played(seat, card, cauldron, total, taken, round_over, self.status == "finished")

    # -- the end of a round --------------------------------------------------------------

    def _end_round(self) -> None:
        taken = tuple(self.taken(seat) for seat in range(self.players))
        scores, discarded = score_round(taken)
        self.sheet.append(RoundResult(self.round, self.dealer, taken, discarded, scores))
        # Whatever is left in the cauldrons scores for nobody and leaves with the round.
        self.hands = [[] for _ in range(self.players)]
        self.aside = []
        self.piles = [[] for _ in range(self.players)]
        self.pots = self._new_cauldrons()
        if self.round == self.rounds:
            self.status = "finished"
            return
        self.round += 1
        self.dealer = (self.dealer + 1) % self.players  # the deal passes left
        self.status = "dealing"
        self._start_round()

    # -- views ---------------------------------------------------------------------------

    def view(self, seat: int | None = None) -> View:
        return View(
            self.status,
            self.round,
            self.rounds,
            self.dealer,
            self.turn,
            self.cauldrons,
            self.hand_sizes,
            self.pile_sizes,
            tuple(result.scores for result in self.sheet),
            *self._shown(seat),
        )

    def copy(self) -> Game:
        twin = self._twin()
        twin.aside = list(self.aside)
        twin.piles = [list(pile) for pile in self.piles]
        twin.pots = [Pot(pot.fixed_colour, list(pot.cards)) for pot in self.pots]
        twin.pending_deals = list(self.pending_deals)
        return twin


# ---- batch entry points --------------------------------------------------------------------


def replay(
    players: int,
    moves: Sequence[tuple[int, str, int]],
    *,
    rounds: int | None = None,
    cauldrons: str = "dynamic",
    seed: int | None = None,
    deals: Sequence[Deal | tuple] = (),
) -> Replayed[Game]:
    """Play a recorded game; stop at the first move the rules refuse."""
    if seed is not None and deals:
        raise errors.rule_error("invalid_deal", "give a seed or explicit deals, not both")
    if not isinstance(moves, (list, tuple)) or not isinstance(deals, (list, tuple)):
        raise errors.rule_error("invalid_move", "moves and deals must be lists")
    game = Game(players, rounds=rounds, cauldrons=cauldrons, seed=seed)
    waiting = list(deals)

    def deal_due() -> errors.RuleError | None:
        # A round is dealt as it starts, also after the last recorded move.
        if game.status == "dealing" and waiting:
            deal = waiting.pop(0)
            try:
                if not (isinstance(deal, (list, tuple)) and len(deal) == 2):
                    raise errors.rule_error("invalid_deal", "each deal is a pair (hands, set_aside)")
                game.deal(deal[0], deal[1])
            except errors.RuleError as refused:
                return refused
        return None

    return replay_moves(game, moves, "(seat, card, cauldron)", deal_due)


def simulate(
    players: int,
    games: int,
    *,
    seed: int = 0,
    rounds: int | None = None,
    cauldrons: str = "dynamic",
    bots: Sequence[str] | None = None,
    first: int = 0,
) -> Simulation:
    """Play games number `first` to `first + games - 1`, each seat played by its bot
    (random by default); the lowest total wins."""
    check_players(players)

    def seeded(game_seed: int) -> Game:
        game = Game(players, rounds=rounds, cauldrons=cauldrons)
        game.seed = game_seed
        game._start_round()
        return game

    return simulate_games(players, games, seed, bots, first, seeded)
