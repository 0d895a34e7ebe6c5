"""`kill -9` of a master while games are appended to on the cluster: the games it served
see store errors (quickly, none hangs) until its replica is promoted, then go on; with
replicated writes, nothing acknowledged is lost or doubled."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid

import pytest
from redis.exceptions import RedisError

from events.cluster import LocalCluster
from events.pipelined import PipelinedConnection, Replication
from events.slots import slot_of
from tests.cluster.test_connection import APPEND, APPEND_SHA, game_keys, master_of
from tests.waiting import until_async

pytestmark = [pytest.mark.anyio, pytest.mark.cluster]

TIMEOUT = 1.0  # the store's timeout here: every failed call must end within it
#: How much longer than TIMEOUT a failed call may take on a busy machine: a call that hung, what
#: the test guards against, would take until the test's end.
SLACK = 2.0


async def play(
    wire: PipelinedConnection, game: str, until: asyncio.Event, acknowledged: list[str], errors: list[float]
):
    """Append moves one after another, as the service does: at the version last read."""
    version = 0
    n = 0
    while not until.is_set():
        move = f"{game} move {n}"
        started = time.monotonic()
        try:
            reply = await wire.script(APPEND_SHA, APPEND, game_keys(game), [version, move])
        except RedisError:
            errors.append(time.monotonic() - started)
            await asyncio.sleep(0.05)
            with contextlib.suppress(RedisError):  # where is the game now? (the append may have been done)
                version = await wire.execute("XLEN", game_keys(game)[0], repeatable=True)
            n += 1
            continue
        if reply[0] == b"appended":
            acknowledged.append(move)
            version = reply[1]
        else:
            version = reply[1]
        n += 1
        await asyncio.sleep(0.005)


async def test_a_master_killed_mid_game_loses_no_acknowledged_move_and_the_games_go_on(cluster: LocalCluster):
    prefix = f"f{uuid.uuid4().hex[:8]}"
    games = [f"{prefix}-{n}" for n in range(6)]
    while len({master_of(cluster, slot_of(game_keys(game)[0])) for game in games}) < 3:
        games.append(f"{prefix}-{len(games)}")  # the six and more until every master serves one
    victim_port = master_of(cluster, slot_of(game_keys(games[0])[0]))
    victims = [game for game in games if master_of(cluster, slot_of(game_keys(game)[0])) == victim_port]
    # auto: wait for a replica where the primary has one (the promoted one has none left).
    wire = PipelinedConnection(cluster.url, timeout=TIMEOUT, replication=Replication.AUTO)
    until = asyncio.Event()
    acknowledged: dict[str, list[str]] = {game: [] for game in games}
    errors: dict[str, list[float]] = {game: [] for game in games}
    playing = [asyncio.ensure_future(play(wire, game, until, acknowledged[game], errors[game])) for game in games]
    victim = cluster.node_on(victim_port)
    try:
        await until_async(lambda: all(len(moves) >= 5 for moves in acknowledged.values()), what="every game under way")
        before = {game: len(moves) for game, moves in acknowledged.items()}
        victim.kill()  # kill -9
        killed_at = time.monotonic()
        # Every game makes moves again after the failover (the cluster's own: its node timeout
        # is 1 s, so it takes a few seconds; 30 s is for a busy machine).
        deadline = killed_at + 30
        while not all(len(acknowledged[game]) > before[game] + 20 for game in victims):
            assert time.monotonic() < deadline, "the victim's games did not go on after the failover"
            await asyncio.sleep(0.05)
        print(f"the victim's games went on {time.monotonic() - killed_at:.2f} s after the kill")
        until.set()
        await asyncio.gather(*playing)
        for game in games:
            stored = await wire.execute("XRANGE", game_keys(game)[0], "-", "+", repeatable=True)
            moves = [fields[1].decode() for _, fields in stored]
            assert len(moves) == len(set(moves)), f"{game}: a move recorded twice"
            assert set(acknowledged[game]) <= set(moves), f"{game}: an acknowledged move was lost"
            assert [entry_id for entry_id, _ in stored] == [f"0-{n}".encode() for n in range(1, len(stored) + 1)]
        assert all(errors[game] for game in victims)  # they did see the loss
        assert not any(errors[game] for game in games if game not in victims)  # the others did not
        assert max(duration for game in victims for duration in errors[game]) < TIMEOUT + SLACK  # none hung
    finally:
        until.set()
        await asyncio.gather(*playing, return_exceptions=True)
        await wire.close()
        victim.start()  # it comes back as the promoted replica's replica
        cluster.wait_until_ok(30)
