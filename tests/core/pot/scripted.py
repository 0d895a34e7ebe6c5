"""Scripted deals for the pot game's rule tests: explicit hands, the pot's first card and the
top of the draw pile; the rest of the deck goes under it in canonical order (T0 first)."""

from collections import Counter
from collections.abc import Sequence

from core.results import PotDeal

CODES = tuple(f"T{toxicity}" for toxicity in range(7))


def scripted_deal(hands: Sequence[Sequence[str]], pot: str, top: Sequence[str] = ()) -> PotDeal:
    """The deal with these hands (four cards each), this first pot card and this top of
    the draw pile (top first); the pile's other cards follow, T0s first, then T1s, …"""
    left = Counter({code: 8 for code in CODES})
    left.subtract([*(card for hand in hands for card in hand), pot, *top])
    assert min(left.values()) >= 0, "the script asks for more copies than the deck has"
    rest = [code for code in CODES for _ in range(left[code])]
    return PotDeal(tuple(tuple(hand) for hand in hands), pot, (*top, *rest))


def first_open_move(game):
    """The first legal move that keeps the pot open: the lowest card in hand."""
    return next(move for move in game.legal_moves() if not move.close)


def play_on(game, until):
    """Play the lowest card, never closing, until `until(game)` holds (or the game ends)."""
    while game.status == "active" and not until(game):
        game.play(game.turn, *first_open_move(game))
    return game
