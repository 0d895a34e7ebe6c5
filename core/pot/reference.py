"""The pot game in plain Python, written to be read next to rules.md ("The pot game").

This is the oracle: the tests play the compiled engine (core.pot.engine) and this module
side by side and demand the same legal moves, pots, hands, scores and errors after every
move, and the benchmarks measure the engine against it. It is deliberately simple and
slow; it must never import the compiled engine, or it would prove nothing. Its random
numbers are every reference's splitmix64 (core.plain's `Random`, `stream_seed`), so a seed
deals the same deck and the random bot makes the same choices in both.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import cast

from core import errors
from core.plain import BOTS as BOTS
from core.plain import STATUSES as STATUSES
from core.plain import PlainGame, Random, check_seed, is_int, replay_moves, simulate_games, stream_seed
from core.results import PotDeal, PotMove, PotPlayed, PotResult, PotView, Replayed, Simulation

# ---- the cards and the numbers of the game ------------------------------------------------

N_TOXICITIES = 7
COPIES = 8
DECK_SIZE = 56
HAND_SIZE = 4
EXPLODE_LIMIT = 14  # a pot whose toxicity exceeds this explodes
CLOSING_POINT = 1
PLAYER_BOUNDS = (2, 6)

#: Every card code in the canonical order of hands, legal moves and the unshuffled deck.
CARD_CODES = tuple(f"T{toxicity}" for toxicity in range(N_TOXICITIES))
DECK = tuple(card for card in CARD_CODES for _ in range(COPIES))


def toxicity_of(card: str) -> int:
    return int(card[1])


def toxicity(cards: Sequence[str]) -> int:
    return sum(toxicity_of(card) for card in cards)


def is_card(card: object) -> bool:
    return type(card) is str and card in CARD_CODES


def sort_cards(cards: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted(cards, key=CARD_CODES.index))


def closing_points(cards: int, toxicity: int) -> int:
    """A closing: one point, then one per card if the toxicity is at most the number of
    cards, otherwise minus the toxicity."""
    return CLOSING_POINT + (cards if toxicity <= cards else -toxicity)


# ---- arguments ----------------------------------------------------------------------------


def check_players(players: object) -> int:
    if not is_int(players) or not PLAYER_BOUNDS[0] <= players <= PLAYER_BOUNDS[1]:
        raise errors.invalid_pot_players(players)
    return players


def pile_size(players: int) -> int:
    return DECK_SIZE - players * HAND_SIZE - 1


def check_deal(players: int, hands: object, pot: object, draw_pile: object) -> None:
    """Raise unless this is a deal of the whole deck to `players`: four cards a hand, one
    for the pot, the rest in the pile. Checked in this order, as the engine does: the
    hands seat by seat, the pot's card, the pile, then the count of every kind."""
    if not isinstance(hands, (list, tuple)) or len(hands) != players:
        raise errors.rule_error("invalid_deal", f"a deal holds one hand per seat: {players} hands expected")
    for seat, hand in enumerate(hands):
        if not isinstance(hand, (list, tuple)):
            raise errors.rule_error("invalid_deal", f"the hand of seat {seat} must be a list of card codes")
        if len(hand) != HAND_SIZE:
            raise errors.rule_error("invalid_deal", f"seat {seat} must be dealt {HAND_SIZE} cards, not {len(hand)}")
        for card in hand:
            if not is_card(card):
                raise errors.rule_error(
                    "unknown_card", f"in the hand of seat {seat}: {errors.unknown_pot_card(card, CARD_CODES)}"
                )
    if not is_card(pot):
        raise errors.rule_error("unknown_card", f"the pot's first card: {errors.unknown_pot_card(pot, CARD_CODES)}")
    if not isinstance(draw_pile, (list, tuple)):
        raise errors.rule_error("invalid_deal", "the draw pile must be a list of card codes")
    if len(draw_pile) != pile_size(players):
        raise errors.rule_error(
            "invalid_deal",
            f"the draw pile holds {pile_size(players)} cards with {players} players, not {len(draw_pile)}",
        )
    for card in draw_pile:
        if not is_card(card):
            raise errors.rule_error("unknown_card", f"in the draw pile: {errors.unknown_pot_card(card, CARD_CODES)}")
    dealt = Counter([*(card for hand in hands for card in hand), pot, *draw_pile])
    for card in CARD_CODES:
        if dealt[card] != COPIES:
            raise errors.rule_error("invalid_deal", f"the deal holds {dealt[card]} × {card}, but the deck has {COPIES}")


def unpack_deal(deal: object) -> tuple[object, object, object]:
    if not (isinstance(deal, (list, tuple)) and len(deal) == 3):
        raise errors.rule_error("invalid_deal", "a deal is a triple (hands, pot, draw_pile)")
    return deal[0], deal[1], deal[2]


# ---- dealing ------------------------------------------------------------------------------


def seeded_deal(seed: int, players: int) -> PotDeal:
    """Shuffle the deck (Fisher–Yates, from the seed's stream 1, as Poison's first round)
    and deal it: four cards one at a time from seat 0, one for the pot, the rest the pile."""
    check_seed(seed)
    check_players(players)
    return _deal_from(seed, players)


def _deal_from(seed: int, players: int) -> PotDeal:
    """seeded_deal without its checks: `seed` may be any 64-bit state (simulate's games are
    dealt from derived seeds)."""
    deck = list(DECK)
    rng = Random(stream_seed(seed, 1))
    for i in range(len(deck) - 1, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    dealt = players * HAND_SIZE
    hands = tuple(sort_cards(deck[seat:dealt:players]) for seat in range(players))
    return PotDeal(hands, deck[dealt], tuple(deck[dealt + 1 :]))


# ---- a game -------------------------------------------------------------------------------


class Game(PlainGame[PotMove]):
    """One pot game; the same interface as core.pot.engine.Game."""

    card_codes = CARD_CODES
    lowest_wins = False
    lowest_key = False  # the greedy bot plays the move it likes best

    def __init__(self, players: int, *, seed: int | None = None, deal: PotDeal | Sequence | None = None) -> None:
        self.players = check_players(players)
        if seed is not None:
            check_seed(seed)
            if deal is not None:
                raise errors.rule_error("invalid_deal", "give a seed or a deal, not both")
        self.seed = seed
        self.status = "dealing"
        self._turn = 0
        self.hands: list[list[str]] = [[] for _ in range(players)]
        self.pot_cards: list[str] = []
        self.pile: list[str] = []  # top first
        self.sheet: list[PotResult] = []
        self.scores = [0] * players
        if seed is not None:
            self.deal(*_deal_from(seed, players))
        elif deal is not None:
            hands, pot, pile = unpack_deal(deal)  # of any shape: deal() refuses a bad one
            self.deal(cast(Sequence[Sequence[str]], hands), cast(str, pot), cast(Sequence[str], pile))

    # -- public state --------------------------------------------------------------------

    @property
    def endgame(self) -> bool:
        """The draw pile is empty: no more closing, no more drawing."""
        return self.status != "dealing" and not self.pile

    @property
    def pot(self) -> tuple[str, ...]:
        return tuple(self.pot_cards)

    @property
    def toxicity(self) -> int:
        return toxicity(self.pot_cards)

    @property
    def draw_pile(self) -> int:
        return len(self.pile)

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(self.scores)

    # -- hidden information --------------------------------------------------------------

    def draw_order(self) -> tuple[str, ...]:
        return tuple(self.pile)

    # -- dealing -------------------------------------------------------------------------

    def deal(self, hands: Sequence[Sequence[str]], pot: str, draw_pile: Sequence[str]) -> None:
        if self.status == "finished":
            raise errors.pot_game_finished()
        if self.status != "dealing":
            raise errors.pot_not_awaiting_deal()
        check_deal(self.players, hands, pot, draw_pile)
        self.hands = [list(hand) for hand in hands]
        self.pot_cards = [pot]
        self.pile = list(draw_pile)
        self._turn = 0  # seat 0 plays first
        self.status = "active"

    # -- a turn --------------------------------------------------------------------------

    def check(self, seat: int, card: str, close: bool = False) -> None:
        """Raise the error playing this move would raise; change nothing."""
        if not is_int(seat) or not 0 <= seat < self.players:
            raise errors.seat_out_of_range(seat, self.players)
        if not is_card(card):
            raise errors.unknown_pot_card(card, CARD_CODES)
        if type(close) is not bool:
            raise errors.invalid_close(close)
        if self.status == "finished":
            raise errors.pot_game_finished()
        if self.status == "dealing":
            raise errors.pot_awaiting_deal()
        if seat != self._turn:
            raise errors.not_your_turn(seat, self._turn)
        if card not in self.hands[seat]:
            raise errors.card_not_in_hand(seat, card)
        if close:
            if not self.pile:
                raise errors.cannot_close(card, "no pot may be closed once the draw pile is empty")
            after = self.toxicity + toxicity_of(card)
            if after > EXPLODE_LIMIT:
                raise errors.cannot_close(card, f"it makes the pot explode (toxicity {after} > {EXPLODE_LIMIT})")

    def legal_moves(self) -> tuple[PotMove, ...]:
        if self.status != "active":
            return ()
        hand = self.hands[self._turn]
        moves = []
        for card in CARD_CODES:
            if card in hand:
                moves.append(PotMove(card, False))
                if self.pile and self.toxicity + toxicity_of(card) <= EXPLODE_LIMIT:
                    moves.append(PotMove(card, True))
        return tuple(moves)

    def _end_pot(self, seat: int, outcome: str) -> PotResult:
        cards = tuple(self.pot_cards)
        points = closing_points(len(cards), toxicity(cards)) if outcome == "closed" else 0
        result = PotResult(seat, outcome, cards, toxicity(cards), points)
        self.sheet.append(result)
        self.scores[seat] += points
        self.pot_cards = []
        return result

    def play(self, seat: int, card: str, close: bool = False) -> PotPlayed:
        self.check(seat, card, close)
        seat = int(seat)  # a seat of an int subclass is reported as the int it is, as the engine does
        endgame = not self.pile  # a turn that starts with the pile empty
        self.hands[seat].remove(card)
        self.pot_cards.append(card)
        after = self.toxicity
        ended = started = final = None
        if after > EXPLODE_LIMIT:
            ended = self._end_pot(seat, "exploded")
        elif close:
            ended = self._end_pot(seat, "closed")
        if ended is not None and self.pile:
            started = self.pile.pop(0)
            self.pot_cards = [started]
        drawn = []
        if not endgame:
            while len(self.hands[seat]) < HAND_SIZE and self.pile:
                drawn.append(self.pile.pop(0))
                self.hands[seat].append(drawn[-1])
        if not any(self.hands):
            # The last card of the last hand: the pot, if it holds any card, is closed for it.
            if self.pot_cards:
                final = self._end_pot(seat, "closed")
            self.status = "finished"
        else:
            nxt = (seat + 1) % self.players
            while not self.hands[nxt]:  # empty hands are skipped
                nxt = (nxt + 1) % self.players
            self._turn = nxt
        return PotPlayed(seat, card, close, after, ended, started, tuple(drawn), final, self.status == "finished")

    # -- bots ----------------------------------------------------------------------------

    def greedy_key(self, card: str, close: bool) -> int:
        """How much the greedy bot likes a legal move (it plays the best, the first in
        canonical order on a tie); see core/pot/engine.pyi for the rule in words."""
        after = self.toxicity + toxicity_of(card)
        if close:
            points = closing_points(len(self.pot_cards) + 1, after)
            return 1000 + points if points > 0 else -1000 + points
        if after > EXPLODE_LIMIT:
            return -toxicity_of(card)
        return 100 + toxicity_of(card)

    def _not_active(self) -> errors.RuleError:
        return errors.pot_game_finished() if self.status == "finished" else errors.pot_awaiting_deal()

    # -- views ---------------------------------------------------------------------------

    def view(self, seat: int | None = None) -> PotView:
        shown = self._shown(seat)  # the totals, the winners and the seat's own part
        return PotView(
            self.status,
            self.turn,
            self.endgame,
            self.pot,
            self.toxicity,
            self.draw_pile,
            self.hand_sizes,
            self.results(),
            *shown,
        )

    def copy(self) -> Game:
        twin = self._twin()
        twin.pot_cards = list(self.pot_cards)
        twin.pile = list(self.pile)
        twin.scores = list(self.scores)
        return twin

    def __repr__(self) -> str:
        return f"<pot Game {self.players} players, {self.status}>"


# ---- batch entry points -------------------------------------------------------------------


def replay(
    players: int,
    moves: Sequence[tuple[int, str, bool]],
    *,
    seed: int | None = None,
    deal: PotDeal | Sequence | None = None,
) -> Replayed[Game]:
    """Play a recorded game; stop at the first move the rules refuse."""
    game = Game(players, seed=seed, deal=deal)
    if not isinstance(moves, (list, tuple)):
        raise errors.rule_error("invalid_move", "moves must be a list")
    return replay_moves(game, moves, "(seat, card, close)")


def simulate(
    players: int,
    games: int,
    *,
    seed: int = 0,
    bots: Sequence[str] | None = None,
    first: int = 0,
) -> Simulation:
    """Play games number `first` to `first + games - 1`, each seat played by its bot
    (random by default); the highest total wins, a shared win counts for each."""
    check_players(players)

    def seeded(game_seed: int) -> Game:
        game = Game(players)
        game.seed = game_seed
        game.deal(*_deal_from(game_seed, players))
        return game

    return simulate_games(players, games, seed, bots, first, seeded)
