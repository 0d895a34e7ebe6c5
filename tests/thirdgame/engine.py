"""High card's rules, in plain Python: its engine and its reference at once.

Two to four players are dealt eight cards each from the first 8 × players cards of H01…H32;
in turn each plays one card of their hand, scoring its value; when every hand is empty the
highest total wins. The bots are `random` and `greedy` (the highest card); there is no
search bot and no `simulate` (the ruleset says it lacks them: core.protocol's `Engine` asks
for neither), and no batch replay. What every game's plain rules share is core.plain's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, Self

from core import errors
from core.plain import PlainGame, Random, check_bot, check_seed, is_int, replay_moves, stream_seed
from core.results import Bot, EngineBot, Replayed, Searched, Status

CARD_CODES: tuple[str, ...] = tuple(f"H{value:02d}" for value in range(1, 33))
HAND = 8  # cards dealt to each seat: a game of four lasts beyond thirty moves
BOTS: tuple[Bot, ...] = ("random", "greedy")
ENGINE_BOTS: tuple[EngineBot, ...] = BOTS
DEFAULT_PLAYOUTS = 0  # no search bot
PLAYER_BOUNDS = (2, 4)
PLAYOUT_BOUNDS = errors.PLAYOUT_BOUNDS
MILLISECOND_BOUNDS = errors.MILLISECOND_BOUNDS
THREAD_BOUNDS = errors.THREAD_BOUNDS
STATUSES: tuple[Status, ...] = ("dealing", "active", "finished")


class Move(NamedTuple):
    card: str


class Played(NamedTuple):
    seat: int
    card: str
    total: int  # the seat's total after the card
    finished: bool


class View(NamedTuple):
    turn: int | None
    hand_sizes: tuple[int, ...]
    played: tuple[tuple[int, str], ...]
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    hand: tuple[str, ...] | None


def value_of(card: str) -> int:
    return int(card[1:])


def deck(players: int) -> tuple[str, ...]:
    return CARD_CODES[: HAND * players]


def seeded_deal(seed: int, players: int) -> tuple[tuple[str, ...], ...]:
    """The hands `seed` deals: the deck shuffled (Fisher–Yates over splitmix64), three each."""
    cards = list(deck(players))
    rng = Random(stream_seed(check_seed(seed), 0))
    for index in range(len(cards) - 1, 0, -1):
        other = rng.below(index + 1)
        cards[index], cards[other] = cards[other], cards[index]
    return tuple(tuple(sorted(cards[seat * HAND : (seat + 1) * HAND], key=CARD_CODES.index)) for seat in range(players))


class Game(PlainGame[Move]):
    """High card over core.plain's PlainGame: seats, hands, turn, winners, the bots' choice
    and copying are every game's; the deal, the moves and their refusals are its own."""

    card_codes = CARD_CODES
    lowest_wins = False
    lowest_key = False  # the greedy bot plays its highest card

    def __init__(self, players: int, *, seed: int | None = None) -> None:
        if not is_int(players) or not PLAYER_BOUNDS[0] <= players <= PLAYER_BOUNDS[1]:
            raise errors.rule_error("invalid_players", f"high card is played by 2 to 4 players, not {players!r}")
        self.players = players
        self.seed = None if seed is None else check_seed(seed)
        self.status = "dealing"
        self.hands = [[] for _ in range(players)]
        self.sheet: list[tuple[int, str]] = []  # the cards played, in order, and by whom
        self.scores = [0] * players
        self._turn = 0
        if self.seed is not None:
            self.deal(seeded_deal(self.seed, players))

    def deal(self, hands: Sequence[Sequence[str]]) -> None:
        if self.status != "dealing":
            raise errors.rule_error("not_awaiting_deal", "the cards are dealt already")
        cards = [card for hand in hands for card in hand]
        if (
            len(hands) != self.players
            or any(len(hand) != HAND for hand in hands)
            or sorted(cards) != sorted(deck(self.players))
        ):
            raise errors.rule_error("invalid_deal", f"a deal is {HAND} cards a seat of {' '.join(deck(self.players))}")
        self.hands = [list(self.sorted_cards(hand)) for hand in hands]
        self.status = "active"

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(self.scores)

    def _not_active(self) -> errors.RuleError:
        return errors.game_finished() if self.status == "finished" else errors.rule_error("awaiting_deal", "no deal")

    def legal_moves(self) -> tuple[Move, ...]:
        if self.status != "active":
            return ()
        return tuple(Move(card) for card in self.hands[self._turn])

    def greedy_key(self, card: str, *second: Any) -> int:
        return value_of(card)

    def play(self, seat: int, card: str, *second: Any) -> Played:
        if self.status != "active":
            raise (
                errors.game_finished()
                if self.status == "finished"
                else errors.rule_error("awaiting_deal", "the cards are not dealt yet")
            )
        seat = self._seat(seat)
        if card not in CARD_CODES:
            raise errors.unknown_card(card, CARD_CODES)
        if seat != self._turn:
            raise errors.not_your_turn(seat, self._turn)
        if card not in self.hands[seat]:
            raise errors.card_not_in_hand(seat, card)
        self.hands[seat].remove(card)
        self.scores[seat] += value_of(card)
        self.sheet.append((seat, card))
        self._turn = (self._turn + 1) % self.players
        if not any(self.hands):
            self.status = "finished"
        return Played(seat, card, self.scores[seat], self.status == "finished")

    def choose(self, bot: str, seed: int = 0, *, playouts: int | None = None, milliseconds: int | None = None) -> Move:
        """PlainGame's choice, taking (and refusing) the search budgets the Engine protocol names."""
        check_bot(bot)
        if playouts is not None or milliseconds is not None:
            raise errors.budget_without_search(bot)
        return super().choose(bot, seed)

    def search(self, seed: int = 0, *, playouts: int | None = None, milliseconds: int | None = None) -> Searched[Move]:
        raise errors.refused_bot(errors.SEARCH_BOT, BOTS)

    def view(self, seat: int | None = None) -> View:
        hand = None if seat is None else self.hand(seat)
        return View(self.turn, self.hand_sizes, self.results(), self.totals, self.winners, hand)

    def copy(self) -> Self:
        twin = self._twin()
        twin.scores = list(self.scores)
        return twin


def replay(players: int, moves: Sequence[Any], *, seed: int | None = None) -> Replayed[Game]:
    """Play recorded `(seat, card)` moves on the game `seed` deals; stop at the first refused."""
    return replay_moves(Game(players, seed=seed), moves, "(seat, card)", size=2)
