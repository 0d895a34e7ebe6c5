"""Fair deals at the table: a live game's page shows the commitment to its deals from the
start, so that a player can note it; a replayed log says in words whether that commitment
holds, or that the log is from before games committed to their deals, as the replay answer's
`commitment` says; and a finished game's page says it holds only once the service has
replayed its log."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.browser.conftest import Watched
from tests.browser.table import STEPS, TABLE, altered, create, drop_file, exported, finished_game, token_of

pytestmark = pytest.mark.browser

HOLDS = "The deals were fixed before play: the seed commitment holds"
NOTHING_TO_CHECK = "This log is from before games committed to their deals: nothing to check."
#: The hex digits of a commitment the page shows at a glance (service/static/js/commitment.js).
SHORT = 16


def test_a_dropped_honest_log_says_its_deals_were_fixed_before_play_and_the_commitment_holds(
    open_page: Callable[..., Watched], served: str
) -> None:
    created = finished_game(served, "poison", 3)
    commitment = created["game"]["seed_commitment"]
    page = open_page("#/replay").page
    drop_file(page, ".drop-zone", exported(served, created["game_id"]), "honest.ndjson")
    page.wait_for_selector(f"{STEPS}[data-version]")

    said = page.locator(".commitment-verdict")
    assert said.get_attribute("data-commitment-status") == "holds"
    assert said.inner_text().startswith(HOLDS)
    shown = said.locator(".commitment-code")
    assert shown.inner_text() == f"{commitment[:SHORT]}…", "the commitment at a glance"
    assert shown.get_attribute("title") == commitment, "and in full on hover"


def test_a_dropped_log_from_before_commitments_says_there_is_nothing_to_check(
    open_page: Callable[..., Watched], served: str
) -> None:
    def uncommitted(created: dict) -> None:
        del created["data"]["seed_commitment"], created["data"]["salt"]

    game_id = finished_game(served, "pot", 2)["game_id"]
    page = open_page("#/replay").page
    drop_file(page, ".drop-zone", altered(served, game_id, 1, "game_created", uncommitted), "old.ndjson")
    page.wait_for_selector(f"{STEPS}[data-version]")

    said = page.locator(".commitment-verdict")
    assert said.get_attribute("data-commitment-status") == "none"
    assert said.inner_text() == NOTHING_TO_CHECK
    assert page.locator(".commitment-code").count() == 0
    assert HOLDS not in page.locator("main").inner_text()


def test_a_live_game_shows_its_commitment_from_the_start_and_never_that_it_holds(
    open_page: Callable[..., Watched], served: str
) -> None:
    created = create(
        served, [{"name": "Ana"}, {"name": "Bob", "bot": "greedy"}, {"name": "Cy", "bot": "greedy"}], rounds=1
    )
    commitment = created["game"]["seed_commitment"]
    page = open_page(f"#/games/{created['game_id']}?token={token_of(created, 'Ana')}").page
    page.wait_for_selector(f'{TABLE}[data-status="active"]')

    summary = page.locator(".deals summary")
    assert summary.inner_text() == f"Deals committed: {commitment[:SHORT]}…"
    assert summary.locator(".commitment-code").get_attribute("title") == commitment
    summary.click()
    assert page.locator(".deals .commitment-whole").inner_text() == commitment, "whole, to note without hovering"
    # While the game is active nothing can be checked: the page claims nothing.
    assert page.locator(".commitment-verdict, .check-deals").count() == 0
    assert "holds" not in page.locator("main").inner_text()


def test_a_finished_game_says_its_commitment_holds_only_once_the_service_replayed_its_log(
    open_page: Callable[..., Watched], served: str
) -> None:
    created = finished_game(served, "pot", 3)
    watched = open_page(f"#/games/{created['game_id']}")
    page = watched.page
    page.wait_for_selector(f'{TABLE}[data-status="finished"]')
    page.locator(".deals summary").click()
    assert page.locator(".commitment-verdict").count() == 0, "no verdict before the service gave one"

    with page.expect_response(lambda answer: "/v1/replays" in answer.url) as replayed:
        page.get_by_role("button", name="Check the deals").click()
    assert replayed.value.json()["commitment"] == "holds"
    said = page.locator(".deals .commitment-verdict")
    said.wait_for()
    assert said.inner_text().startswith(HOLDS)
    assert said.locator(".commitment-code").get_attribute("title") == created["game"]["seed_commitment"]
    assert page.locator(".check-deals").count() == 0
    assert any(sent.url.endswith(f"/v1/games/{created['game_id']}/export") for sent in watched.requests)
