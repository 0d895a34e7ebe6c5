"""The arguments `simulate` and `play` share: the ruleset, its options and its bots, all
read from the registry (core.rulesets), so a new ruleset or option needs no new flag here."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import Any, NamedTuple

from core import RuleError
from core.errors import CLOCK_BOUNDS, PLAYOUT_BOUNDS, SEARCH_BOT, SEED_LIMIT, THREAD_BOUNDS
from core.rulesets import DEFAULT_RULESET, RULESETS, Option, Ruleset, get_ruleset
from service.commands import CommandError
from service.i18n import words


def seed_range() -> str:
    """How --seed is described in every command's help: the one range of seeds, as the API takes it."""
    return words()("cli.range", low=0, high=SEED_LIMIT)


def whole_number(text: str) -> int:
    """An argparse type: a whole number, said in words when it is not one (argparse would
    say "invalid int value")."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(words()("cli.error.whole_number", text=text)) from None


def seed(text: str) -> int:
    """An argparse type: a seed in the one range every layer takes (core.errors.SEED_LIMIT)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= SEED_LIMIT:
        raise argparse.ArgumentTypeError(words()("cli.error.seed", range=seed_range(), text=text))
    return value


def clock_seconds(text: str) -> int:
    """An argparse type: a new game's seconds per move, in the bounds the API takes
    (core.errors.CLOCK_BOUNDS)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not CLOCK_BOUNDS[0] <= value <= CLOCK_BOUNDS[1]:
        raise argparse.ArgumentTypeError(
            words()("cli.error.clock", low=CLOCK_BOUNDS[0], high=CLOCK_BOUNDS[1], text=text)
        )
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
        help=words()("cli.help.ruleset", rulesets=", ".join(RULESETS), default=DEFAULT_RULESET),
    )
    for name, (option, owners) in _every_option().items():
        default = "" if option.default is None else words()("cli.help.option_default", value=option.default)
        command.add_argument(
            f"--{name}",
            dest=_dest(name),
            type=whole_number if option.bounds is not None else str,
            metavar=name.upper(),
            help=words()(
                "cli.help.option",
                owners=words()("cli.or").join(owners),
                description=words()(f"cli.option.{name}"),
                default=default,
            ),
        )


def add_seats(command: argparse.ArgumentParser, bots: str, seats: str, *, engine: bool = False) -> None:
    """--players (default 4) and --bots (`bots` by default), their bounds and names per ruleset,
    for one bot a `seats` ("seat", or "other_seat" beside yours);
    with `engine`, every bot the engine plays (the search bot too, with its strength)."""
    bounds = ", ".join(
        words()("cli.help.bounds", ruleset=r.name, low=r.players[0], high=r.players[1]) for r in RULESETS.values()
    )
    names = "; ".join(f"{r.name}: {', '.join(r.engine_bots if engine else r.bots)}" for r in RULESETS.values())
    if engine:
        names += f"; {strength_help()}"
    command.add_argument("--players", type=whole_number, default=4, help=words()("cli.help.players", bounds=bounds))
    command.add_argument("--bots", default=bots, help=words()("cli.help.bots", seats=seats, names=names, bots=bots))


def _quoted(names: Iterable[str]) -> str:
    """Ruleset names as a refusal lists them: 'poison', 'pot'."""
    return ", ".join(f"'{name}'" for name in names)


def ruleset_of(args: argparse.Namespace, *, needs: str | None = None) -> Ruleset:
    """The ruleset --ruleset names; with `needs`, one whose engine offers that ability
    (core.rulesets.ENGINE_ABILITIES), or a refusal naming those that do."""
    try:
        ruleset = get_ruleset(args.ruleset)
    except RuleError as error:
        raise CommandError(words()("cli.error.ruleset", name=args.ruleset, rulesets=_quoted(RULESETS))) from error
    if needs is not None and not ruleset.can(needs):
        able = _quoted(name for name, other in RULESETS.items() if other.can(needs))
        raise CommandError(words()("cli.error.ruleset_cannot", name=ruleset.name, ability=needs, rulesets=able))
    return ruleset


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
            raise CommandError(
                words()("cli.error.not_an_option", name=name, ruleset=ruleset.name, options=has or "none")
            )
        given[name] = value
    return given


def describe_options(ruleset: Ruleset, given: dict[str, Any]) -> str:
    """Every option of the ruleset as it applies: given, or its default."""
    shown = []
    for option in ruleset.options:
        value = given.get(option.name, option.default)
        shown.append(
            words()(
                "cli.option.shown",
                name=words()("cli.option.name", name=option.name),
                value=words()("cli.option.value", value="default" if value is None else str(value)),
            )
        )
    return words()("cli.comma").join(shown)


def check_players(ruleset: Ruleset, players: int) -> None:
    fewest, most = ruleset.players
    if not ruleset.accepts_players(players):
        raise CommandError(words()("cli.error.players", ruleset=ruleset.name, low=fewest, high=most, count=players))


def bots_for(spec: str, ruleset: Ruleset, count: int, *, of: str) -> list[str]:
    """One bot per seat from `spec` (one name for all, or one per seat); `of` names the seats
    in messages ("players", or "other_seats" beside yours)."""
    bots = [name.strip() for name in spec.split(",")]
    if len(bots) == 1:
        bots *= count
    if len(bots) != count:
        raise CommandError(words()("cli.error.bot_count", count=len(bots), seats=count, of=of))
    unknown = [bot for bot in bots if bot not in ruleset.bots]
    if unknown:
        raise CommandError(words()("cli.error.unknown_bot", bot=unknown[0], bots=", ".join(ruleset.bots)))
    return bots


def strength_help() -> str:
    """How the search bot's strength is written: its playouts per move after a colon. How
    long a move takes is no figure here (it depends on the playouts and the machine, and
    would rot): docs/performance.md measures it, against the bar the documents state."""
    defaults = ", ".join(f"{r.name} {words().number(r.default_playouts)}" for r in RULESETS.values())
    return words()(
        "cli.help.strength", bot=SEARCH_BOT, low=PLAYOUT_BOUNDS[0], high=PLAYOUT_BOUNDS[1], defaults=defaults
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
        raise CommandError(words()("cli.error.unknown_bot", bot=bot, bots=", ".join(ruleset.engine_bots)))
    if not strong:
        return Seat(bot)
    if bot != SEARCH_BOT:
        raise CommandError(words()("cli.error.no_strength", name=name, bot=SEARCH_BOT, strength=strength_help()))
    try:
        playouts = int(strength)
    except ValueError:
        playouts = 0
    if not PLAYOUT_BOUNDS[0] <= playouts <= PLAYOUT_BOUNDS[1]:
        raise CommandError(words()("cli.error.strength", name=name, strength=strength_help(), given=strength))
    return Seat(bot, playouts)


def engine_seats_for(spec: str, ruleset: Ruleset, count: int, *, of: str) -> list[Seat]:
    """bots_for with every bot the engine plays, the search bot's strength included."""
    names = [name.strip() for name in spec.split(",")]
    if len(names) == 1:
        names *= count
    if len(names) != count:
        raise CommandError(words()("cli.error.bot_count", count=len(names), seats=count, of=of))
    return [seat_of(name, ruleset) for name in names]


#: The bounds of --jobs: the threads (or, for replay, processes) one command runs on.
JOBS = THREAD_BOUNDS


def add_batch(command: argparse.ArgumentParser, *, games: tuple[int, int], default: int, told: str) -> None:
    """What the commands that play games in the core (simulate, ladder) share: --games
    (within `games`, `default` if not given; `told` is the key of its help), --seed
    (default 0), --jobs (threads, default 1) and --json."""
    command.add_argument(
        "--games",
        type=whole_number,
        default=default,
        help=words()(told, low=games[0], high=games[1], default=default),
    )
    command.add_argument("--seed", type=seed, default=0, help=words()("cli.help.seed", range=seed_range()))
    command.add_argument(
        "--jobs",
        type=whole_number,
        default=1,
        help=words()("cli.help.jobs", low=JOBS[0], high=JOBS[1]),
    )
    command.add_argument("--json", action="store_true", help=words()("cli.help.json"))


def check_jobs(jobs: int) -> None:
    if not JOBS[0] <= jobs <= JOBS[1]:
        raise CommandError(words()("cli.error.jobs", low=JOBS[0], high=JOBS[1], jobs=jobs))
