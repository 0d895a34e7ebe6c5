"""docs/archive.md's DuckDB queries, run as a reader would run them, in the folder that holds
the archive, over games of both rulesets; each answer is checked against the games' own
events."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import duckdb
import pytest

from events.archive import Archive, day_of
from events.codec import GameFinished
from events.poison.schema import CauldronOverflowed
from events.store import EventStore
from tests.archive.games import finished_games

pytestmark = pytest.mark.anyio

DOCUMENT = Path(__file__).parents[2] / "docs" / "archive.md"


def queries() -> list[str]:
    return re.findall(r"```sql\n(.*?)```", DOCUMENT.read_text(), flags=re.S)


def test_the_archive_document_gives_three_queries() -> None:
    assert len(queries()) == 3


async def test_each_query_of_the_document_answers_what_the_games_say(
    redis_url: str, namespace: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = EventStore.from_url(redis_url, namespace=namespace, archive=Archive(str(tmp_path / "archive")))
    ids = await finished_games(store, 40)
    assert (await store.archiver(after_ms=0).pass_once()).games == len(ids)
    logs = {game_id: [event for _, event in await store.read(game_id)] for game_id in ids}
    summaries = {game_id: await store.recorder.row(game_id, "summary") for game_id in ids}
    placed = {game_id: await store.placed(game_id) for game_id in ids}
    await store.close()
    ruleset = {game_id: summaries[game_id][b"ruleset"].decode() for game_id in ids}

    per_day: Counter[tuple[str, str]] = Counter()
    for game_id in ids:
        where = placed[game_id]
        assert where is not None
        per_day[(where.path.split("/")[0].removeprefix("day="), ruleset[game_id])] += 1
    wins: Counter[tuple[str, int]] = Counter()
    taken: Counter[str] = Counter()
    for game_id, log in logs.items():
        for event in log:
            if isinstance(event, GameFinished):
                wins.update((ruleset[game_id], seat) for seat in event.winners)
            if isinstance(event, CauldronOverflowed):
                taken.update(event.taken)

    monkeypatch.chdir(tmp_path)  # the document's paths are relative to the archive's folder
    by_day, by_seat, most_taken = (duckdb.sql(query).fetchall() for query in queries())
    assert [(str(day), rules, games) for day, rules, games in by_day] == sorted(
        (day, rules, games) for (day, rules), games in per_day.items()
    )
    assert by_seat == sorted((rules, seat, count) for (rules, seat), count in wins.items())
    assert most_taken == sorted(taken.items(), key=lambda item: (-item[1], item[0]))[:5]
    assert len({day for day, _, _ in by_day}) >= 1
    assert day_of(0) == "day=1970-01-01"
