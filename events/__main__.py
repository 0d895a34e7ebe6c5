"""`python -m events`: play a seeded game through the event store, then replay its log.

Shows the whole path of a game: every move appended to Redis (the embedded server unless
POISON_REDIS_URL is set), the game rebuilt from its log alone, and its scores.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
import time

from core import RuleError, derive_seed
from core.reference import Random
from events.connect import connect
from events.games import Games
from events.schema import Player, Rules
from events.store import StoreUnavailable


async def demo(players: int, seed: int, data_dir: str | None) -> None:
    async with connect(data_dir=data_dir) as store:
        games = Games(store)
        game_id = f"demo-{secrets.token_hex(4)}"
        seats = tuple(Player(seat=seat, name=f"player {seat}") for seat in range(players))
        _, logged = await games.create(
            game_id, seats, rounds=None, rules=Rules(), seed=seed, token_hashes={}, created_ms=int(time.time() * 1000)
        )
        rng = Random(derive_seed(seed, 0))
        while not logged.finished:
            legal = logged.game.legal_moves()
            _, logged = await games.play(game_id, logged.game.turn, *legal[rng.below(len(legal))])
        replayed = await Games(store).load(game_id)  # a cold cache: the log alone
        print(f"game {game_id}: {replayed.version} events in the store, replayed from the log")
        for result in replayed.game.round_results():
            print(f"  round {result.round} (dealer {result.dealer}): scores {list(result.scores)}")
        print(f"  totals {list(replayed.game.totals)}, winners {list(replayed.game.winners)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m events", description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--data-dir", default=None, help="the embedded server's data (default ./poison-data)")
    args = parser.parse_args(argv)
    try:
        asyncio.run(demo(args.players, args.seed, args.data_dir))
    except (StoreUnavailable, RuleError, ValueError) as error:
        print(f"python -m events: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
