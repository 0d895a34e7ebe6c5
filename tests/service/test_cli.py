"""The `poison` command run to its end in this process (`service.cli.main`), bad input included."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from events.poison.schema import encode_public, to_public
from tests.events.logs import game_log
from tests.service.command import assert_one_line_refusal, assert_tampered_log_refused, poison_here


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[Path, list]:
    log, logged = game_log(4, seed=61, rounds=2)
    path = tmp_path_factory.mktemp("logs") / "game.ndjson"
    path.write_bytes(b"".join(encode_public(to_public(v, e)) + b"\n" for v, e in enumerate(log, 1)))
    return path, logged


def test_help_lists_every_command_and_each_command_explains_itself():
    top = poison_here("--help")
    assert top.returncode == 0
    for command in ("serve", "replay", "simulate", "play"):
        assert command in top.stdout
        helped = poison_here(command, "--help")
        assert helped.returncode == 0
        assert "usage: poison " + command in helped.stdout


def test_no_command_is_a_usage_error():
    result = poison_here()
    assert result.returncode == 2
    assert "COMMAND" in result.stderr


def test_replay_shows_a_valid_log_round_by_round(exported):
    path, logged = exported
    result = poison_here("replay", str(path))
    assert result.returncode == 0, result.stderr
    assert f"valid up to event {logged.version}" in result.stdout
    assert "finished" in result.stdout
    for total in logged.game.totals:
        assert str(total) in result.stdout
    partial = poison_here("replay", str(path), "--version", "30")
    assert partial.returncode == 0
    assert "valid up to event 30" in partial.stdout
    assert "in play: round 1 of 2" in partial.stdout


def test_replay_names_the_first_bad_event_of_a_tampered_log(exported, tmp_path):
    assert_tampered_log_refused(exported[0], tmp_path, "card_played", lambda data: data.update(total=data["total"] + 1))


def test_replay_refuses_a_malformed_line_or_a_missing_file(exported, tmp_path):
    path, _ = exported
    lines = path.read_text().splitlines()
    broken = tmp_path / "broken.ndjson"
    broken.write_text("\n".join([*lines[:3], "{this is not json", *lines[4:]]) + "\n")
    result = poison_here("replay", str(broken))
    assert result.returncode == 1
    assert "event 4: line 4 is not an event" in result.stderr
    missing = poison_here("replay", str(tmp_path / "nowhere.ndjson"))
    assert missing.returncode == 2
    assert "cannot read" in missing.stderr
    assert poison_here("replay", str(path), "--version", "0").returncode == 2


def test_replay_reads_a_stored_game(redis_url, namespace):
    import asyncio

    from events.games import Games
    from events.poison.schema import Player
    from events.store import EventStore

    async def store_one():
        store = EventStore.from_url(redis_url, namespace=namespace)
        seats = tuple(Player(seat=s, name=f"bot{s}", bot="greedy") for s in range(3))
        _, logged = await Games(store).create(
            "stored", seats, options={"rounds": 1}, seed=2, token_hashes={}, created_ms=1
        )
        await store.close()
        return logged

    logged = asyncio.run(store_one())
    # Only the namespace from the environment: none of this session's other POISON_* settings.
    env: dict[str, str | None] = {name: None for name in os.environ if name.startswith("POISON_")}
    env["POISON_NAMESPACE"] = namespace
    result = poison_here("replay", "--game", "stored", "--redis-url", redis_url, env=env)
    assert result.returncode == 0, result.stderr
    assert f"valid up to event {logged.version}" in result.stdout
    missing = poison_here("replay", "--game", "nothere", "--redis-url", redis_url, env=env)
    assert missing.returncode == 1
    assert "no game 'nothere'" in missing.stderr


GREEDY_AGAINST_RANDOM = (
    "simulate",
    "--players",
    "4",
    "--games",
    "2000",
    "--bots",
    "greedy,random,random,random",
    "--seed",
    "5",
    "--json",
)


def test_simulate_reports_each_seat_as_json():
    result = poison_here(*GREEDY_AGAINST_RANDOM)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["games"] == 2000
    assert [seat["bot"] for seat in report["seats"]] == ["greedy", "random", "random", "random"]
    assert report["seats"][0]["win_rate"] > 0.9
    assert sum(seat["wins"] for seat in report["seats"]) >= 2000
    assert all(seat["spread"] >= 0 for seat in report["seats"])
    assert report["games_per_s"] > 0
    again = json.loads(poison_here(*GREEDY_AGAINST_RANDOM).stdout)
    assert [s["wins"] for s in again["seats"]] == [s["wins"] for s in report["seats"]]


def test_simulate_shows_a_table():
    result = poison_here("simulate", "--players", "3", "--games", "500", "--bots", "greedy")
    assert result.returncode == 0
    assert "win rate" in result.stdout
    assert "games/s" in result.stdout


POT_GAME = ["--ruleset", "pot", "--games", "10"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--players", "7"], "3 to 6 players"),
        (["--bots", "smart"], "unknown bot 'smart'"),
        (["--bots", "greedy,random"], "names 2 bots for 4 players"),
        (["--games", "0"], "--games"),
        (["--cauldrons", "round"], "cauldrons must be"),
        ([*POT_GAME, "--rounds", "3"], "--rounds is not an option of --ruleset pot (it has none)"),
        ([*POT_GAME, "--cauldrons", "fixed"], "--cauldrons is not an option of --ruleset pot"),
        ([*POT_GAME, "--players", "1"], "--ruleset pot is played by 2 to 6 players, not 1"),
        ([*POT_GAME, "--players", "7"], "--ruleset pot is played by 2 to 6 players, not 7"),
        ([*POT_GAME, "--bots", "clever"], "unknown bot 'clever': choose from random, greedy"),
    ],
)
def test_simulate_refuses_bad_options_of_either_game_in_one_line_on_stderr(args, says):
    assert_one_line_refusal(poison_here("simulate", *args), "simulate", says)
