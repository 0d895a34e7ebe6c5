"""Whole games made in the lobby and played to the end by clicking, as a person plays them:
the totals, the score sheet and the winner the page shows are the API's."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import unquote

import pytest

from tests.browser.conftest import Watched
from tests.browser.table import TABLE, my_turn_or_over, number, scores, totals_shown

pytestmark = pytest.mark.browser


def create_in_lobby(
    watched: Watched, ruleset_title: str, *, rounds: str | None = None, seed: str = ""
) -> tuple[str, str]:
    """Fill the lobby's form (the default seats: the first a person, the others bots) and
    create the game: its id and the first seat's link, as the page shows it."""
    page = watched.page
    page.get_by_role("radio", name=ruleset_title).check()
    if rounds is not None:
        page.locator('input[data-path="rounds"]').fill(rounds)
    page.locator("input.seed").fill(seed)
    page.get_by_role("button", name="Create the game").click()
    created = page.locator("section.created")
    created.wait_for()
    game_id = created.get_attribute("data-game") or ""
    link = created.locator(".seat-links .link-field").first.input_value()
    return game_id, link


def test_a_poison_game_made_in_the_lobby_is_played_to_the_end_by_clicking_with_the_apis_totals(
    open_page: Callable[..., Watched], served: str
) -> None:
    watched = open_page()
    page = watched.page
    game_id, link = create_in_lobby(watched, "Poison", rounds="2", seed="7")
    token = unquote(link.split("?token=", 1)[1])
    assert link.startswith(f"{served}/#/games/{game_id}?token="), "the seat's secret is in the fragment only"

    page.get_by_role("link", name="Play as Ana").click()
    moves = 0
    while my_turn_or_over(page) == "active":
        # Whenever the table waits for Ana, its sheet has every round scored so far.
        assert page.locator(".sheet tbody tr[data-round]").count() == len(scores(served, game_id)["rounds"])
        card = page.locator('.hand-card[data-legal="true"]').first
        code = card.get_attribute("data-card")
        card.click()
        assert page.locator(".hand-card.selected").get_attribute("data-card") == code
        targets = page.locator("button.cauldron.target")
        assert targets.count() >= 1, "the picked card's legal cauldrons are offered"
        targets.first.click()
        moves += 1
        assert moves < 60, "a two-round game of three gives a person at most 26 cards"

    sheet = scores(served, game_id)
    assert moves == 25  # seed 7: 12 then 13 cards (the dealer's hand has one card fewer)
    assert totals_shown(page) == sheet["totals"]
    assert len(page.locator(".sheet tbody tr[data-round]").all()) == 2
    footer = [number(text) for text in page.locator(".sheet tfoot td.total").all_inner_texts()]
    assert footer == sheet["totals"]
    winners = [sheet["totals"][seat] for seat in sheet["winners"]]
    assert page.locator(".turn-banner").inner_text().startswith("Game over:")
    assert str(winners[0]) in page.locator(".turn-banner").inner_text()
    assert page.locator("svg.chart polyline.series-line").count() == 3
    # The token went only in the Authorization header: never in a request's address.
    assert not [request.url for request in watched.requests if token in request.url]
    assert any(request.headers.get("authorization") == f"Bearer {token}" for request in watched.requests)


def test_a_pot_game_made_in_the_lobby_is_played_to_the_end_by_clicking_with_the_apis_totals(
    open_page: Callable[..., Watched], served: str
) -> None:
    watched = open_page()
    page = watched.page
    game_id, _ = create_in_lobby(watched, "The pot game", seed="11")
    page.get_by_role("link", name="Play as Ana").click()
    moves = closings = 0
    while my_turn_or_over(page) == "active":
        # Whenever the table waits for Ana, its sheet has every pot ended so far, and so has its chart.
        ended = len(scores(served, game_id)["pots"])
        assert page.locator(".sheet.pots tbody tr[data-pot]").count() == ended
        if ended:
            points = page.locator('svg.chart polyline.series-line[data-seat="0"]').get_attribute("points") or ""
            assert len(points.split()) == ended + 1
        page.locator('.hand-card[data-legal="true"]').first.click()
        close = page.locator("button.action-close:not([disabled])")
        # Close whenever the pot holds at least two cards and closing is allowed: some good, some bad.
        if close.count() and int(page.locator(".pot").get_attribute("data-toxicity") or 0) <= 4:
            close.click()
            closings += 1
        else:
            page.locator("button.action-add").click()
        moves += 1
        assert moves < 60

    sheet = scores(served, game_id)
    assert closings > 0
    assert totals_shown(page) == sheet["totals"]
    pots = page.locator(".sheet.pots tbody tr[data-pot]")
    assert pots.count() == len(sheet["pots"])
    shown_points = [number(text.replace("boom: ", "")) for text in pots.locator("td.points").all_inner_texts()]
    assert shown_points == [pot["points"] for pot in reversed(sheet["pots"])]
    assert page.locator(f'{TABLE}[data-status="finished"]').count() == 1
    assert page.locator("svg.chart polyline.series-line").count() == len(sheet["totals"])
