"""The search bot at the browser table: the lobby offers `bot: mcts` and, for it, a strength
(its playouts a move, within the bounds the API document gives); a pot game against it with
a small strength is made in the lobby and played to the end by clicking, its badge saying the
strength; and while a long search runs, the banner says the bot is thinking."""

from __future__ import annotations

from collections.abc import Callable
from typing import get_args

import pytest

from service.schemas import Playouts
from tests.browser.conftest import Watched
from tests.browser.table import TABLE, create, my_turn_or_over, read, scores, token_of, totals_shown

pytestmark = pytest.mark.browser

#: Small, so the whole game's searches take milliseconds.
PLAYOUTS = 60


def test_a_pot_game_against_the_search_bot_made_in_the_lobby_is_played_to_the_end_with_its_strength_shown(
    open_page: Callable[..., Watched], served: str
) -> None:
    page = open_page().page
    page.get_by_role("radio", name="The pot game").check()
    # Six seats (a person, then the document's quick bots in turn, Bob made the search bot):
    # Ana plays 8 of the cards rather than 22 against one bot, and the game is over sooner.
    for _ in range(3):
        page.get_by_role("button", name="+ Add a seat").click()
    assert page.locator(".seat-kind").evaluate_all("(selects) => selects.map((select) => select.value)") == [
        "",
        *["greedy", "random"] * 2,
        "greedy",
    ], "new seats get the quick bots: the search bot is chosen, never given"
    kind = page.get_by_label("Seat 2: who plays")
    assert "bot: mcts" in kind.locator("option").all_inner_texts(), "the document's bots include the search bot"
    assert page.locator(".seat-playouts").count() == 0, "no strength for a bot that does not search"
    kind.select_option("mcts")
    strength = page.locator('.seat-row[data-seat="1"] .seat-playouts')
    # Its bounds are the service's, as its API document says them (service.schemas.Playouts).
    bounds = get_args(Playouts)[1]
    assert (strength.get_attribute("min"), strength.get_attribute("max")) == (str(bounds.ge), str(bounds.le))
    strength.fill(str(bounds.le + 1))
    page.get_by_role("button", name="Create the game").click()
    assert "playouts a move are a whole number from" in page.locator(".new-game .notice").inner_text()
    strength.fill(str(PLAYOUTS))
    page.get_by_role("button", name="Create the game").click()
    created = page.locator("section.created")
    created.wait_for()
    game_id = created.get_attribute("data-game") or ""
    assert f"Played by bots: Bob ({PLAYOUTS} playouts), Cy, Dee, Eve and Fay." in created.inner_text()
    assert [(p["bot"], p.get("playouts")) for p in read(served, game_id)["players"]] == [
        (None, None),
        ("mcts", PLAYOUTS),
        *[("random", None), ("greedy", None)] * 2,
    ]

    page.get_by_role("link", name="Play as Ana").click()
    badges = page.locator(f'{TABLE} .seat[data-seat="1"] .seat-name .badge')
    badges.first.wait_for()
    assert badges.all_inner_texts() == ["bot · mcts", f"{PLAYOUTS} playouts"]
    assert page.locator(f'{TABLE} .seat[data-seat="2"] .seat-name .badge').all_inner_texts() == ["bot · random"]
    moves = 0
    while my_turn_or_over(page) == "active":
        page.locator('.hand-card[data-legal="true"]').first.click()
        close = page.locator("button.action-close:not([disabled])")
        (close if close.count() and moves % 3 == 2 else page.locator("button.action-add")).click()
        moves += 1
        assert moves < 60
    sheet = scores(served, game_id)
    assert totals_shown(page) == sheet["totals"]
    assert page.locator(".turn-banner").inner_text().startswith("Game over:")
    assert badges.all_inner_texts()[:2] == ["bot · mcts", f"{PLAYOUTS} playouts"], "the strength stays to the end"
    strength = page.locator(f'{TABLE} .seat[data-seat="1"] .badge-strength').bounding_box()
    seat = page.locator(f'{TABLE} .seat[data-seat="1"]').bounding_box()
    assert strength is not None
    assert seat is not None
    assert strength["x"] + strength["width"] <= seat["x"] + seat["width"], "the strength stays within its seat"


def test_while_the_search_bots_answer_a_move_the_banner_says_they_are_thinking(
    open_page: Callable[..., Watched], served: str
) -> None:
    # Five search bots at the most playouts the service takes: the move's answer waits for
    # five searches, long enough to be seen (each is about a tenth of a second here).
    most = get_args(Playouts)[1].le
    bots = [{"name": name, "bot": "mcts", "playouts": most} for name in ("Bob", "Cy", "Dee", "Eve", "Fay")]
    made = create(served, [{"name": "Ana"}, *bots], ruleset="pot", seed=3)
    page = open_page(f"#/games/{made['game_id']}?token={token_of(made, 'Ana')}").page
    assert my_turn_or_over(page) == "active"
    page.evaluate(
        """() => {
          window.bannersSeen = [];
          const banner = document.querySelector(".turn-banner");
          new MutationObserver(() => window.bannersSeen.push(banner.textContent))
            .observe(banner, { childList: true, subtree: true, characterData: true });
        }"""
    )
    page.locator('.hand-card[data-legal="true"]').first.click()
    page.locator("button.action-add").click()
    page.wait_for_function("() => window.bannersSeen.some((text) => text.includes('are thinking'))", timeout=15_000)
    assert my_turn_or_over(page) == "active"
    seen = page.evaluate("window.bannersSeen")
    assert "Bob, Cy, Dee, Eve and Fay (bots) are thinking…" in seen
    assert seen.index("Sending your move…") < seen.index("Bob, Cy, Dee, Eve and Fay (bots) are thinking…")
