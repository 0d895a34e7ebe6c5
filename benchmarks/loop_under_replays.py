"""Whether a worker's event loop stays live while clients replay long logs (issue 27, item 7):
`python -m benchmarks.loop_under_replays BASE_URL [--clients N] [--probes M]`.

N clients (32), each from its own loopback address (so that each has budgets of its own),
replay the longest Poison log (20 rounds of six players, about 150 KB) as fast as they can
against the service at BASE_URL (a `poison serve`; give it budgets that let them through:
POISON_REBUILD_RATE and POISON_REBUILD_BURST); meanwhile `/health/live` is asked M times
(30), one after another. Prints its median and its longest answer, in ms, as JSON.
docs/performance.md has the figures, with every rebuild on the loop and in the pool.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time

import httpx
import msgspec

from events.codec import Player, to_public
from events.play import create_game


def longest_log() -> bytes:
    players = tuple(Player(seat=seat, name=f"p{seat}", bot="random") for seat in range(6))
    log, _ = create_game("poison", "g", players, seed=1, options={"rounds": 20, "cauldrons": "dynamic"})
    return msgspec.json.encode({"events": [to_public(version, event) for version, event in enumerate(log, 1)]})


async def measure(base: str, clients: int, probes: int) -> dict[str, float]:
    body = longest_log()
    done = asyncio.Event()

    async def replaying(client: int) -> None:
        transport = httpx.AsyncHTTPTransport(local_address=f"127.0.1.{client + 1}")
        async with httpx.AsyncClient(timeout=120, transport=transport) as http:
            while not done.is_set():
                await http.post(f"{base}/v1/replays", content=body, headers={"content-type": "application/json"})

    replays = [asyncio.create_task(replaying(client)) for client in range(clients)]
    await asyncio.sleep(2)  # every client under way
    seconds = []
    async with httpx.AsyncClient(timeout=120) as http:
        for _ in range(probes):
            started = time.perf_counter()
            (await http.get(f"{base}/health/live")).raise_for_status()
            seconds.append(time.perf_counter() - started)
            await asyncio.sleep(0.05)
    done.set()
    await asyncio.gather(*replays)
    return {
        "health_p50_ms": round(1000 * statistics.median(seconds), 1),
        "health_max_ms": round(1000 * max(seconds), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="the service's base URL, e.g. http://127.0.0.1:8000")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--probes", type=int, default=30)
    arguments = parser.parse_args()
    print(json.dumps(asyncio.run(measure(arguments.base.rstrip("/"), arguments.clients, arguments.probes))))


if __name__ == "__main__":
    main()
