"""Fair deals over a real `poison serve`: the live stream of an active game, which the
in-process test client cannot read while it waits, shows the commitment and neither the
seed nor the salt."""

from __future__ import annotations

import httpx
import msgspec
import pytest

from tests.service.test_serve import served

pytestmark = pytest.mark.subprocess

__all__ = ["served"]  # the fixture, shared with test_serve.py


def test_the_live_stream_of_an_active_game_shows_its_commitment_and_not_its_seed_or_salt(served):
    base, _ = served
    seed = 8_123_456_789_012_345_678
    body = {"players": [{"name": n} for n in "abc"], "seed": seed}
    created = httpx.post(f"{base}/v1/games", json=body, timeout=10).json()
    game_id = created["game_id"]
    first: dict = {}
    with httpx.stream("GET", f"{base}/v1/games/{game_id}/events/stream", timeout=10) as stream:
        for line in stream.iter_lines():
            assert str(seed) not in line
            if line.startswith("data: "):
                first = msgspec.json.decode(line[len("data: ") :])
                break  # game_created comes first; the stream would wait on for moves
    assert first["type"] == "game_created"
    data = first["data"]
    assert (data["seed"], data["salt"]) == (None, None)
    assert data["seed_commitment"] == created["game"]["seed_commitment"]
