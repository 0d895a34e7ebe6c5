"""`poison replay --archive` checks every archived game of both rulesets through the batch
replay, counting games, events and moves alike with one process or two, and names a game
whose archived rows were tampered with; `poison archive` shows each day's files and counts
and the games waiting in the store, and with --now moves a finished game out of Redis.

The archives are made as the service makes them: games played through the real app, then
moved by the real Archiver into a folder. The commands run in this process
(`service.cli.main`), against the session's store."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import msgspec
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
import redis
from litestar.testing import AsyncTestClient

from core.rulesets import RULESETS
from events.archive import Archive
from events.archiving import Archiver
from events.recorder import RedisRecorder
from service.app import create_app
from service.settings import Settings
from tests.archive.test_reads import finished_table
from tests.service.api import auth, view
from tests.service.command import assert_one_line_refusal, poison, poison_read
from tests.service.test_cli_replay import table_rows
from tests.service.test_lobby_api import open_game

#: The options of a game of each ruleset created with open seats.
OPTIONS = {"poison": {"rounds": 1}, "pot": {"ruleset": "pot"}}


@dataclass(frozen=True)
class Archived:
    """An archive folder the real mover wrote, and what it holds: each game's ruleset,
    events and moves, as the API exported them before the game moved."""

    url: str
    rulesets: dict[str, str]
    events: dict[str, int]
    moves: dict[str, int]


async def play_and_archive(
    settings: Settings, batches: list[list[tuple[str, int]]], abandoned: Sequence[str] = ()
) -> Archived:
    """Each batch's games (ruleset, seed) played to their end, then moved by one pass of the
    mover: a batch's games lie in files of their own; then a game of each of `abandoned`'s
    rulesets created with open seats and left by its only person, moved by one pass more."""
    rulesets: dict[str, str] = {}
    events: dict[str, int] = {}
    moves: dict[str, int] = {}
    recorder = RedisRecorder.from_url(str(settings.redis_url), namespace=settings.namespace)
    archiver = Archiver(recorder.wire, Archive(settings.archive_location()), namespace=settings.namespace)
    try:
        async with AsyncTestClient(create_app(settings)) as client:
            for batch in batches:
                for name, seed in batch:
                    table = await finished_table(client, RULESETS[name], seed)
                    log = (await client.get(f"/v1/games/{table.game_id}/events")).json()["events"]
                    rulesets[table.game_id] = name
                    events[table.game_id] = len(log)
                    moves[table.game_id] = sum(event["type"] == "card_played" for event in log)
                moved = await archiver.pass_once(everything=True)
                assert moved.games == len(batch)
            for name in abandoned:
                game_id, token = await open_game(client, OPTIONS[name])
                assert (await client.delete(f"/v1/games/{game_id}/seats/0", headers=auth(token))).status_code == 204
                assert (await view(client, game_id))["status"] == "abandoned"
                rulesets[game_id] = name
                events[game_id] = len((await client.get(f"/v1/games/{game_id}/events")).json()["events"])
                moves[game_id] = 0
            if abandoned:
                assert (await archiver.pass_once(everything=True)).games == len(abandoned)
    finally:
        await recorder.close()
    return Archived(settings.archive_location(), rulesets, events, moves)


@pytest.fixture
def settings(redis_url: str, namespace: str, tmp_path: Path) -> Settings:
    return Settings(redis_url=redis_url, namespace=namespace, archive_url=str(tmp_path / "archive"))


@pytest.fixture
def archived(settings: Settings) -> Archived:
    """Three games of each ruleset, moved in two passes (so in two files at least)."""
    batches = [[("poison", 1), ("pot", 1), ("poison", 2)], [("pot", 2), ("poison", 3), ("pot", 3)]]
    return asyncio.run(play_and_archive(settings, batches))


def store_flags(settings: Settings) -> list[str]:
    return ["--redis-url", str(settings.redis_url), "--archive-url", settings.archive_location()]


def store_env(settings: Settings) -> dict[str, str | None]:
    return {"POISON_NAMESPACE": settings.namespace}


def summary(games: int, events: int, moves: int) -> str:
    return f"{games} games, {events} events, {moves} moves in "


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_archive_of_both_rulesets_checks_valid_with_every_game_event_and_move_counted(archived, jobs):
    assert set(archived.rulesets.values()) == {"poison", "pot"}
    assert len(Archive(archived.url).files()) >= 2  # a file per process with --jobs 2
    result = poison_read("replay", "--archive", archived.url, "--jobs", jobs)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    games = len(archived.rulesets)
    assert lines[0] == f"{games} of {games} archived games valid"
    assert lines[1].startswith(summary(games, sum(archived.events.values()), sum(archived.moves.values())))
    assert " games/s, " in lines[1]
    assert lines[1].endswith(" moves/s")
    assert len(lines) == 2


def rewrite(
    url: str, game_id: str, kind: str, change: Callable[[bytes, int], tuple[bytes, int]], *, every: bool
) -> None:
    """Rewrite the file holding `game_id` with the stored data and schema of its first
    event of stored type `kind` (or of every one) made anew by `change`, every other row
    as it was."""
    archive = Archive(url)
    for path in archive.files():
        full = f"{archive.root}/{path}"
        table = pq.read_table(full)
        rows = pc.and_(pc.equal(table["game_id"], game_id), pc.equal(table["stored_type"], kind))
        at = pc.indices_nonzero(rows).to_pylist()
        if not at:
            continue
        stored, schema = table["stored"].to_pylist(), table["schema"].to_pylist()
        for row in at if every else at[:1]:
            stored[row], schema[row] = change(stored[row], schema[row])
        for name, column in (("stored", stored), ("schema", schema)):
            index = table.schema.get_field_index(name)
            field = table.schema.field(index)
            table = table.set_column(index, field, pa.array(column, field.type))
        pq.write_table(table, full, compression="zstd")
        return
    raise AssertionError(f"no {kind} of {game_id} in the archive")


def tamper(url: str, game_id: str, kind: str, change: Callable[[dict], None]) -> None:
    """Rewrite the file holding `game_id` with the data of its first event of stored type
    `kind` changed by `change` (the event as a dict), every other row as it was."""

    def changed(stored: bytes, schema: int) -> tuple[bytes, int]:
        event = msgspec.msgpack.decode(stored)
        change(event)
        return msgspec.msgpack.encode(event), schema

    rewrite(url, game_id, kind, changed, every=False)


def out_of_turn(event: dict) -> None:
    # The first move, made by the next seat, whose turn it is not.
    event["seat"] = (event["seat"] + 1) % RULESETS["poison"].players[0]


def other_totals(event: dict) -> None:
    event["totals"][0] += 1


@pytest.mark.parametrize(
    ("ruleset", "kind", "change", "says"),
    [
        ("poison", "card_played", out_of_turn, "event 3: card_played: seat "),
        ("poison", "game_finished", other_totals, "its game_finished names other totals"),
        ("pot", "pot:game_finished", other_totals, "its game_finished names other totals"),
    ],
    ids=["illegal-move", "poison-totals", "pot-totals"],
)
def test_a_tampered_archive_names_the_tampered_game_invalid_and_exits_1(archived, ruleset, kind, change, says):
    game_id = next(game for game, name in archived.rulesets.items() if name == ruleset)
    tamper(archived.url, game_id, kind, change)
    result = poison_read("replay", "--archive", archived.url)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"game {game_id}: invalid: ")
    assert says in lines[0]
    games = len(archived.rulesets)
    assert lines[1] == f"{games - 1} of {games} archived games valid"
    assert lines[2].startswith(summary(games, sum(archived.events.values()), sum(archived.moves.values())))


def test_archive_lists_each_day_with_its_files_games_events_and_bytes(archived, settings):
    result = poison_read("archive", *store_flags(settings), env=store_env(settings))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    archive = Archive(archived.url)
    files = archive.files()
    days = sorted({path.split("/")[0].removeprefix("day=") for path in files})
    rows = table_rows(result.stdout)
    games, events = len(archived.rulesets), sum(archived.events.values())
    size = sum(archive.size(path) for path in files)
    total = ["total", str(len(files)), str(games), f"{events:,}", f"{size:,}"]
    assert [row[0] for row in rows] == [*days, "total"]
    assert rows[-1] == total
    if len(days) == 1:  # every game ended on the same day (unless the test ran over midnight)
        assert rows[0] == [days[0], *total[1:]]
    assert result.stdout.startswith(f"the archive at {archived.url}\n")
    assert result.stdout.endswith("0 games are over and waiting in the store to move\n")


def test_archive_now_moves_a_finished_game_out_of_redis(settings):
    async def finished() -> str:
        async with AsyncTestClient(create_app(settings)) as client:
            return (await finished_table(client, RULESETS["poison"], seed=8)).game_id

    game_id = asyncio.run(finished())
    stream = f"{settings.namespace}:{{{game_id}}}:events"
    store = redis.Redis.from_url(str(settings.redis_url))
    try:
        assert store.exists(stream) == 1
        before = poison_read("archive", *store_flags(settings), env=store_env(settings))
        assert before.returncode == 0, before.stderr
        assert before.stdout == (
            f"nothing is archived at {settings.archive_location()} yet\n"
            "1 game is over and waiting in the store to move\n"
        )
        moved = poison_read("archive", "--now", *store_flags(settings), env=store_env(settings))
        assert moved.returncode == 0, moved.stderr
        assert moved.stdout.startswith("archived 1 game into 1 file\n")
        assert moved.stdout.endswith("0 games are over and waiting in the store to move\n")
        assert table_rows(moved.stdout)[-1][:3] == ["total", "1", "1"]
        assert store.exists(stream) == 0
    finally:
        store.close()
    checked = poison_read("replay", "--archive", settings.archive_location())
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.startswith("1 of 1 archived game valid\n1 game, ")


def test_archive_without_a_reachable_store_still_shows_the_archive_but_now_fails(archived, settings):
    flags = ["--redis-url", "redis://127.0.0.1:1", "--archive-url", archived.url]
    shown = poison_read("archive", *flags)
    assert shown.returncode == 0
    assert table_rows(shown.stdout)[-1][:3] == ["total", str(len(Archive(archived.url).files())), "6"]
    assert "waiting" not in shown.stdout
    assert shown.stderr.startswith("poison archive: the store could not be reached: ")
    assert len(shown.stderr.splitlines()) == 1
    now = poison_read("archive", "--now", *flags)
    assert now.returncode == 1
    assert now.stdout == ""
    assert len(now.stderr.splitlines()) == 1
    assert now.stderr.startswith("poison archive: ")


def test_an_archive_with_no_files_or_a_url_that_cannot_be_read_fails_in_one_line(tmp_path):
    for url, says in (
        (str(tmp_path / "empty"), f"no archived games at {tmp_path / 'empty'}: the archive has no files"),
        ("nosuch://bucket/archive", "cannot read the archive nosuch://bucket/archive: "),
    ):
        result = poison_read("replay", "--archive", url)
        assert result.returncode == 1
        assert result.stdout == ""
        assert len(result.stderr.splitlines()) == 1
        assert result.stderr.startswith(f"poison replay: {says}")
    unread = poison_read("archive", "--archive-url", "nosuch://bucket/archive", "--redis-url", "redis://127.0.0.1:1")
    assert unread.returncode == 1
    assert unread.stdout == ""
    assert (
        unread.stderr == "poison archive: cannot read the archive nosuch://bucket/archive: Protocol not known: nosuch\n"
    )


def test_replay_archive_refuses_a_version_in_one_line_and_a_log_as_a_usage_error(tmp_path):
    refused = poison_read("replay", "--archive", str(tmp_path), "--version", "3")
    assert_one_line_refusal(refused, "replay", "--archive checks a whole archive: give it no logs and no --version")
    both = poison_read("replay", "--archive", str(tmp_path), "game.ndjson")
    assert both.returncode == 2
    assert both.stderr.endswith("poison replay: error: argument log: not allowed with argument --archive\n")


@pytest.mark.subprocess
def test_a_shell_sees_exit_status_0_for_a_valid_archive_checked_by_two_processes(archived):
    result = poison("replay", "--archive", archived.url, "--jobs", "2")
    assert result.returncode == 0, result.stderr
    games = len(archived.rulesets)
    events, moves = sum(archived.events.values()), sum(archived.moves.values())
    assert result.stdout.startswith(f"{games} of {games} archived games valid\n{summary(games, events, moves)}")


def check_valid(archived: Archived) -> None:
    """`poison replay --archive` finds every game of `archived` valid, each counted."""
    result = poison_read("replay", "--archive", archived.url)
    assert result.returncode == 0, result.stdout + result.stderr
    games = len(archived.rulesets)
    events, moves = sum(archived.events.values()), sum(archived.moves.values())
    assert result.stdout.startswith(f"{games} of {games} archived games valid\n{summary(games, events, moves)}")


def test_an_abandoned_game_of_each_ruleset_in_the_archive_is_valid(settings):
    archived = asyncio.run(play_and_archive(settings, [[("poison", 4)]], abandoned=["poison", "pot"]))
    assert len(archived.rulesets) == 3
    check_valid(archived)


def as_schema_1(stored: bytes, schema: int) -> tuple[bytes, int]:
    # round_scored v1, as the first drafts stored it: each seat's taken counts as a list.
    assert schema == 2
    event = msgspec.msgpack.decode(stored)
    event["taken"] = [[t["red"], t["blue"], t["purple"], t["poison"]] for t in event["taken"]]
    del event["type"]
    return msgspec.msgpack.encode(event), 1


def test_a_game_whose_rounds_are_stored_in_an_older_schema_is_upcast_and_valid(archived):
    game_id = next(game for game, name in archived.rulesets.items() if name == "poison")
    rewrite(archived.url, game_id, "round_scored", as_schema_1, every=True)
    check_valid(archived)


def test_an_archived_event_that_does_not_decode_is_named_with_its_version(archived):
    game_id = next(game for game, name in archived.rulesets.items() if name == "pot")
    rewrite(archived.url, game_id, "pot:card_played", lambda stored, schema: (b"\xc1", schema), every=False)
    archive = Archive(archived.url)
    rows = [archive.read_file(path) for path in archive.files()]
    entries = [entry for ids, read in rows for row_id, entry in zip(ids, read, strict=True) if row_id == game_id]
    at = next(int(version.split(b"-")[1]) for version, fields in entries if fields[1] == b"pot:card_played")
    result = poison_read("replay", "--archive", archived.url)
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith(f"game {game_id}: invalid: event {at}: unreadable stored event: ")
