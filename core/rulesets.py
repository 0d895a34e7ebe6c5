"""Every game the product plays, described as data, and the registry that finds one by name.

A ruleset says what it is (its name, player bounds, card codes, options, bots, the refusals
its moves can meet), where its rules are (a compiled engine and a plain reference with the
same interface), and where each layer above finds its facet of the game (its events, its
service, its screen, its browser table: `FACETS`, by convention `<layer>/<name>/`). This is
the one registry of the games: every layer builds its own view of them from it, once, at
import (`facets_of`), and never branches on a name by hand. Each fact here is read from the
engine that enforces it, so a bound is declared once, in the rules, and shown everywhere else.

A ruleset defined elsewhere (the tests' own third game) joins with `register`, before any
layer has read the registry.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from core import errors as errors
from core.poison import engine, reference
from core.pot import engine as pot_engine
from core.pot import reference as pot_reference


@dataclass(frozen=True)
class Option:
    """A choice made when a game is created. `choices` for a word, `bounds` for a number;
    `default` None means "derived from the players" (it says how in `description`)."""

    name: str
    description: str
    default: str | int | None
    choices: tuple[str, ...] = ()
    bounds: tuple[int, int] | None = None


@dataclass(frozen=True, kw_only=True)
class Ruleset:
    """A game: what the registry is told of it, and what it reads from its rules. The
    bounds, card codes, bots and who wins are each declared once, by the engine (and its
    reference) that enforces them, and copied here when the entry is made."""

    name: str
    title: str
    summary: str
    options: tuple[Option, ...] = ()
    card_pattern: str  # a regular expression matching exactly the card codes
    #: The codes of moves the rules refuse (core.errors.MoveRefused) in this game.
    refusals: tuple[str, ...]
    engine: ModuleType
    reference: ModuleType
    #: Where a layer finds its facet of this game, for a layer whose place is not the one
    #: FACETS derives from the name; None: the game has no such facet (a test's game has no
    #: browser table).
    facets: Mapping[str, str | None] = field(default_factory=dict)
    #: What the engine does not offer of what compiled engines do, for generic code to ask
    #: before it calls (ENGINE_ABILITIES); empty for a compiled engine.
    lacks: frozenset[str] = frozenset()
    # ---- read from the rules ----
    players: tuple[int, int] = field(init=False)  # the fewest and the most seats
    card_codes: tuple[str, ...] = field(init=False)  # canonical order
    #: The bots both implementations play, the plain reference too (`random`, `greedy`).
    bots: tuple[str, ...] = field(init=False)
    #: Every bot the compiled engine plays, wherever a seat may be played by a bot (the
    #: service, `poison play`, `simulate`, `ladder`): `bots` and the search bot `mcts`.
    engine_bots: tuple[str, ...] = field(init=False)
    #: The playouts of one decision of the search bot when none are given.
    default_playouts: int = field(init=False)
    lowest_wins: bool = field(init=False)

    def __post_init__(self) -> None:
        engine = self.engine
        read = {
            "players": engine.PLAYER_BOUNDS,
            "card_codes": engine.CARD_CODES,
            "bots": engine.BOTS,
            "engine_bots": engine.ENGINE_BOTS,
            "default_playouts": engine.DEFAULT_PLAYOUTS,
            # The plain reference's Game says it (core.plain.PlainGame); the engine agrees,
            # as the fidelity tests prove.
            "lowest_wins": self.reference.Game.lowest_wins,
        }
        for name, value in read.items():
            object.__setattr__(self, name, value)  # frozen: set once, here

    def facet(self, layer: str) -> str | None:
        """Where `layer` finds this game's facet: "module:attribute" (or, for the browser
        table, the page's module), or None if it has none."""
        if layer in self.facets:
            return self.facets[layer]
        return FACETS[layer].format(name=self.name)

    def can(self, ability: str) -> bool:
        """Whether the engine offers `ability` (one of ENGINE_ABILITIES)."""
        assert ability in ENGINE_ABILITIES, ability
        return ability not in self.lacks

    def accepts_players(self, count: int) -> bool:
        return self.players[0] <= count <= self.players[1]

    def option(self, name: str) -> Option:
        return next(option for option in self.options if option.name == name)


POISON = Ruleset(
    name="poison",
    title="Poison",
    summary="Three cauldrons; a cauldron that goes over 13 makes its player take its cards. Lowest total wins.",
    options=(
        Option(
            "rounds",
            "how many rounds are played (default: one per player, so everyone deals once)",
            None,
            bounds=engine.ROUND_BOUNDS,
        ),
        Option(
            "cauldrons",
            "'dynamic': a cauldron takes the colour of its potions; 'fixed': red, blue, purple all game",
            "dynamic",
            choices=engine.CAULDRON_RULES,
        ),
    ),
    card_pattern=r"^([RBP][12457]|G4)$",
    refusals=("card_not_in_hand", "illegal_cauldron"),
    engine=engine,
    reference=reference,
)

POT = Ruleset(
    name="pot",
    title="The pot game",
    summary="One shared pot of toxic cards: close it to score, or let it explode above 14. Highest total wins.",
    card_pattern=r"^T[0-6]$",
    refusals=("card_not_in_hand", "cannot_close"),
    engine=pot_engine,
    reference=pot_reference,
)

#: Where each layer finds its facet of a game, unless the game's entry says otherwise:
#: "module:attribute", `{name}` the ruleset's name. A new game is one folder per layer,
#: named after it, and its entry below.
FACETS: dict[str, str] = {
    "events": "events.{name}.rules:EVENTS",  # its events (events.ruleset.EventRules)
    "service": "service.{name}.rules:SERVICE",  # its requests and answers (service.ruleset.ServiceRules)
    "screen": "service.{name}.screen:SCREEN",  # what the terminal shows (service.commands.screens.Screen)
    "table": "{name}.js",  # the browser table's module, service/static/js/ (its games.js imports it)
}
#: What a compiled engine offers beyond the Engine protocol's rules, which a ruleset may lack:
#: `simulate` (many games in C, the CLI's simulate and ladder), `search` (the mcts bot).
ENGINE_ABILITIES = frozenset({"simulate", "search"})

#: Every ruleset by name; the first is the default of a game that names none.
RULESETS: dict[str, Ruleset] = {ruleset.name: ruleset for ruleset in (POISON, POT)}
DEFAULT_RULESET = POISON.name
_read_by: set[str] = set()  # the layers that have built their registry from RULESETS


def register(ruleset: Ruleset) -> None:
    """Add a ruleset defined outside core (the tests' third game). It must come before any
    layer builds its registry (they do so once, at import, so that no request looks a facet
    up), else that layer would never know it."""
    if ruleset.name in RULESETS:
        raise ValueError(f"a ruleset called {ruleset.name!r} is registered already")
    if _read_by:
        raise RuntimeError(
            f"register {ruleset.name!r} before importing the layers: {', '.join(sorted(_read_by))} read the registry"
        )
    RULESETS[ruleset.name] = ruleset


def facets_of(layer: str) -> dict[str, Any]:
    """Each registered ruleset's facet for `layer`, by name (those that have one), imported
    once: what each layer's registry is made of."""
    _read_by.add(layer)
    found = {}
    for ruleset in RULESETS.values():
        where = ruleset.facet(layer)
        if where is not None:
            module, _, attribute = where.partition(":")
            found[ruleset.name] = getattr(importlib.import_module(module), attribute)
    return found


def get_ruleset(name: object) -> Ruleset:
    """The ruleset called `name`, or an `unknown_ruleset` refusal naming those that exist."""
    ruleset = RULESETS.get(name) if isinstance(name, str) else None
    if ruleset is None:
        raise errors.rule_error(
            "unknown_ruleset", f"{errors.quoted(name)} is not a ruleset: choose one of {', '.join(map(repr, RULESETS))}"
        )
    return ruleset


def bot_seed(seed: int, step: int) -> int:
    """The seed a bot draws its move from at `step` of a game dealt from `seed` (the service
    and the terminal both count steps as the events of the game's log so far). Random bots
    are thus reproducible from the game's seed alone, and replay can check every bot move."""
    return engine.derive_seed(seed, step)
