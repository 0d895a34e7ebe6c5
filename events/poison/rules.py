"""Poison's events: how its options, deals and moves become events, and what a seat may see.

Every rule is the core's: a deal comes from `core.seeded_deal`, a move's consequences (an
overflow, a scored round, the end of the game) from what the engine reports. The live
service records these events, and replay demands exactly these, so a log can never say
something the rules did not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import islice
from typing import Any

from core import Game, Move, Played, RuleError, replay, seeded_deal
from core.rulesets import POISON
from events.codec import Event, Player
from events.poison.schema import (
    CODEC,
    CardPlayed,
    CauldronOverflowed,
    GameCreated,
    GameFinished,
    RoundScored,
    RoundStarted,
    Rules,
    TakenCounts,
)
from events.ruleset import EventRules, InvalidDeal


class CannotDeal(RuntimeError):
    """A game without a seed cannot deal its next round by itself: its log must say."""


def round_started(game: Game) -> RoundStarted:
    """The event of the round just dealt, with every hand: the store keeps all facts."""
    return RoundStarted(
        round=game.round,
        dealer=game.dealer,
        hands=tuple(game.hand(seat) for seat in range(game.players)),
        set_aside=game.set_aside(),
    )


#: What a move can cause besides its own card_played (see consequences): a batch rebuild
#: skips these, the core working out their effect from the moves.
CAUSED: frozenset[type[Event]] = frozenset({CauldronOverflowed, RoundScored, GameFinished})


def consequences(game: Game, round: int, played: Played) -> list[Event]:
    """The events a move that was just applied to `game` causes, its own first; a round
    that starts afterwards is not among them (its deal is a fact of its own), nor the
    game_finished that EventRules.play adds."""
    caused: list[Event] = [
        CardPlayed(round=round, seat=played.seat, card=played.card, cauldron=played.cauldron, total=played.total)
    ]
    if played.taken:
        caused.append(CauldronOverflowed(round=round, seat=played.seat, cauldron=played.cauldron, taken=played.taken))
    if played.round_over:
        result = game.results()[-1]
        caused.append(
            RoundScored(
                round=result.round,
                scores=result.scores,
                taken=tuple(TakenCounts(**pile._asdict()) for pile in result.taken),
                discarded=result.discarded,
            )
        )
    return caused


class PoisonEvents(EventRules):
    ruleset = POISON
    codec = CODEC
    move_type = Move
    deal_type = RoundStarted
    played_type = CardPlayed

    def create(
        self, game_id: str, players: tuple[Player, ...], seed: int, options: Mapping[str, Any]
    ) -> tuple[GameCreated, Game]:
        self.check_options(options)
        rules = Rules(cauldrons=options.get("cauldrons", "dynamic"))
        game = Game(len(players), rounds=options.get("rounds"), cauldrons=rules.cauldrons)
        return GameCreated(game_id=game_id, players=players, rounds=game.rounds, rules=rules, seed=seed), game

    def start(self, created: Event) -> Game:
        assert isinstance(created, GameCreated)
        return Game(len(created.players), rounds=created.rounds, cauldrons=created.rules.cauldrons)

    def stage(self, game: Game) -> str:
        return f"round {game.round}"

    def seeded_deal(self, game: Game, seed: int | None) -> tuple[Any, ...]:
        if seed is None:
            raise CannotDeal(f"round {game.round} of a game without a seed must be dealt by its log")
        return seeded_deal(seed, game.players, game.round)

    def dealt_event(self, game: Game) -> RoundStarted:
        return round_started(game)

    def recorded_deal(self, game: Game, event: Event) -> tuple[Any, ...] | None:
        assert isinstance(event, RoundStarted)
        if (event.round, event.dealer) != (game.round, game.dealer):
            raise InvalidDeal(
                f"round {game.round} is due, dealt by seat {game.dealer}: not round {event.round} by {event.dealer}"
            )
        hands = [hand for hand in event.hands if hand is not None]
        if event.set_aside is None or len(hands) < len(event.hands):
            return None
        return hands, event.set_aside

    def caused(self, game: Game, seat: int, move: Any) -> list[Event]:
        card, cauldron = move
        round_now = game.round
        return consequences(game, round_now, game.play(seat, card, cauldron))

    def describe(self, move: Any) -> str:
        card, cauldron = move
        return f"{card} into cauldron {cauldron}"

    def redact(self, event: Event, seat: int | None) -> Event:
        if not isinstance(event, RoundStarted):
            return event
        return RoundStarted(
            round=event.round,
            dealer=event.dealer,
            hands=tuple(hand if index == seat else None for index, hand in enumerate(event.hands)),
            set_aside=None,
        )

    def batched(self, created: Any, events: Sequence[tuple[int, Event]]) -> Any | None:
        moves: list[tuple[int, str, int]] = []
        deals: list[tuple[Any, Any]] = []
        for _, event in islice(events, 1, None):
            if type(event) is CardPlayed:
                moves.append((event.seat, event.card, event.cauldron))
            elif type(event) is RoundStarted:
                deals.append((event.hands, event.set_aside))
            elif type(event) not in CAUSED:
                return None
        try:
            replayed = replay(
                len(created.players), moves, rounds=created.rounds, cauldrons=created.rules.cauldrons, deals=deals
            )
        except RuleError:
            return None
        return replayed.game if replayed.error is None and replayed.applied == len(moves) else None

    def summary(self, game: Game) -> dict[str, str | int]:
        return {"round": game.round, "rounds": game.rounds}


#: Poison's facet of the event layer, where core.rulesets.FACETS says the layer finds it.
EVENTS = PoisonEvents()
