"""Every game the product plays, described as data, and the registry that finds one by name.

A ruleset says what it is (its name, player bounds, card codes, options, bots, the refusals
its moves can meet) and where its rules are (a compiled engine and a plain reference with the
same interface). The layers above look a ruleset up here by the name a game was created with
and ask it; they never branch on the name by hand. Each fact here is read from the engine
that enforces it, so a bound is declared once, in the rules, and shown everywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

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


@dataclass(frozen=True)
class Ruleset:
    name: str
    title: str
    summary: str
    players: tuple[int, int]  # the fewest and the most seats
    card_codes: tuple[str, ...]  # canonical order
    card_pattern: str  # a regular expression matching exactly the card codes
    #: The bots both implementations play, the plain reference too (`random`, `greedy`).
    bots: tuple[str, ...]
    #: Every bot the compiled engine plays, wherever a seat may be played by a bot (the
    #: service, `poison play`, `simulate`, `ladder`): `bots` and the search bot `mcts`.
    engine_bots: tuple[str, ...]
    #: The playouts of one decision of the search bot when none are given.
    default_playouts: int
    options: tuple[Option, ...]
    lowest_wins: bool
    #: The codes of moves the rules refuse (core.errors.MoveRefused) in this game.
    refusals: tuple[str, ...]
    engine: ModuleType
    reference: ModuleType

    def accepts_players(self, count: int) -> bool:
        return self.players[0] <= count <= self.players[1]

    def option(self, name: str) -> Option:
        return next(option for option in self.options if option.name == name)


POISON = Ruleset(
    name="poison",
    title="Poison",
    summary="Three cauldrons; a cauldron that goes over 13 makes its player take its cards. Lowest total wins.",
    players=engine.PLAYER_BOUNDS,
    card_codes=engine.CARD_CODES,
    card_pattern=r"^([RBP][12457]|G4)$",
    bots=engine.BOTS,
    engine_bots=engine.ENGINE_BOTS,
    default_playouts=engine.DEFAULT_PLAYOUTS,
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
    lowest_wins=True,
    refusals=("card_not_in_hand", "illegal_cauldron"),
    engine=engine,
    reference=reference,
)

POT = Ruleset(
    name="pot",
    title="The pot game",
    summary="One shared pot of toxic cards: close it to score, or let it explode above 14. Highest total wins.",
    players=pot_engine.PLAYER_BOUNDS,
    card_codes=pot_engine.CARD_CODES,
    card_pattern=r"^T[0-6]$",
    bots=pot_engine.BOTS,
    engine_bots=pot_engine.ENGINE_BOTS,
    default_playouts=pot_engine.DEFAULT_PLAYOUTS,
    options=(),
    lowest_wins=False,
    refusals=("card_not_in_hand", "cannot_close"),
    engine=pot_engine,
    reference=pot_reference,
)

#: Every ruleset by name; the first is the default of a game that names none.
RULESETS: dict[str, Ruleset] = {ruleset.name: ruleset for ruleset in (POISON, POT)}
DEFAULT_RULESET = POISON.name


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
