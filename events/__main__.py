"""`python -m events`: one game played through the event store, then rebuilt from its log.

Shows the whole path of a game: every move appended to the store, the game rebuilt from
its log alone (a cold cache), and its totals. A demonstration writes only into a store it
was given explicitly: by default a fresh embedded store in a temporary directory, removed
afterwards; with `--data-dir DIR`, an embedded store in DIR (one that a running `poison
serve` holds is refused, in one line); with `--redis-url URL`, that server, under a
namespace of its own (`poison-demo`), so that no demo ever shows among the service's
games. The service's own settings (POISON_REDIS_URL, POISON_DATA_DIR, POISON_NAMESPACE)
are never read.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from core import RuleError, derive_seed
from core.plain import Random
from core.rulesets import DEFAULT_RULESET, RULESETS, get_ruleset
from events.codec import Player, event_type
from events.connect import SCHEMES, connect
from events.credentials import redacted
from events.games import Games
from events.server import DataDirInUse, EmbeddedServer, ServerFailed, ServerNotFound
from events.store import EventStore, StoreUnavailable

PROG = "python -m events"
#: Where a demonstration writes in a store it was given by URL: never the service's namespace.
DEMO_NAMESPACE = "poison-demo"


class DemoError(Exception):
    """A clear one-line message for the person, and the exit status (2: bad usage, 1: failure)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


@asynccontextmanager
async def embedded(data_dir: Path) -> AsyncIterator[EventStore]:
    """A store on an embedded server of our own in `data_dir`, stopped at the end."""
    server = EmbeddedServer(data_dir)
    try:
        url = server.start()
    except DataDirInUse as error:
        raise DemoError(str(error)) from None
    except ServerFailed as error:  # its message carries the server's log: one line here
        raise DemoError(f"the embedded store {error.what} (its log: {server.log_path})") from None
    store = EventStore.from_url(url, namespace=DEMO_NAMESPACE)
    try:
        yield store
    finally:
        await store.close()
        server.stop()


@asynccontextmanager
async def demo_store(redis_url: str | None, data_dir: Path | None) -> AsyncIterator[tuple[EventStore, str]]:
    """The store the demonstration was given, and how to name it."""
    if redis_url is not None:
        if not redis_url.startswith(SCHEMES):
            schemes = f"{', '.join(SCHEMES[:-1])} or {SCHEMES[-1]}"
            raise DemoError(f"--redis-url must start with {schemes}; {redacted(redis_url)} does not", 2)
        async with connect(redis_url, namespace=DEMO_NAMESPACE) as store:
            yield store, f"{redacted(redis_url)}, namespace {DEMO_NAMESPACE}"
    elif data_dir is not None:
        async with embedded(data_dir) as store:
            yield store, f"an embedded store in {data_dir}"
    else:
        with tempfile.TemporaryDirectory(prefix="poison-demo-") as directory:
            async with embedded(Path(directory)) as store:
                yield store, "an embedded store in a temporary directory, now removed"


async def demo(ruleset_name: str, players: int, seed: int, redis_url: str | None, data_dir: Path | None) -> None:
    ruleset = get_ruleset(ruleset_name)
    async with demo_store(redis_url, data_dir) as (store, where):
        games = Games(store)
        game_id = f"demo-{secrets.token_hex(4)}"
        seats = tuple(Player(seat=seat, name=f"player {seat}") for seat in range(players))
        _, logged = await games.create(
            game_id, seats, seed=seed, token_hashes={}, created_ms=int(time.time() * 1000), ruleset=ruleset.name
        )
        rng = Random(derive_seed(seed, 0))  # every seat plays a legal move drawn from the seed
        while not logged.finished:
            legal = logged.game.legal_moves()
            _, logged = await games.play(game_id, logged.game.turn, *legal[rng.below(len(legal))])
        replayed = await Games(store).load(game_id)  # a cold cache: the log alone
        kinds = Counter(event_type(event) for _, event in await store.read(game_id))
    game = replayed.game
    print(f"game {game_id} ({ruleset.title}, {players} players, seed {seed}), in {where}:")
    print(f"  {replayed.version} events appended, read back and replayed from the log alone:")
    print("  " + ", ".join(f"{count} {kind}" for kind, count in kinds.items()))
    totals = ", ".join(f"player {seat} {total}" for seat, total in enumerate(game.totals))
    winners = " and ".join(f"player {seat}" for seat in game.winners)
    best = "lowest" if ruleset.lowest_wins else "highest"
    print(f"  totals: {totals}; {winners} won ({best} total)")


def whole_number(text: str) -> int:
    """An argparse type that says what it wants in words (argparse: "invalid int value")."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number, not '{text}'") from None


def parser() -> argparse.ArgumentParser:
    command = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[1].replace("\n", " "))
    command.add_argument(
        "--ruleset", default=DEFAULT_RULESET, help=f"the game: {', '.join(RULESETS)} (default {DEFAULT_RULESET})"
    )
    command.add_argument("--players", type=whole_number, default=4, help="how many seats (default 4)")
    command.add_argument("--seed", type=whole_number, default=2026, help="the deal and the moves (default 2026)")
    where = command.add_mutually_exclusive_group()
    where.add_argument("--data-dir", type=Path, help="an embedded store in this directory (default: a temporary one)")
    where.add_argument("--redis-url", help=f"a server of yours: redis://, rediss:// or unix:// ({DEMO_NAMESPACE} keys)")
    return command


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        asyncio.run(demo(args.ruleset, args.players, args.seed, args.redis_url, args.data_dir))
    except DemoError as error:
        return fail(str(error), error.code)
    except RuleError as error:  # a ruleset, player count or seed the game refuses
        return fail(str(error), 2)
    except (StoreUnavailable, ServerNotFound) as error:
        return fail(str(error), 1)
    except KeyboardInterrupt:
        return fail("interrupted", 128 + signal.SIGINT)  # 130, as shells report Ctrl-C
    return 0


def fail(message: str, code: int) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
