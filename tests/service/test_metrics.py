"""`GET /metrics`: every request measured under its route's template and status, problems
by code, live streams while open; with two workers, one scrape sums them both. In process
on the session's store, then one real `poison serve` with two workers (and one whose store
fails to start: its workers' metrics directory is removed all the same)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from service import metrics
from service.metrics import MULTIPROCESS_VARIABLE
from tests.service.api import auth, create, view
from tests.service.served import serving

MOVES = "/v1/games/{game_id}/moves"

pytestmark = pytest.mark.anyio


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a scrape, by its name and its labels."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def requests(scraped: dict, method: str, route: str, status: int) -> float:
    labels = (("method", method), ("route", route), ("status", str(status)))
    return scraped.get(("poison_http_request_duration_seconds_count", labels), 0.0)


async def scrape(client) -> dict:
    response = await client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    return samples(response.text)


async def test_a_move_is_measured_under_its_route_template_and_never_its_game_id(client):
    created, tokens = await create(client, 3)
    game_id = created["game_id"]
    before = await scrape(client)
    seat = (await view(client, game_id))["turn"]
    move = (await view(client, game_id, tokens[seat]))["you"]["legal_moves"][0]
    played = await client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(tokens[seat]))
    assert played.status_code == 201, played.text
    text = (await client.get("/metrics")).text
    after = samples(text)
    assert requests(after, "POST", MOVES, 201) == requests(before, "POST", MOVES, 201) + 1
    moves = ("poison_moves_total", (("ruleset", "poison"),))
    assert after[moves] == before.get(moves, 0.0) + 1  # counted by the games layer
    appends = ("poison_store_append_seconds_count", ())
    assert after[appends] == before[appends] + 1  # and its one append, by the store
    buckets = [
        value
        for (name, labels), value in after.items()
        if name == "poison_http_request_duration_seconds_bucket" and ("route", MOVES) in labels
    ]
    assert buckets
    assert max(buckets) >= 1
    assert game_id not in text
    assert not any(token in text for token in tokens.values())


async def test_problems_are_counted_by_their_code(client):
    code = ("poison_problems_total", (("code", "game_not_found"),))
    before = (await scrape(client)).get(code, 0.0)
    assert (await client.get("/v1/games/nosuchgame")).status_code == 404
    assert (await client.get("/v1/games/nosuchgame/scores")).status_code == 404
    assert (await scrape(client))[code] == before + 2


async def test_unknown_paths_and_methods_are_labelled_without_their_own_words(client):
    before = await scrape(client)
    assert (await client.get("/no/such/path/xyzzy")).status_code == 404
    assert (await client.request("BREW", "/v1/games")).status_code == 405
    after = await scrape(client)
    assert requests(after, "GET", "unmatched", 404) == requests(before, "GET", "unmatched", 404) + 1
    assert requests(after, "other", "unmatched", 405) == requests(before, "other", "unmatched", 405) + 1
    assert not any("xyzzy" in str(labels) or "BREW" in str(labels) for _, labels in after)
    assert not any(method not in metrics.METHODS | {"other"} for method, _, _ in metrics._children)


async def test_metrics_are_not_in_the_public_api_document(client):
    document = (await client.get("/schema/openapi.json")).json()
    assert document["paths"]
    assert not any("metrics" in path for path in document["paths"])


@pytest.mark.subprocess
def test_one_scrape_sums_every_worker_and_counts_open_live_streams(tmp_path: Path, redis_url: str):
    settings = {"POISON_REDIS_URL": redis_url, "POISON_NAMESPACE": "metrics2"}
    with serving(tmp_path, workers=2, **settings) as base, httpx.Client(base_url=base, timeout=10) as http:
        workers: dict[str, int] = {}
        deadline = time.monotonic() + 20
        while len(workers) < 2 or min(workers.values()) < 3:  # each worker answered a few
            assert time.monotonic() < deadline, workers
            # A new connection each time: the kernel spreads them over the workers.
            answered = httpx.get(f"{base}/health/live", timeout=5)
            assert answered.status_code == 200
            worker = answered.headers["x-poison-worker"]
            workers[worker] = workers.get(worker, 0) + 1
        scraped = samples(http.get("/metrics").text)
        assert requests(scraped, "GET", "/health/live", 200) == sum(workers.values())

        created = http.post("/v1/games", json={"players": [{"name": n} for n in "abc"]}).json()
        live = ("poison_live_streams", ())
        with http.stream("GET", f"/v1/games/{created['game_id']}/events/stream") as stream:
            assert stream.status_code == 200
            assert stream.headers["x-request-id"]
            assert samples(httpx.get(f"{base}/metrics").text)[live] == 1
        deadline = time.monotonic() + 30
        while samples(http.get("/metrics").text)[live] != 0:  # the worker sees the client gone
            assert time.monotonic() < deadline
            time.sleep(0.05)


@pytest.mark.subprocess
def test_poison_serve_whose_store_fails_to_start_leaves_no_metrics_directory_behind(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("POISON_", MULTIPROCESS_VARIABLE))}
    env |= {"TMPDIR": str(tmp_path), "POISON_REDIS_SERVER": "/bin/false", "POISON_WORKERS": "2"}
    env["POISON_DATA_DIR"] = str(tmp_path / "data")
    result = subprocess.run(
        [sys.executable, "-m", "service.cli", "serve"], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1, result.stderr
    assert "the embedded server exited" in result.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["data"]  # no poison-metrics-*
