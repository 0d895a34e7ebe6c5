"""Scripted deals for rule tests: name the cards some hands must hold, the rest is filled in."""

from collections import Counter
from collections.abc import Mapping, Sequence

from core.poison import reference
from core.results import Deal


def rigged_deal(
    players: int, hands: Mapping[int, Sequence[str]], *, dealer: int = 0, set_aside: Sequence[str] = ()
) -> Deal:
    """A valid deal in which each seat of `hands` holds (at least) those cards."""
    sizes = reference.hand_sizes(players, dealer)
    left = Counter(reference.DECK)
    wanted: dict[int | None, list[str]] = {seat: list(cards) for seat, cards in hands.items()}
    wanted[None] = list(set_aside)
    for cards in wanted.values():
        left.subtract(cards)
    assert min(left.values()) >= 0, "the script asks for more copies than the deck has"
    pool = [card for card in reference.CARD_CODES for _ in range(left[card])]
    dealt: dict[int | None, list[str]] = {}
    for who in [*range(players), *([None] if players == 3 else [])]:
        cards = wanted.get(who, [])
        assert len(cards) <= sizes[who], f"seat {who} holds only {sizes[who]} cards"
        fill = sizes[who] - len(cards)
        dealt[who] = cards + pool[:fill]
        del pool[:fill]
    return Deal(tuple(tuple(dealt[seat]) for seat in range(players)), tuple(dealt.get(None, ())))
