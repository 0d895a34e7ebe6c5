"""The lobby: the games the API lists, page by page and by status; the seats a new game offers."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from playwright.sync_api import Page

from tests.browser.conftest import Watched
from tests.browser.table import create

pytestmark = pytest.mark.browser

#: The lobby's page of games (service/static/js/lobby.js).
PAGE = 10


def listed(served: str, **params: str | int) -> dict:
    answer = httpx.get(f"{served}/v1/games", params={"limit": PAGE, **params}, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def rows(page: Page) -> list[str]:
    return page.locator("table.game-list tbody tr").evaluate_all("all => all.map(row => row.dataset.game)")


def test_the_lobby_lists_the_games_page_by_page_and_by_status_as_the_api_does(
    open_page: Callable[..., Watched], served: str
) -> None:
    for seed in range(PAGE + 2):  # finished at once: bots alone
        create(served, [{"name": "Ana", "bot": "greedy"}, {"name": "Bob", "bot": "random"}], ruleset="pot", seed=seed)
    create(served, [{"name": "Ana"}, {"name": "Bob", "bot": "greedy"}, {"name": "Cy", "bot": "random"}])
    page = open_page("#/?status=finished").page
    page.wait_for_selector("table.game-list tbody tr")

    first = listed(served, status="finished")
    assert rows(page) == [game["game_id"] for game in first["games"]]
    assert set(page.locator("table.game-list tbody tr").evaluate_all("all => all.map(r => r.dataset.status)")) == {
        "finished"
    }
    page.get_by_role("button", name="Older →").click()
    second = listed(served, status="finished", cursor=first["next"])
    page.wait_for_selector(f'tr[data-game="{second["games"][0]["game_id"]}"]')
    assert rows(page) == [game["game_id"] for game in second["games"]]
    assert page.locator(".page-number").inner_text() == "page 2"
    page.get_by_role("button", name="← Newer").click()
    page.wait_for_selector(f'tr[data-game="{first["games"][0]["game_id"]}"]')
    assert rows(page) == [game["game_id"] for game in first["games"]]

    page.get_by_role("button", name="Active", exact=True).click()
    page.wait_for_selector('table.game-list tbody tr[data-status="active"]')
    assert rows(page) == [game["game_id"] for game in listed(served, status="active")["games"]]
    page.locator('tr[data-status="active"]').first.get_by_role("link", name="Watch").click()
    page.wait_for_selector('section.table-screen[data-mode="watch"][data-version]')


def test_the_lobby_offers_the_seats_and_options_the_api_document_allows(
    open_page: Callable[..., Watched], served: str
) -> None:
    page = open_page().page
    seats = page.locator(".seat-editor .seat-row")
    seats.first.wait_for()
    assert seats.count() == 3  # Poison's fewest
    assert page.locator(".remove-seat").first.is_disabled()
    for _ in range(3):
        page.get_by_role("button", name="+ Add a seat").click()
    assert seats.count() == 6
    assert page.get_by_role("button", name="+ Add a seat").is_disabled(), "Poison seats six at most"
    rounds = page.locator('input[data-path="rounds"]')
    assert (rounds.get_attribute("min"), rounds.get_attribute("max")) == ("1", "20")
    assert page.locator('select[data-path="rules.cauldrons"] option').all_inner_texts() == ["dynamic", "fixed"]
    assert page.locator(".seat-kind").first.locator("option").all_inner_texts() == [
        "a person",
        "bot: greedy",
        "bot: mcts",
        "bot: random",
    ]

    page.get_by_role("radio", name="The pot game").check()
    assert page.locator('input[data-path="rounds"]').count() == 0, "the pot game has no rounds"
    for _ in range(4):
        page.locator(".remove-seat").last.click()
    assert seats.count() == 2
    assert page.locator(".remove-seat").first.is_disabled(), "the pot game seats two at least"
