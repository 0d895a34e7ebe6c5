"""The server key (issue 27, defect 5): where it comes from, that it is never shown, that a
token outlives a restart of `poison serve` on the same data directory, and that tokens of
games stored before the key (their plain SHA-256 hashes) still work for those games."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from litestar.testing import AsyncTestClient

from events.codec import Player
from events.games import Games
from service.app import create_app
from service.serverkey import KEY_FILE, KeyFileError, read_or_make
from service.settings import Settings
from service.tokens import VERIFIERS_KEPT, ServerKey, legacy_hash
from tests.service.api import auth, problem, view
from tests.service.served import serving

KEY = "a server key of the tests, long enough to be one"


def test_a_token_verifies_only_under_its_own_key_and_its_verifier_is_no_token():
    one, other = ServerKey(KEY), ServerKey(KEY[::-1])
    token = one.new_token()
    verifier = one.verifier(token)
    assert one.verifies(token, verifier)
    assert not other.verifies(token, verifier)
    assert token not in verifier
    assert not one.verifies(verifier[-43:], verifier)
    assert one.seat_of(token, {0: other.verifier(token), 1: verifier}) == 1


def test_a_verifier_is_the_same_whether_kept_from_before_or_made_again_after_many_tokens():
    keys, fresh = ServerKey("k" * 40), ServerKey("k" * 40)
    token = keys.new_token()
    first = keys.verifier(token)
    assert keys.verifier(token) == first  # kept
    for _ in range(VERIFIERS_KEPT + 1):  # more tokens than are kept: the kept ones are dropped
        keys.verifier(keys.new_token())
    assert keys.verifier(token) == first == fresh.verifier(token)
    assert keys.seat_of(token, {0: fresh.verifier(keys.new_token()), 1: first}) == 1


def test_a_rematch_token_needs_the_key_and_differs_by_seat_and_game():
    one, other = ServerKey(KEY), ServerKey(KEY[::-1])
    verifier = one.verifier(one.new_token())
    made = one.rematch_token("next", 0, verifier)
    assert made == one.rematch_token("next", 0, verifier)  # every call agrees
    assert made not in {other.rematch_token("next", 0, verifier), one.rematch_token("next", 1, verifier)}
    assert made != one.rematch_token("other", 0, verifier)


def test_a_key_shorter_than_the_bound_is_refused_without_being_shown():
    with pytest.raises(ValueError, match="POISON_SECRET_KEY") as refused:
        Settings.from_environment({"POISON_SECRET_KEY": "hunter2-is-my-key"})
    assert "hunter2" not in str(refused.value)
    assert KEY not in repr(Settings(secret_key=KEY))


def test_the_key_file_is_made_once_owner_only_and_read_back_the_same(tmp_path):
    made, fresh = read_or_make(tmp_path / "data")
    again, second = read_or_make(tmp_path / "data")
    assert (fresh, second) == (True, False)
    assert made == again
    assert len(made) >= 32
    mode = stat.S_IMODE((tmp_path / "data" / KEY_FILE).stat().st_mode)
    assert mode == 0o600
    assert sorted(os.listdir(tmp_path / "data")) == [KEY_FILE]  # no draft left behind


def test_a_key_file_that_holds_no_key_is_refused_in_words(tmp_path):
    (tmp_path / KEY_FILE).write_text("short\n")
    with pytest.raises(KeyFileError, match="fewer than 32 characters"):
        read_or_make(tmp_path)


@pytest.mark.anyio
async def test_a_token_stored_as_its_plain_hash_still_plays_and_its_rematch_is_made_with_the_key(settings, store):
    """A game stored before the server key: its seat keeps the token's SHA-256 hash."""
    token = ServerKey(KEY).new_token()
    players = (
        Player(seat=0, name="ann"),
        Player(seat=1, name="bot", bot="greedy"),
        Player(seat=2, name="b2", bot="random"),
    )
    games = Games(store)
    await games.create(
        "olden", players, seed=3, token_hashes={0: legacy_hash(token)}, created_ms=1, options={"rounds": 1}
    )
    async with AsyncTestClient(create_app(settings)) as client:
        assert (await view(client, "olden", token))["you"]["seat"] == 0
        while (game := await view(client, "olden", token))["status"] == "active":
            move = game["you"]["legal_moves"][0]
            assert (await client.post("/v1/games/olden/moves", json=move, headers=auth(token))).status_code == 201
        rematch = await client.post("/v1/games/olden/rematch", headers=auth(token))
        assert rematch.status_code == 201, rematch.text
        next_token = rematch.json()["token"]
        next_game = (await view(client, "olden"))["next_game"]
        assert (await view(client, next_game, next_token))["you"]["seat"] == 0
    # Under another key, the same store gives that token nothing.
    async with AsyncTestClient(create_app(Settings(**{**_fields(settings), "secret_key": KEY}))) as other:
        problem(await other.get(f"/v1/games/{next_game}", headers=auth(next_token)), 401, "unauthorized")


def _fields(settings: Settings) -> dict[str, object]:
    return {name: getattr(settings, name) for name in settings.__struct_fields__}


@pytest.mark.subprocess
def test_a_token_still_works_after_serve_restarts_on_the_same_data_directory(tmp_path: Path):
    body = {"players": [{"name": "ann"}, {"name": "bob", "bot": "greedy"}, {"name": "cal", "bot": "random"}]}
    with serving(tmp_path / "data") as base:
        created = httpx.post(f"{base}/v1/games", json=body, timeout=10).json()
    game_id, token = created["game_id"], created["players"][0]["token"]
    assert stat.S_IMODE((tmp_path / "data" / KEY_FILE).stat().st_mode) == 0o600
    key = (tmp_path / "data" / KEY_FILE).read_text().strip()
    with serving(tmp_path / "data", workers=2) as base:
        for _ in range(4):  # either worker
            seen = httpx.get(f"{base}/v1/games/{game_id}", headers=auth(token), timeout=10)
            assert seen.status_code == 200, seen.text
            assert seen.json()["you"]["seat"] == 0
    # The key is the data directory's, never the store's.
    aof = b"".join(p.read_bytes() for p in (tmp_path / "data").rglob("*") if p.is_file() and p.name != KEY_FILE)
    assert key.encode() not in aof


@pytest.mark.subprocess
def test_serve_help_shows_no_key_even_when_one_is_set():
    env = {**os.environ, "POISON_SECRET_KEY": KEY}
    helped = subprocess.run(
        [sys.executable, "-m", "service.cli", "serve", "--help"], env=env, capture_output=True, text=True, check=True
    )
    assert "POISON_SECRET_KEY" in helped.stdout
    assert KEY not in helped.stdout + helped.stderr
