"""The arguments `simulate` and `play` share: the ruleset, its options and its bots, all
read from the registry (core.rulesets), so a new ruleset or option needs no new flag here."""

from __future__ import annotations

import argparse
from typing import Any, NamedTuple

from core import RuleError
from core.errors import PLAYOUT_BOUNDS, SEARCH_BOT, SEED_LIMIT, THREAD_BOUNDS
from core.rulesets import DEFAULT_RULESET, RULESETS, Option, Ruleset, get_ruleset
from service.commands import CommandError

#: How --seed is described in every command's help: the one range of seeds, as the API takes it.
SEED_RANGE = f"0 to {SEED_LIMIT:,}"


def whole_number(text: str) -> int:
    """An argparse type: a whole number, said in words when it is not one (argparse would
    say "invalid int value")."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number, not '{text}'") from None


def seed(text: str) -> int:
    """An argparse type: a seed in the one range every layer takes (core.errors.SEED_LIMIT)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= SEED_LIMIT:
        raise argparse.ArgumentTypeError(f"a seed is a whole number from {SEED_RANGE}, not '{text}'")
    return value


def _every_option() -> dict[str, tuple[Option, list[str]]]:
    """Each option of any ruleset by name, with the rulesets that have it."""
    options: dict[str, tuple[Option, list[str]]] = {}
    for ruleset in RULESETS.values():
        for option in ruleset.options:
            options.setdefault(option.name, (option, []))[1].append(ruleset.name)
    return options


def _dest(name: str) -> str:
    return "option_" + name.replace("-", "_")


def add_ruleset(command: argparse.ArgumentParser) -> None:
    """--ruleset, and a flag for every option of every ruleset (refused by those without it)."""
    command.add_argument(
        "--ruleset",
        default=DEFAULT_RULESET,
        help=f"the game: {', '.join(RULESETS)} (default {DEFAULT_RULESET})",
    )
    for name, (option, owners) in _every_option().items():
        default = "" if option.default is None else f"; default {option.default}"
        command.add_argument(
            f"--{name}",
            dest=_dest(name),
            type=whole_number if option.bounds is not None else str,
            metavar=name.upper(),
            help=f"--ruleset {' or '.join(owners)} only: {option.description}{default}",
        )


def add_seats(command: argparse.ArgumentParser, bots: str, seats: str, *, engine: bool = False) -> None:
    """--players (default 4) and --bots (`bots` by default), their bounds and names per ruleset;
    with `engine`, every bot the engine plays (the search bot too, with its strength)."""
    bounds = ", ".join(f"{r.name} {r.players[0]} to {r.players[1]}" for r in RULESETS.values())
    names = "; ".join(f"{r.name}: {', '.join(r.engine_bots if engine else r.bots)}" for r in RULESETS.values())
    if engine:
        names += f"; {STRENGTH_HELP}"
    command.add_argument("--players", type=whole_number, default=4, help=f"how many seats (default 4; {bounds})")
    command.add_argument(
        "--bots",
        default=bots,
        help=f"one bot for every {seats}, or one per {seats}, comma-separated ({names}; default {bots})",
    )


def ruleset_of(args: argparse.Namespace) -> Ruleset:
    try:
        return get_ruleset(args.ruleset)
    except RuleError as error:
        raise CommandError(f"--ruleset: {error}") from None


def options_of(args: argparse.Namespace, ruleset: Ruleset) -> dict[str, Any]:
    """The options given on the command line, refusing those the ruleset does not have."""
    own = {option.name for option in ruleset.options}
    given: dict[str, Any] = {}
    for name in _every_option():
        value = getattr(args, _dest(name))
        if value is None:
            continue
        if name not in own:
            has = ", ".join(f"--{option.name}" for option in ruleset.options)
            why = f"its options are {has}" if has else "it has none"
            raise CommandError(f"--{name} is not an option of --ruleset {ruleset.name} ({why})")
        given[name] = value
    return given


def describe_options(ruleset: Ruleset, given: dict[str, Any]) -> str:
    """Every option of the ruleset as it applies: given, or its default."""
    shown = []
    for option in ruleset.options:
        value = given.get(option.name, option.default)
        shown.append(f"{option.name} {'default' if value is None else value}")
    return ", ".join(shown)


def check_players(ruleset: Ruleset, players: int) -> None:
    fewest, most = ruleset.players
    if not ruleset.accepts_players(players):
        raise CommandError(f"--ruleset {ruleset.name} is played by {fewest} to {most} players, not {players}")


def bots_for(spec: str, ruleset: Ruleset, count: int, *, of: str, each: str) -> list[str]:
    """One bot per seat from `spec` (one name for all, or one per seat); `of` and `each`
    name the seats in messages ("players", "seat")."""
    bots = [name.strip() for name in spec.split(",")]
    if len(bots) == 1:
        bots *= count
    if len(bots) != count:
        raise CommandError(f"--bots names {len(bots)} bots for {count} {of}: give one, or one per {each}")
    unknown = [bot for bot in bots if bot not in ruleset.bots]
    if unknown:
        raise CommandError(f"unknown bot '{unknown[0]}': choose from {', '.join(ruleset.bots)}")
    return bots


#: How the search bot's strength is written: its playouts per move after a colon. How long
#: a move takes is no figure here (it depends on the playouts and the machine, and would
#: rot): docs/performance.md measures it, against the bar the documents state.
STRENGTH_HELP = (
    f"{SEARCH_BOT}:N searches N playouts a move, {PLAYOUT_BOUNDS[0]} to {PLAYOUT_BOUNDS[1]:,} "
    f"(default: {', '.join(f'{r.name} {r.default_playouts:,}' for r in RULESETS.values())}; "
    "a move's time grows with N: docs/performance.md)"
)


class Seat(NamedTuple):
    """A seat's bot as the engine plays it: its name, and the search bot's playouts a move
    (None: the ruleset's default, or a bot that does not search)."""

    bot: str
    playouts: int | None = None

    def __str__(self) -> str:
        return self.bot if self.playouts is None else f"{self.bot}:{self.playouts}"


def seat_of(name: str, ruleset: Ruleset) -> Seat:
    """A bot named as `simulate` and `ladder` take it: `greedy`, `mcts`, `mcts:2000`."""
    bot, strong, strength = (part.strip() for part in name.partition(":"))
    if bot not in ruleset.engine_bots:
        raise CommandError(f"unknown bot '{bot}': choose from {', '.join(ruleset.engine_bots)}")
    if not strong:
        return Seat(bot)
    if bot != SEARCH_BOT:
        raise CommandError(f"'{name}': only {SEARCH_BOT} takes a strength ({STRENGTH_HELP})")
    try:
        playouts = int(strength)
    except ValueError:
        playouts = 0
    if not PLAYOUT_BOUNDS[0] <= playouts <= PLAYOUT_BOUNDS[1]:
        raise CommandError(f"'{name}': {STRENGTH_HELP}, not '{strength}'")
    return Seat(bot, playouts)


def engine_seats_for(spec: str, ruleset: Ruleset, count: int, *, of: str, each: str) -> list[Seat]:
    """bots_for with every bot the engine plays, the search bot's strength included."""
    names = [name.strip() for name in spec.split(",")]
    if len(names) == 1:
        names *= count
    if len(names) != count:
        raise CommandError(f"--bots names {len(names)} bots for {count} {of}: give one, or one per {each}")
    return [seat_of(name, ruleset) for name in names]


#: The bounds of --jobs: the threads (or, for replay, processes) one command runs on.
JOBS = THREAD_BOUNDS


def add_seed_and_jobs(command: argparse.ArgumentParser) -> None:
    """--seed (default 0) and --jobs (threads, default 1) of the commands that play games in
    the core: simulate and ladder."""
    command.add_argument(
        "--seed", type=seed, default=0, help=f"{SEED_RANGE} (default 0): the same seed, the same games"
    )
    command.add_argument(
        "--jobs",
        type=whole_number,
        default=1,
        help=f"threads to play the games on at once, {JOBS[0]} to {JOBS[1]} (default 1): the figures do not change",
    )


def check_jobs(jobs: int) -> None:
    if not JOBS[0] <= jobs <= JOBS[1]:
        raise CommandError(f"--jobs is {JOBS[0]} to {JOBS[1]}, not {jobs:,}")
