"""Deadlines under load, for benchmarks/load.py: how late a clocked game's deadline fires while
the load's clients play.

A clocked game here is one person, who never moves, and three bots, under a clock of one
or two seconds a move (`--clock-seconds`): the answer that creates it names the person's
deadline, and a live stream of its events (SSE, /events/stream) that the benchmark opens at
once receives the seat_timed_out that the deadline causes, then game_abandoned (no person is
left), which ends it. A firing's delay is the time the stream's message arrived at the client
less the deadline the view named: the worker's tick, its claim, the firing itself and the
delivery to a live stream, all on the server the load is playing on, so an upper bound of
the firing's own lateness. Both clocks are this machine's.

`clocked_phase` runs the load's clients on the game, as many as a round has, playing until
told to stop, and meanwhile keeps `at_once` clocked games alive until `wanted` have been
created; once each of them has fired (or is given up on as missed) the clients stop. Its
`Clocked` holds the delays, the problems (the load's failed requests among them), and what
the load's clients did in the same time.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime

import msgspec

from benchmarks.client import HOST, Connection, Tally, play_games

#: The clocked games' table: a person who never moves, then three bots (cheap ones: the
#: firing is measured, not the bots).
CLOCKED_PLAYERS = [{"name": "away"}, *({"name": f"bot{n}", "bot": "random"} for n in (1, 2, 3))]
#: How much longer than its seconds a move a clocked game may take to fire before the
#: benchmark gives up on it and reports it missed.
PATIENCE_S = 30.0
#: The longest pause before a clocked game is created (seconds): longer than a worker's tick.
PAUSE_S = 1.0


def new_clocked_game(seconds_per_move: int) -> bytes:
    return msgspec.json.encode({"players": CLOCKED_PLAYERS, "clock": {"seconds_per_move": seconds_per_move}})


def epoch_of(deadline: str) -> float:
    """A view's deadline (RFC 3339, UTC, to the millisecond) in seconds since the epoch."""
    return datetime.fromisoformat(deadline).timestamp()


@dataclass
class Clocked:
    """What one clocked phase measured: the firings' delays (seconds), what went wrong, and
    the load's clients over the same time."""

    delays: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    games: int = 0  # clocked games created
    tally: Tally = field(default_factory=Tally)  # the load's clients' requests and moves
    seconds: float = 0.0

    @property
    def moves_per_s(self) -> float:
        return self.tally.moves / self.seconds if self.seconds else 0.0

    @property
    def requests_per_s(self) -> float:
        return len(self.tally.latencies) / self.seconds if self.seconds else 0.0


class EventStreams:
    """Live streams of games' events, one game after another on one keep-alive connection,
    each read message by message as it arrives (HTTP/1.1, chunked; an answer ended by
    closing the connection is read too, and the next stream then connects anew). One
    connection for every stream of a keeper, not one each: the service counts a client's
    connections for a while after their last answer, and hundreds of fresh ones would use up
    the load's share."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.chunked = False
        self.text = ""

    async def follow(self, game_id: str, after: int) -> None:
        """Start the stream of `game_id`'s events after version `after`."""
        if self.reader is None or self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        self.text = ""
        self.writer.write(
            f"GET /v1/games/{game_id}/events/stream?after={after} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode()
        )
        head = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower()
        if not head.startswith("http/1.1 200"):
            self.close()
            raise ConnectionError(f"the stream was refused: {head.splitlines()[0]}")
        self.chunked = "transfer-encoding: chunked" in head

    async def next_event(self) -> str | None:
        """The type of the stream's next message's event, once it has arrived whole; None
        when the stream has ended."""
        assert self.reader is not None, "follow a game first"
        while "\n\n" not in self.text:
            if self.chunked:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                data = (await self.reader.readexactly(size + 2))[:size]
                if size == 0:
                    return None  # the connection stays open for the next stream
            else:
                data = await self.reader.read(65536)
                if not data:
                    self.close()
                    return None
            # SSE ends its lines with \r\n, \n or \r; a \r\n split across two reads is joined here.
            self.text = (self.text + data.decode()).replace("\r\n", "\n")
        message, self.text = self.text.split("\n\n", 1)
        for line in message.splitlines():
            if line.startswith("event:"):
                return line.removeprefix("event:").strip()
        return ""  # a comment, a keep-alive

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def one_clocked_game(
    connection: Connection, streams: EventStreams, seconds_per_move: int, clocked: Clocked
) -> None:
    """Create a clocked game, follow it to its end, and record how late its person's deadline
    fired."""
    status, body = await connection.request("POST", "/v1/games", new_clocked_game(seconds_per_move))
    if status != 201:
        clocked.problems.append(f"a clocked game was not created: {status} {body[:200]!r}")
        return
    clocked.games += 1
    game = msgspec.json.decode(body)["game"]
    deadline = (game.get("clock") or {}).get("deadline")
    if deadline is None:
        clocked.problems.append(f"the clocked game {game['game_id']} named no deadline: {game.get('clock')}")
        return
    due = epoch_of(deadline)
    fired = False
    try:
        async with asyncio.timeout(seconds_per_move + PATIENCE_S):
            await streams.follow(game["game_id"], game["version"])
            while (event := await streams.next_event()) is not None:
                if event == "seat_timed_out" and not fired:
                    clocked.delays.append(time.time() - due)
                    fired = True
    except TimeoutError:
        streams.close()  # in the middle of an answer
        said = "had not fired" if not fired else "fired, but its stream had not ended"
        clocked.problems.append(f"the deadline of {game['game_id']} ({deadline}) {said} {PATIENCE_S:g} s late")
        return
    if not fired:
        clocked.problems.append(f"the stream of {game['game_id']} ended before its deadline fired")


async def clocked_games(port: int, wanted: int, at_once: int, seconds: list[int], clocked: Clocked) -> None:
    """`wanted` clocked games, `at_once` of them alive at a time, their seconds a move taken
    from `seconds` in turn; returns once every one has fired or been given up on."""
    created = itertools.count()
    turns = itertools.cycle(seconds)
    rng = random.Random(wanted)

    async def keeper() -> None:
        connection, streams = Connection(port), EventStreams(port)
        try:
            while next(created) < wanted:
                # A game created right after the last one fired would be created just after
                # a worker's tick, its deadline at the same point of the ticks' cycle as the
                # last: a pause of its own, longer than a tick, spreads the deadlines over it.
                await asyncio.sleep(rng.uniform(0, PAUSE_S))
                try:
                    await one_clocked_game(connection, streams, next(turns), clocked)
                except (OSError, ValueError, asyncio.IncompleteReadError) as error:
                    clocked.problems.append(f"a clocked game failed: {error!r}")
                    connection.close()
                    streams.close()
        finally:
            connection.close()
            streams.close()

    await asyncio.gather(*(keeper() for _ in range(min(at_once, wanted))))


async def clocked_phase(port: int, clients: int, wanted: int, at_once: int, seconds: list[int], seed: int) -> Clocked:
    """The load's `clients` playing on the game (client n from random stream seed + n) while
    `wanted` clocked games fire beside them; the clients stop once the last has fired."""
    clocked = Clocked()
    stop = asyncio.Event()
    started, cpu = time.perf_counter(), time.process_time()
    players = [
        asyncio.create_task(play_games(port, sys.maxsize, clocked.tally, random.Random(seed + n), stop))
        for n in range(clients)
    ]
    try:
        await clocked_games(port, wanted, at_once, seconds, clocked)
    finally:
        stop.set()
        await asyncio.gather(*players)
    clocked.seconds = time.perf_counter() - started
    clocked.tally.cpu = time.process_time() - cpu
    clocked.problems += [f"the load beside the clocked games: {error}" for error in clocked.tally.errors[:5]]
    if clocked.tally.moves == 0:
        clocked.problems.append("the load's clients made no move while the clocked games fired")
    return clocked


__all__ = ["Clocked", "EventStreams", "clocked_games", "clocked_phase", "epoch_of"]
