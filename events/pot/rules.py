"""The pot game's events: how its deal and each move become events, and what a seat may see.

Every rule is the core's (core.pot): the deal comes from `seeded_deal`, and what a move
caused (an explosion or a closing, the next pot, the cards drawn, the final closing, the
end) from what the engine reports, in the order it happened.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice
from typing import Any

from core import RuleError
from core.pot.engine import Game, replay, seeded_deal
from core.results import PotMove, PotPlayed, PotResult
from core.rulesets import POT
from events.codec import Event, GameFinished
from events.pot.schema import (
    CODEC,
    CardsDealt,
    CardsDrawn,
    PotCardPlayed,
    PotClosed,
    PotExploded,
    PotStarted,
)
from events.ruleset import EventRules


def cards_dealt(game: Game) -> CardsDealt:
    """The event of the deal just made, with every hand and the pile: the store keeps all facts."""
    return CardsDealt(
        hands=tuple(game.hand(seat) for seat in range(game.players)),
        pot=game.pot[0],
        draw_pile=game.draw_order(),
    )


def ended(result: PotResult) -> Event:
    if result.outcome == "exploded":
        return PotExploded(seat=result.seat, cards=result.cards, toxicity=result.toxicity)
    return PotClosed(seat=result.seat, cards=result.cards, toxicity=result.toxicity, points=result.points)


#: What a move can cause besides its own card_played (see consequences): a batch rebuild
#: skips these, the core working out their effect from the moves.
CAUSED: frozenset[type[Event]] = frozenset({PotExploded, PotClosed, PotStarted, CardsDrawn, GameFinished})


def consequences(game: Game, played: PotPlayed) -> list[Event]:
    """The events of a move just applied to `game`, in the order things happened (but for
    the game_finished that EventRules.play adds)."""
    caused: list[Event] = [
        PotCardPlayed(seat=played.seat, card=played.card, close=played.close, toxicity=played.toxicity)
    ]
    if played.ended is not None:
        caused.append(ended(played.ended))
    if played.started is not None:
        caused.append(PotStarted(card=played.started))
    if played.drawn:
        caused.append(CardsDrawn(seat=played.seat, count=len(played.drawn), cards=played.drawn))
    if played.final is not None:
        caused.append(ended(played.final))
    return caused


class PotEvents(EventRules):
    ruleset = POT
    codec = CODEC
    move_type = PotMove
    deal_type = CardsDealt
    played_type = PotCardPlayed

    def seeded_deal(self, game: Game, seed: int) -> tuple[Any, ...]:
        return seeded_deal(seed, game.players)

    def dealt_event(self, game: Game) -> CardsDealt:
        return cards_dealt(game)

    def recorded_deal(self, game: Game, event: Event) -> tuple[Any, ...] | None:
        assert isinstance(event, CardsDealt)
        hands = [hand for hand in event.hands if hand is not None]
        if event.draw_pile is None or len(hands) < len(event.hands):
            return None
        return hands, event.pot, event.draw_pile

    def caused(self, game: Game, seat: int, move: Any) -> list[Event]:
        card, close = move
        return consequences(game, game.play(seat, card, close))

    def describe(self, move: Any) -> str:
        card, close = move
        return f"{card} and {'closes' if close else 'does not close'} the pot"

    def redact(self, event: Event, seat: int | None) -> Event:
        if isinstance(event, CardsDealt):
            return CardsDealt(
                hands=tuple(hand if index == seat else None for index, hand in enumerate(event.hands)),
                pot=event.pot,
                draw_pile=None,
            )
        if isinstance(event, CardsDrawn) and event.seat != seat:
            return CardsDrawn(seat=event.seat, count=event.count, cards=None)
        return event

    def batched(self, created: Any, events: Sequence[tuple[int, Event]]) -> Any | None:
        moves: list[tuple[int, str, bool]] = []
        deals: list[tuple[Any, Any, Any]] = []
        for _, event in islice(events, 1, None):
            if type(event) is PotCardPlayed:
                moves.append((event.seat, event.card, event.close))
            elif type(event) is CardsDealt:
                deals.append((event.hands, event.pot, event.draw_pile))
            elif type(event) not in CAUSED:
                return None
        if len(deals) != 1:  # a pot game is dealt once
            return None
        try:
            replayed = replay(len(created.players), moves, deal=deals[0])
        except RuleError:
            return None
        return replayed.game if replayed.error is None and replayed.applied == len(moves) else None

    def summary(self, game: Game) -> dict[str, str | int]:
        return {}


#: The pot game's facet of the event layer (core.rulesets.FACETS).
EVENTS = PotEvents()
