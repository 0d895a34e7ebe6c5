"""The table for every hand and screen: played with the keyboard alone, on a phone-sized
screen without sideways scrolling, and a seat link that is no seat's said so plainly."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from tests.browser.conftest import PHONE, Watched
from tests.browser.table import TABLE, create, my_turn_or_over, read, token_of, version_shown

pytestmark = pytest.mark.browser

PEOPLE_AND_BOTS = {
    "poison": ([{"name": "Ana"}, {"name": "Bob", "bot": "greedy"}, {"name": "Cy", "bot": "random"}], {}),
    "pot": ([{"name": "Ana"}, {"name": "Bob", "bot": "greedy"}], {"ruleset": "pot"}),
}


def last_move_of(served: str, game_id: str, seat: int) -> dict:
    events = httpx.get(f"{served}/v1/games/{game_id}/events", params={"limit": 5000}).json()["events"]
    return next(e["data"] for e in reversed(events) if e["type"] == "card_played" and e["data"]["seat"] == seat)


@pytest.mark.parametrize("ruleset", ["poison", "pot"])
def test_a_seat_plays_with_the_keyboard_alone(open_page: Callable[..., Watched], served: str, ruleset: str) -> None:
    players, options = PEOPLE_AND_BOTS[ruleset]
    created = create(served, players, seed=8, **options)
    game_id = created["game_id"]
    page = open_page(f"#/games/{game_id}?token={token_of(created, 'Ana')}").page
    for _ in range(2):
        assert my_turn_or_over(page) == "active"
        before = version_shown(page)
        focused = page.locator(".hand-card:focus")
        focused.wait_for()  # on its turn, the hand has the keyboard's attention
        page.keyboard.press("End")
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("Escape")
        card = page.evaluate("document.activeElement.dataset.card")
        page.keyboard.press("Enter")
        assert page.locator(".hand-card.selected").get_attribute("data-card") == card
        page.keyboard.press("Escape")
        assert page.locator(".hand-card.selected").count() == 0, "Esc puts the card back"
        page.keyboard.press("Enter")
        key = "1"  # Poison: the first cauldron it may go into below; the pot game: keep the pot open
        if ruleset == "poison":
            key = page.locator("button.cauldron.target").first.get_attribute("data-cauldron") or ""
            key = str(int(key) + 1)
        page.keyboard.press(key)
        page.wait_for_function(
            "([table, before]) => Number(document.querySelector(table).dataset.version) > before", arg=[TABLE, before]
        )
        played = last_move_of(served, game_id, 0)
        assert played["card"] == card
        if ruleset == "poison":
            assert played["cauldron"] == int(key) - 1
        else:
            assert played["close"] is False


@pytest.mark.parametrize("ruleset", ["poison", "pot"])
def test_the_table_fits_a_phone_screen_without_sideways_scrolling(
    open_page: Callable[..., Watched], served: str, ruleset: str
) -> None:
    players, options = PEOPLE_AND_BOTS[ruleset]
    created = create(served, [*players, {"name": "Dee", "bot": "random"}], seed=9, **options)
    page = open_page(f"#/games/{created['game_id']}?token={token_of(created, 'Ana')}", phone=True).page
    for _ in range(3):
        assert my_turn_or_over(page) == "active"
        page.locator('.hand-card[data-legal="true"]').last.tap()
        page.locator("button.cauldron.target, button.action-add").first.tap()
    assert my_turn_or_over(page) == "active"
    page.locator('.hand-card[data-legal="true"]').first.tap()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # The board and the hand are both on the first screen: no scrolling to play a card.
    for part in (".hand-card.selected", "button.cauldron.target, button.action-add"):
        box = page.locator(part).first.bounding_box()
        assert box is not None
        assert box["y"] + box["height"] <= PHONE["height"], part


def test_a_link_whose_token_is_no_seat_of_the_game_says_so_and_offers_to_watch(
    open_page: Callable[..., Watched], served: str
) -> None:
    created = create(served, [{"name": "Ana"}, {"name": "Bob", "bot": "greedy"}, {"name": "Cy", "bot": "random"}])
    other = create(served, [{"name": "Ana"}, {"name": "Bob", "bot": "greedy"}, {"name": "Cy", "bot": "random"}])
    watched = open_page(f"#/games/{created['game_id']}?token={token_of(other, 'Ana')}")
    refused = watched.expect(401, f"/v1/games/{created['game_id']}")
    page = watched.page
    notice = page.get_by_role("alert")
    notice.wait_for()
    assert "401 unauthorized" in notice.inner_text()
    assert "no seat of this game" in notice.inner_text()
    assert refused.seen == 1
    page.get_by_role("link", name="Watch this game instead").click()
    page.wait_for_selector(f'{TABLE}[data-mode="watch"][data-version="{read(served, created["game_id"])["version"]}"]')
    assert page.locator(".hand").count() == 0


def test_the_lobby_fits_a_phone_screen_without_sideways_scrolling(open_page: Callable[..., Watched]) -> None:
    page = open_page(phone=True).page
    page.get_by_role("button", name="+ Add a seat").tap()
    page.get_by_role("button", name="Create the game").tap()
    page.locator("section.created").wait_for()
    page.locator("table.game-list").wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_names_are_shown_as_they_were_written_never_as_markup(open_page: Callable[..., Watched], served: str) -> None:
    hostile = ['<img src=x onerror="alert(1)">', "[b]Bo[/b] & <i>co</i>", '"><script>x=1</script>']
    created = create(served, [{"name": name, "bot": "random"} for name in hostile], rounds=1, seed=2)
    page = open_page(f"#/games/{created['game_id']}").page
    page.wait_for_selector(f'{TABLE}[data-status="finished"]')
    assert page.locator(".seat .name").all_inner_texts() == hostile
    assert page.locator(".seat img, .seat i, .seat script").count() == 0
    assert page.locator("img").count() == 1, "the masthead's icon only"
    assert hostile[1] in page.locator(".feed").inner_text()
