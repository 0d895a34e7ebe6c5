"""What the tests written once for every ruleset need to know of a ruleset that its registry
entries (core.rulesets.Ruleset, events.ruleset.EventRules) do not say: how a tester picks
moves so that a log holds every kind of event, what a reader may see of each public event
while a game is active, which parts of an answer hold hidden cards, where a log can stop
inside a move, and the tamperings only its own events allow.

A ruleset registered in core.rulesets.RULESETS without an entry in FACTS fails every one of
those tests, naming this file (see `facts`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import msgspec
import pytest

from core.rulesets import RULESETS, Ruleset
from events.codec import Event, GameFinished, Player
from events.play import LoggedGame, create_game, play_move
from events.poison.schema import CardPlayed, CauldronOverflowed, RoundScored, RoundStarted
from events.pot.schema import CardsDrawn, PotCardPlayed, PotClosed, PotExploded, PotStarted
from events.replay import rebuild
from events.rulesets import rules_for

Log = list[Event]
#: Run a test once for each ruleset (as OpenSpiel's generic tests run over every game).
EVERY_RULESET = pytest.mark.parametrize("ruleset", list(RULESETS.values()), ids=list(RULESETS))
#: Run a test once for each ruleset's compiled engine and plain reference: (ruleset, rules).
EVERY_IMPLEMENTATION = pytest.mark.parametrize(
    ("ruleset", "rules"),
    [(ruleset, getattr(ruleset, side)) for ruleset in RULESETS.values() for side in ("engine", "reference")],
    ids=[f"{name}-{side}" for name in RULESETS for side in ("engine", "reference")],
)


class Tampered(NamedTuple):
    """A log changed at `index` (0-based: the refusal names version index + 1); `says`, a
    part of the reason the refusal must give, where there is one to demand."""

    index: int
    log: Log
    says: str | None = None


@dataclass(frozen=True)
class Facts:
    #: A legal move of `game` (an engine's or a reference's game), as a tester plays it.
    pick: Callable[[Any, random.Random], tuple[Any, ...]]
    #: The data of a public event of type `kind` as `reader` (None: the public) may read it
    #: while the game is active; game_created's seed is hidden for every ruleset (`redacted`).
    redact: Callable[[str, dict[str, Any], int | None], dict[str, Any]]
    #: The events whose data `redact` changes for some reader.
    redacted_types: tuple[str, ...]
    #: Keys of an answer that hold hidden cards: while the game is active, null (or, where
    #: the key maps to True, a count of them).
    hidden_keys: Mapping[str, bool]
    #: The keys that mark a seat's own cards in an answer (the cards under `cards`): while
    #: the game is active, only that seat sees them.
    own_cards: frozenset[str] | None
    #: Where a log of the ruleset can stop inside a move (indexes: the log[:index] stops
    #: before that event), besides before its game_finished.
    cuts: Callable[[Log], list[int]]
    #: The tamperings only this ruleset's events allow (see `tamperings` for the others).
    tamperings: Callable[[Log], dict[str, Tampered]]
    #: The options of a game whose log holds every kind of event the tamperings need.
    options: Mapping[str, Any] = field(default_factory=dict)


def first(
    log: Log, kind: type | tuple[type, ...], where: Callable[[Any], bool] = lambda _: True, after: int = 0
) -> int:
    return next(i for i, event in enumerate(log) if isinstance(event, kind) and where(event) and i >= after)


def replaced(log: Log, index: int, event: Event) -> Log:
    return [*log[:index], event, *log[index + 1 :]]


def changed(log: Log, index: int, **fields: Any) -> Log:
    return replaced(log, index, msgspec.structs.replace(log[index], **fields))


def own_hand(hands: list[Any], reader: int | None) -> list[Any]:
    """Dealt hands as `reader` sees them while the game is active: its own, no other."""
    return [hand if seat == reader else None for seat, hand in enumerate(hands)]


# ---- Poison ------------------------------------------------------------------------------


def poison_redact(kind: str, data: dict[str, Any], reader: int | None) -> dict[str, Any]:
    if kind == "round_started":
        return {**data, "hands": own_hand(data["hands"], reader), "set_aside": None}
    return data


def poison_tamperings(log: Log) -> dict[str, Tampered]:
    played = first(log, CardPlayed)
    overflow = first(log, CauldronOverflowed)
    scored = first(log, RoundScored)
    second_round = first(log, RoundStarted, after=2)
    n = len(log[0].players)
    return {
        "a wrong total": Tampered(played, changed(log, played, total=log[played].total + 1)),
        "an overflow that took other cards": Tampered(overflow, changed(log, overflow, taken=("G4",))),
        "an overflow removed": Tampered(overflow, [*log[:overflow], *log[overflow + 1 :]]),
        "a score changed": Tampered(scored, changed(log, scored, scores=(0,) * n)),
        "a round dealt by the wrong dealer": Tampered(second_round, changed(log, second_round, dealer=0)),
        "a game_finished in place of the next round's deal": Tampered(
            scored + 1, replaced(log, scored + 1, GameFinished(totals=(0,) * n, winners=(0,)))
        ),
    }


# ---- the pot game ------------------------------------------------------------------------


def pot_pick(game: Any, rng: random.Random) -> tuple[Any, ...]:
    """A legal move, closing a quarter of the times it may, so that a log holds closings,
    explosions, new pots and draws."""
    legal = game.legal_moves()
    closing = [move for move in legal if move.close]
    if closing and rng.random() < 0.25:
        return tuple(rng.choice(closing))
    return tuple(rng.choice([move for move in legal if not move.close]))


def pot_redact(kind: str, data: dict[str, Any], reader: int | None) -> dict[str, Any]:
    if kind == "cards_dealt":
        return {**data, "hands": own_hand(data["hands"], reader), "draw_pile": None}
    if kind == "cards_drawn" and data["seat"] != reader:
        return {**data, "cards": None}
    return data


def pot_tamperings(log: Log) -> dict[str, Tampered]:
    played = first(log, PotCardPlayed, lambda event: log[0].players[event.seat].bot is None)
    closed = first(log, PotClosed)
    started = first(log, PotStarted)
    drawn = first(log, CardsDrawn)
    exploded = first(log, PotExploded)
    seed = log[0].seed
    other_cards = tuple("T6" if card != "T6" else "T0" for card in log[drawn].cards)
    return {
        "a wrong toxicity": Tampered(played, changed(log, played, toxicity=log[played].toxicity + 1)),
        "a pot_closed with wrong points": Tampered(closed, changed(log, closed, points=log[closed].points + 1)),
        "a missing pot_started": Tampered(started, [*log[:started], *log[started + 1 :]]),
        "a cards_drawn with other cards": Tampered(drawn, changed(log, drawn, cards=other_cards)),
        "a close on an exploding pot": Tampered(exploded - 1, changed(log, exploded - 1, close=True), "cannot_close"),
        "the draw pile reordered": Tampered(
            1, changed(log, 1, draw_pile=tuple(reversed(log[1].draw_pile))), f"seed {seed}"
        ),
    }


FACTS: dict[str, Facts] = {
    "poison": Facts(
        pick=lambda game, rng: tuple(rng.choice(game.legal_moves())),
        redact=poison_redact,
        redacted_types=("round_started",),
        hidden_keys={"set_aside": False},
        own_cards=None,
        cuts=lambda log: [first(log, RoundScored), first(log, RoundScored) + 1],
        tamperings=poison_tamperings,
        options={"rounds": 2},
    ),
    "pot": Facts(
        pick=pot_pick,
        redact=pot_redact,
        redacted_types=("cards_dealt", "cards_drawn"),
        hidden_keys={"draw_pile": True},
        own_cards=frozenset({"seat", "count", "cards"}),
        cuts=lambda log: [first(log, PotClosed, after=2), first(log, CardsDrawn)],
        tamperings=pot_tamperings,
    ),
}


def facts(ruleset: Ruleset) -> Facts:
    """The facts of `ruleset`; a ruleset without any fails loudly, saying where to add them."""
    found = FACTS.get(ruleset.name)
    assert found is not None, f"tests/rulesets.py has no FACTS for the ruleset {ruleset.name!r}: add them"
    return found


# ---- what every ruleset shares ------------------------------------------------------------


def seats(n: int, bots: Mapping[int, str] | None = None) -> tuple[Player, ...]:
    bots = bots or {}
    return tuple(Player(seat=seat, name=f"player{seat}", bot=bots.get(seat)) for seat in range(n))


def played_log(
    ruleset: Ruleset,
    n: int,
    *,
    seed: int,
    bots: Mapping[int, str] | None = None,
    options: Mapping[str, Any] | None = None,
    moves: int | None = None,
    game_id: str = "g-test",
) -> tuple[Log, LoggedGame]:
    """A game's log played through events.play with the ruleset's `pick` (drawn from
    `seed`), to its end or for `moves` moves of people."""
    log, logged = create_game(ruleset.name, game_id, seats(n, bots), seed=seed, options=options or {})
    pick, rng = facts(ruleset).pick, random.Random(seed)
    done = 0
    while not logged.finished and (moves is None or done < moves):
        caused, logged = play_move(logged, logged.game.turn, pick(logged.game, rng))
        log += caused
        done += 1
    return log, logged


def unseeded(created: Event) -> Event:
    """A game_created as a log written by hand, with its deals and no seed, has it: without
    a seed it commits to nothing (no salt, no seed_commitment)."""
    return msgspec.structs.replace(created, seed=None, salt=None, seed_commitment=None)


def numbered(log: Log) -> list[tuple[int, Event]]:
    return list(enumerate(log, start=1))


def redacted(ruleset: Ruleset, event: dict[str, Any], reader: int | None) -> dict[str, Any]:
    """A public event of a whole log as `reader` may read it while the game is active: the
    test's own reading of the contract, independent of the service's."""
    data = dict(event["data"])
    if event["type"] == "game_created":
        data["seed"] = data["salt"] = None  # the commitment alone shows
    return {**event, "data": facts(ruleset).redact(event["type"], data, reader)}


def tamperings(ruleset: Ruleset, log: Log) -> dict[str, Tampered]:
    """Every way to spoil a finished seeded `log` of `ruleset` that has a bot at seat 1 and
    people elsewhere: those any ruleset's log allows, then the ruleset's own."""
    rules = rules_for(ruleset.name)
    created, deal = log[0], log[1]
    n, seed = len(created.players), created.seed
    person = first(log, rules.played_type, lambda e: created.players[e.seat].bot is None)
    middle = first(log, rules.played_type, after=6)
    hand = rebuild(numbered(log[:person])).game.hand(log[person].seat)
    absent = next(card for card in ruleset.card_codes if card not in hand)
    bot_seat = next(player.seat for player in created.players if player.bot is not None)
    by_bot = first(log, rules.played_type, lambda e: e.seat == bot_seat)
    before_bot = rebuild(numbered(log[:by_bot])).game
    recorded = rules.move_of(log[by_bot])[1]
    other = next(move for move in before_bot.legal_moves() if tuple(move) != tuple(recorded))
    forged = rules.play(before_bot.copy(), bot_seat, other)[0]
    another_deal = rules.deal(rules.start(created), seed + 1)
    swapped = (deal.hands[1], deal.hands[0], *deal.hands[2:])
    generic = {
        "a card played by the wrong seat": Tampered(middle, changed(log, middle, seat=(log[middle].seat + 1) % n)),
        "a card the seat does not hold": Tampered(person, changed(log, person, card=absent)),
        "an event doubled": Tampered(person + 1, [*log[: person + 1], log[person], *log[person + 1 :]]),
        "a second game_created": Tampered(person, replaced(log, person, created)),
        "a second deal in place of a move": Tampered(person, replaced(log, person, deal)),
        "the first deal made twice": Tampered(2, [created, deal, deal, *log[2:]]),
        "a game_finished too early": Tampered(
            person + 1, [*log[: person + 1], GameFinished(totals=(0,) * n, winners=tuple(range(n)))]
        ),
        "another seed's deal": Tampered(1, replaced(log, 1, another_deal), f"seed {seed}"),
        "hands swapped between seats": Tampered(1, changed(log, 1, hands=swapped)),
        "the deal as a seat reads it while the game is active": Tampered(
            1, replaced(log, 1, rules.visible(deal, 0, False))
        ),
        "the seed changed (the commitment is another seed's)": Tampered(
            0, changed(log, 0, seed=seed + 1), "the seed, the salt or the commitment was changed"
        ),
        "the salt changed": Tampered(
            0, changed(log, 0, salt=created.salt[::-1]), "the seed, the salt or the commitment was changed"
        ),
        "the commitment changed": Tampered(
            0,
            changed(log, 0, seed_commitment=created.seed_commitment[::-1]),
            "the seed, the salt or the commitment was changed",
        ),
        "the salt removed": Tampered(0, changed(log, 0, salt=None), "no salt"),
        "the seed removed, the commitment kept": Tampered(0, changed(log, 0, seed=None), "no seed"),
        "the commitment removed, the salt kept": Tampered(
            0, changed(log, 0, seed_commitment=None), "no seed_commitment"
        ),
        "the seed and salt hidden, as an active game's log shows them": Tampered(
            0, changed(log, 0, seed=None, salt=None), "once the game is over"
        ),
        "a bot move the bot would not make": Tampered(
            by_bot, [*log[:by_bot], forged], f"{created.players[bot_seat].bot} bot"
        ),
    }
    for name, other_ruleset in RULESETS.items():
        if name != ruleset.name:
            foreign_log, _ = played_log(other_ruleset, other_ruleset.players[0], seed=seed, moves=1)
            foreign = foreign_log[first(foreign_log, rules_for(name).played_type)]
            generic[f"a card_played of {name} in its log"] = Tampered(person, replaced(log, person, foreign))
    specific = facts(ruleset).tamperings(log)
    assert not generic.keys() & specific.keys()
    return generic | specific


def incomplete_cuts(ruleset: Ruleset, log: Log) -> list[int]:
    """Where a finished `log` can stop inside a move: the ruleset's own places, then before
    its game_finished."""
    return [*facts(ruleset).cuts(log), len(log) - 1]
