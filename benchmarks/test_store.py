"""Speed of the event store on the real embedded server (group `store`).

Cases: appending one move's events (the Lua append at an expected version, on the
session's server, which fsyncs every write: checked), and the floors under it, in the same
run: the disk's (one write and fdatasync of as many bytes into a file beside the server's),
the server's (one fsynced SET of those bytes over a bare blocking socket, RESP written by
hand: loopback round trip, server, append-only file and fdatasync, the least any append on
this server costs), and the client's (one PING through the store's own pipelined connection
on the benchmark's event loop: asyncio and the connection, no server work); and loading
a finished game from a cold cache (read its whole log, rebuild it through the core): a
six-round game of Poison and a whole pot game, each from its finished copy (one value, as a
cold load reads a finished game), and the six-round game from its stream too (as any other
game loads), for the ratio of the two in one run; and a page of the listing (its 16
shards read at once and merged, each game's summary read), of every game and of one status.
Each asserts its result: every append landed at the version it expected, every SET was
answered +OK and the key holds its bytes, every PING was answered PONG, the loaded game is the
one that was played, and the page is the newest games in order.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import socket
from collections.abc import Callable, Iterator

import pytest
import redis
from pytest_benchmark.fixture import BenchmarkFixture

from events.codec import Event
from events.games import Games
from events.play import LoggedGame, create_game, move, new_game, play_move
from events.poison.schema import CODEC, Player, Rules
from events.restore import restore
from events.server import EmbeddedServer
from events.store import Appended, EventStore, GameSummary, listing_member

#: Appends to one stream before the next: about a six-round game's events, so the
#: benchmark measures streams as long as games make them, however many rounds it runs.
APPENDS_PER_STREAM = 150


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


@pytest.fixture
def bench_store(loop: asyncio.AbstractEventLoop, redis_url: str, namespace: str) -> Iterator[EventStore]:
    store = EventStore.from_url(redis_url, namespace=namespace)
    yield store
    loop.run_until_complete(store.close())


def six_round_game() -> tuple[list[Event], LoggedGame]:
    seats = tuple(Player(seat=seat, name=f"p{seat}") for seat in range(6))
    log, logged = new_game("six", seats, rounds=6, rules=Rules(), seed=6)
    while not logged.finished:
        card, cauldron = logged.game.legal_moves()[0]
        caused, logged = move(logged, logged.game.turn, card, cauldron)
        log += caused
    return log, logged


def appender(
    loop: asyncio.AbstractEventLoop, store: EventStore, events: list[Event]
) -> tuple[Callable[[], Appended], list[tuple[str, int, Appended]]]:
    """A function appending `events` once per call, each time at the version the stream is
    at: stream and version both come from one count of calls, so moving on to a fresh
    stream starts it at version 0. Also the record of every call (stream, expected
    version, what the store answered), to check them all afterwards."""
    calls = itertools.count()
    record: list[tuple[str, int, Appended]] = []

    def append() -> Appended:
        call = next(calls)
        stream, expected = f"append{call // APPENDS_PER_STREAM}", (call % APPENDS_PER_STREAM) * len(events)
        appended = loop.run_until_complete(store.append(stream, events, expected, codec=CODEC))
        record.append((stream, expected, appended))
        return appended

    return append, record


def check_appends(
    loop: asyncio.AbstractEventLoop, store: EventStore, events: list[Event], record: list[tuple[str, int, Appended]]
) -> None:
    """Every append landed just after the version it expected, and each stream holds
    exactly what was appended to it."""
    assert record != []
    for _, expected, appended in record:
        assert (appended.version, appended.count, appended.replayed) == (expected + len(events), len(events), False)
    last: dict[str, int] = {}
    for stream, _, appended in record:
        last[stream] = appended.version
    for stream, version in last.items():
        assert loop.run_until_complete(store.version(stream)) == version


def one_move() -> list[Event]:
    log, _ = six_round_game()
    return log[2:4]  # a card and what it caused


def move_bytes() -> bytes:
    """A move's stored events (kind, schema and data of each) as one run of bytes: about
    what an append writes to the server's file."""
    return b"".join(
        b"".join((kind.encode(), b"%d" % schema, data)) for kind, schema, data in map(CODEC.encode_stored, one_move())
    )


def fsyncs_every_write(url: str) -> bool:
    """The server writes its append-only file and fsyncs it before answering any write."""
    config = redis.Redis.from_url(url, decode_responses=True).config_get("append*")
    return config["appendonly"] == "yes" and config["appendfsync"] == "always"


@pytest.mark.benchmark(group="store")
def test_append_one_move(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, bench_store: EventStore, redis_url: str
) -> None:
    assert fsyncs_every_write(redis_url)
    events = one_move()
    append, record = appender(loop, bench_store, events)
    benchmark(append)
    check_appends(loop, bench_store, events, record)


@pytest.mark.benchmark(group="store")
def test_fsync_floor(benchmark: BenchmarkFixture, redis_server: EmbeddedServer) -> None:
    # What the disk alone costs an append: one write of a move's stored events and the
    # fdatasync the server makes before it answers, in the server's data directory.
    record = move_bytes()
    path = redis_server.data_dir / "fsync-floor.bench"
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_TRUNC)

    def write() -> int:
        written = os.write(descriptor, record)
        os.fdatasync(descriptor)
        return written

    try:
        assert benchmark(write) == len(record)
        assert os.fstat(descriptor).st_size % len(record) == 0 < os.fstat(descriptor).st_size
    finally:
        os.close(descriptor)
        path.unlink()


def resp(*arguments: bytes) -> bytes:
    """A command in RESP, as a client library would write it."""
    return b"*%d\r\n" % len(arguments) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in arguments)


@pytest.mark.benchmark(group="store")
def test_an_fsynced_write_through_a_bare_socket(
    benchmark: BenchmarkFixture, redis_server: EmbeddedServer, namespace: str
) -> None:
    # The floor of any append on this server: the loopback round trip, the server reading
    # and doing one write, appending it to its file and fdatasync before it answers. No
    # client library, no event loop, no script: a blocking socket and RESP by hand.
    assert fsyncs_every_write(redis_server.url)
    record, key = move_bytes(), f"{namespace}:floor".encode()
    command = resp(b"SET", key, record)
    with socket.create_connection(("127.0.0.1", redis_server.port)) as connection:
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        connection.sendall(resp(b"AUTH", redis_server.password.encode()))
        assert connection.recv(64) == b"+OK\r\n"

        replies: list[bytes] = []

        def write() -> bytes:
            connection.sendall(command)
            reply = connection.recv(64)
            while not reply.endswith(b"\r\n"):
                reply += connection.recv(64)
            replies.append(reply)
            return reply

        assert benchmark(write) == b"+OK\r\n"
        assert set(replies) == {b"+OK\r\n"}  # every one of them, not only the last
        connection.sendall(resp(b"GET", key))
        expected = b"$%d\r\n%s\r\n" % (len(record), record)
        held = b""
        while len(held) < len(expected):
            held += connection.recv(65536)
        assert held == expected


@pytest.mark.benchmark(group="store")
def test_a_ping_through_the_pipelined_connection(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, bench_store: EventStore
) -> None:
    # The client's floor: what the store's own connection (events/pipelined.py) and
    # asyncio cost a command, with the least the server can do for it.
    answers: list[object] = []

    def ping() -> object:
        answer = loop.run_until_complete(bench_store.recorder.wire.execute("PING"))
        answers.append(answer)
        return answer

    assert benchmark(ping) == b"PONG"
    assert set(answers) == {b"PONG"}  # every one of them, not only the last


def test_the_append_benchmark_starts_each_new_stream_at_version_zero(
    loop: asyncio.AbstractEventLoop, bench_store: EventStore
) -> None:
    # Untimed, and past two changes of stream: the benchmark must survive any number of
    # rounds (it once kept counting versions into a fresh stream and failed at round 1,001).
    events = one_move()
    append, record = appender(loop, bench_store, events)
    for _ in range(2 * APPENDS_PER_STREAM + 1):
        append()
    check_appends(loop, bench_store, events, record)
    assert [stream for stream, _, _ in record[::APPENDS_PER_STREAM]] == ["append0", "append1", "append2"]


def has_finished_copy(loop: asyncio.AbstractEventLoop, store: EventStore, game_id: str) -> bool:
    return bool(loop.run_until_complete(store.recorder.wire.execute("EXISTS", store.recorder.key(game_id, "finished"))))


def loaded_cold(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, store: EventStore, log: list[Event], game: LoggedGame
) -> LoggedGame:
    """The benchmark of loading the finished `game` (whose log is `log`), stored with its
    finished copy, through a cold cache each time; the game loaded."""
    game_id, codec = game.created.game_id, game.rules.codec
    loop.run_until_complete(store.append(game_id, log, 0, codec=codec))
    assert has_finished_copy(loop, store, game_id)
    return benchmark(lambda: loop.run_until_complete(Games(store).load(game_id)))


def assert_whole(loaded: LoggedGame, log: list[Event], finished: LoggedGame) -> None:
    assert loaded.version == len(log)
    assert loaded.finished
    assert loaded.game.results() == finished.game.results()


def pot_game() -> tuple[list[Event], LoggedGame]:
    """A whole four-player pot game, played at random (from a fixed seed)."""
    seats = tuple(Player(seat=seat, name=f"p{seat}") for seat in range(4))
    log, logged = create_game("pot", "pot", seats, seed=4, options={})
    draw = random.Random(4)
    while not logged.finished:
        caused, logged = play_move(logged, logged.game.turn, tuple(draw.choice(logged.game.legal_moves())))
        log += caused
    return log, logged


#: The finished games loaded cold from their finished copy, with the fewest events each must have.
COLD_LOADS = {"a six-round game": (six_round_game, 300), "a pot game": (pot_game, 40)}


@pytest.mark.benchmark(group="store")
@pytest.mark.parametrize("game", COLD_LOADS)
def test_load_a_finished_game_from_its_copy(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, bench_store: EventStore, game: str
) -> None:
    played, fewest = COLD_LOADS[game]
    log, finished = played()
    assert len(log) > fewest
    assert_whole(loaded_cold(benchmark, loop, bench_store, log, finished), log, finished)


@pytest.mark.benchmark(group="store")
def test_load_a_finished_six_round_game_from_its_stream(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, bench_store: EventStore
) -> None:
    # The road of a game that is not finished (or finished before copies existed): every
    # entry of the stream read and decoded, then the same rebuild.
    log, finished = six_round_game()
    loop.run_until_complete(bench_store.append("six", log, 0, codec=CODEC))

    async def load() -> LoggedGame:
        return restore(await bench_store.read("six"))

    assert_whole(benchmark(lambda: loop.run_until_complete(load())), log, finished)


#: Games in the listing benchmark's store, every fifth one finished.
LISTED = 400
PAGE = 50


@pytest.mark.benchmark(group="store")
@pytest.mark.parametrize("status", [None, "finished"], ids=["every game", "one status"])
def test_list_a_page_of_games(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, bench_store: EventStore, status: str | None
) -> None:
    log, _ = six_round_game()

    async def fill() -> None:
        await asyncio.gather(
            *(
                bench_store.append(
                    f"listed{number}",
                    log[:2],
                    0,
                    summary={
                        "status": "finished" if number % 5 == 0 else "active",
                        "players": '["Ann", "Bob"]',
                        "version": 2,
                        "listed": listing_member(f"listed{number}", number),
                    },
                    codec=CODEC,
                )
                for number in range(LISTED)
            )
        )

    loop.run_until_complete(fill())
    listing = bench_store.listing
    assert listing is not None

    def page() -> list[GameSummary]:
        return loop.run_until_complete(listing.list_games(status=status, limit=PAGE))[0]

    listed = benchmark(page)
    newest = [n for n in reversed(range(LISTED)) if status is None or n % 5 == 0][:PAGE]
    assert [summary.game_id for summary in listed] == [f"listed{n}" for n in newest]
