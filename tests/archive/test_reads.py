"""Every read of a game answers the same bytes before and after the game moves to the
archive, for every ruleset: the view (and time travel), scores, the log's pages, the live
stream, the export, the listing and a rematch's next game; with and without a seat's token,
in the worker that archived it (its caches warm) and in a new one (cold)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from litestar.testing import AsyncTestClient

from core.rulesets import RULESETS, Ruleset
from events.archive import Archive
from events.archiving import Archiver
from events.recorder import RedisRecorder
from service.app import create_app
from service.settings import Settings
from service.tokens import rematch_game_id
from tests.rulesets import EVERY_RULESET
from tests.service.api import Table, auth, problem, shortest

pytestmark = pytest.mark.anyio


@pytest.fixture
def archived_settings(redis_url: str, namespace: str, tmp_path: Path) -> Settings:
    # An hour before anything moves by itself: the tests move games when they choose.
    return Settings(redis_url=redis_url, namespace=namespace, archive_url=str(tmp_path / "archive"))


@pytest.fixture
async def archiver(redis_url: str, namespace: str, archived_settings: Settings) -> AsyncIterator[Archiver]:
    recorder = RedisRecorder.from_url(redis_url, namespace=namespace)
    yield Archiver(recorder.wire, Archive(archived_settings.archive_location()), namespace=namespace)
    await recorder.close()


async def finished_table(client: AsyncTestClient, ruleset: Ruleset, seed: int) -> Table:
    players = ruleset.players[0]
    bots = dict.fromkeys(range(1, players), "random")
    table = await Table.new(client, ruleset, players, seed=seed, bots=bots, options=shortest(ruleset))
    await table.play_until(lambda game: game.status == "finished")
    return table


async def reads(client: AsyncTestClient, game_id: str, version: int, token: str) -> dict[str, tuple[int, bytes]]:
    """Every read of the game, as (status, body)."""
    paths = [
        f"/v1/games/{game_id}",
        f"/v1/games/{game_id}/scores",
        f"/v1/games/{game_id}/events",
        f"/v1/games/{game_id}/events?after=3&limit=4",
        f"/v1/games/{game_id}/events?after={version}",
        f"/v1/games/{game_id}/events/stream",
        f"/v1/games/{game_id}/events/stream?after={version - 2}",
        f"/v1/games/{game_id}/export",
        *(f"/v1/games/{game_id}?version={n}" for n in (1, 2, version // 2, version)),
        "/v1/games?status=finished",
        "/v1/games",
    ]
    answers: dict[str, tuple[int, bytes]] = {}
    for path in paths:
        for who, headers in (("anyone", {}), ("seat 0", auth(token))):
            response = await client.get(path, headers=headers)
            answers[f"{path} as {who}"] = (response.status_code, response.content)
    return answers


@EVERY_RULESET
async def test_every_read_is_the_same_bytes_once_the_game_is_archived(
    archived_settings: Settings, archiver: Archiver, ruleset: Ruleset, raw
) -> None:
    async with AsyncTestClient(create_app(archived_settings)) as client:
        table = await finished_table(client, ruleset, seed=5)
        other = await finished_table(client, ruleset, seed=6)
        rematch = await client.post(f"/v1/games/{other.game_id}/rematch", headers=auth(other.tokens[0]))
        assert rematch.status_code in (200, 201), rematch.text
        games = [(table.game_id, table.tokens[0]), (other.game_id, other.tokens[0])]
        versions = {game_id: (await client.get(f"/v1/games/{game_id}")).json()["version"] for game_id, _ in games}
        before = {game_id: await reads(client, game_id, versions[game_id], token) for game_id, token in games}
        moved = await archiver.pass_once(everything=True)
        assert moved.games == 2
        for game_id, token in games:  # this worker's caches hold the games
            assert await reads(client, game_id, versions[game_id], token) == before[game_id]
        again = await client.post(f"/v1/games/{other.game_id}/rematch", headers=auth(other.tokens[0]))
        assert (again.status_code, again.content) == (rematch.status_code, rematch.content)
    stream = f"{archived_settings.namespace}:{{{table.game_id}}}:events"
    assert await raw.exists(stream) == 0  # the log left Redis
    async with AsyncTestClient(create_app(archived_settings)) as client:  # a new worker: nothing cached
        for game_id, token in games:
            assert await reads(client, game_id, versions[game_id], token) == before[game_id]


async def test_a_rematch_of_an_archived_game_without_one_is_refused_and_writes_nothing(
    archived_settings: Settings, archiver: Archiver, raw
) -> None:
    async with AsyncTestClient(create_app(archived_settings)) as client:
        table = await finished_table(client, RULESETS["poison"], seed=7)
        await archiver.pass_once(everything=True)
        listed = (await client.get("/v1/games")).content
        refused = await client.post(f"/v1/games/{table.game_id}/rematch", headers=auth(table.tokens[0]))
        assert problem(refused, 409, "game_archived")["detail"].startswith(f"game '{table.game_id}' is archived")
        assert (await client.get("/v1/games")).content == listed
        assert await raw.exists(f"{archived_settings.namespace}:{{{rematch_game_id(table.game_id)}}}:events") == 0


async def test_an_archived_game_of_four_people_keeps_one_key_under_512_bytes_and_every_seat_reads_as_before(
    archived_settings: Settings, archiver: Archiver, raw
) -> None:
    ruleset = RULESETS["poison"]
    async with AsyncTestClient(create_app(archived_settings)) as client:
        table = await Table.new(client, ruleset, 4, seed=9, options=shortest(ruleset))
        await table.play_until(lambda game: game.status == "finished")
        path = f"/v1/games/{table.game_id}"
        before = [(await client.get(path, headers=auth(token))).content for token in table.tokens.values()]
        assert (await archiver.pass_once(everything=True)).games == 1
        prefix = f"{archived_settings.namespace}:{{{table.game_id}}}:"
        kept = sorted([key async for key in raw.scan_iter(match=prefix + "*")])
        assert kept == [(prefix + "summary").encode()]
        assert await raw.memory_usage(prefix + "summary", samples=0) <= 512
    async with AsyncTestClient(create_app(archived_settings)) as client:
        after = [(await client.get(path, headers=auth(token))).content for token in table.tokens.values()]
        assert after == before
        leave = await client.delete(f"{path}/seats/1", headers=auth(table.tokens[1]))
        assert problem(leave, 409, "game_started")  # as before it moved: the game is no lobby's
        stranger = await client.get(path, headers=auth(table.tokens[0][::-1]))
        assert problem(stranger, 401, "unauthorized")


async def test_a_read_of_an_archived_game_whose_file_is_gone_is_503_and_says_the_archive(
    archived_settings: Settings, archiver: Archiver
) -> None:
    async with AsyncTestClient(create_app(archived_settings)) as client:
        table = await finished_table(client, RULESETS["pot"], seed=11)
        await archiver.pass_once(everything=True)
    for path in Path(archived_settings.archive_location()).glob("*/*.parquet"):
        path.unlink()
    async with AsyncTestClient(create_app(archived_settings)) as client:  # nothing cached
        for read in ("", "/scores", "/events", "/export"):
            refused = await client.get(f"/v1/games/{table.game_id}{read}")
            assert "the archive cannot be read" in problem(refused, 503, "store_unavailable")["detail"]
        assert (await client.get("/v1/games?status=finished")).status_code == 200  # the listing needs no file
