"""The seats this browser holds (service/static/js/held.js): a seat whose table was opened
here, made in the lobby's form or joined from its waiting games, is listed in the lobby after
a reload, with its game's status as the API says it; it resumes from there and is forgotten
there (asked first while its game is on). Its token stays in this browser's storage and in
the Authorization header: never in an address a request is sent to, nor in a Referer."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.browser.conftest import SCREENSHOTS, Watched
from tests.browser.table import TABLE, create, play_out, read, token_of

pytestmark = pytest.mark.browser

#: The page's key for the seats it holds (held.js).
HELD_KEY = "poison-table.seats"


def held(page: Any) -> list[dict[str, Any]]:
    kept: list[dict[str, Any]] = json.loads(page.evaluate(f"localStorage.getItem({HELD_KEY!r}) ?? '[]'"))
    return kept


def listed(page: Any) -> list[tuple[str, str]]:
    """The lobby's held seats once each has its status: (game id, status), in order."""
    page.wait_for_selector("section.held", state="attached")
    page.wait_for_selector('.held-seat[data-status=""]', state="detached")
    rows = page.locator(".held-seat")
    return [
        (rows.nth(i).get_attribute("data-game") or "", rows.nth(i).get_attribute("data-status") or "")
        for i in range(rows.count())
    ]


def reload_lobby(page: Any) -> None:
    """The lobby, read again from the service as a person reloading it does (once the one on
    screen has read all it reads, so that no request is cut short)."""
    page.evaluate("location.hash = '#/'")
    listed(page)
    page.locator("table.game-list, .games .empty").first.wait_for()
    page.locator("form.new-game").wait_for()
    page.reload()


def token_never_leaves(watched: Watched, *tokens: str) -> None:
    """No request of the page carried a token in its address or a Referer at all."""
    assert watched.requests
    for sent in watched.requests:
        assert not any(token in sent.url for token in tokens), sent.url
        assert not sent.header_value("referer"), (sent.url, sent.header_value("referer"))


@pytest.mark.parametrize(("locale", "phone"), [("en-GB", False), ("fa-IR", True)], ids=["en-desktop", "fa-phone"])
def test_a_seat_opened_here_is_listed_in_the_lobby_resumed_from_it_and_forgotten(
    open_page: Callable[..., Watched], served: str, locale: str, phone: bool
) -> None:
    # A finished game's seat, opened here from its link.
    done = create(served, [{"name": "Ana"}, {"name": "Bob", "bot": "greedy"}, {"name": "Cy", "bot": "random"}], seed=4)
    done_id, done_token = done["game_id"], token_of(done, "Ana")
    play_out(served, done_id, {0: done_token})
    watched = open_page(f"#/games/{done_id}?token={done_token}", locale=locale, phone=phone)
    page = watched.page
    page.wait_for_selector(f'{TABLE}[data-status="finished"][data-busy="false"]')

    # A game made in the lobby's form, with a clock, and its first seat taken from its link.
    page.evaluate("location.hash = '#/'")
    page.locator('input[data-path="clock.seconds_per_move"]').fill("600")
    page.locator("form.new-game button[type=submit]").click()
    made = page.locator("section.created")
    made.wait_for()
    game_id = made.get_attribute("data-game") or ""
    page.locator("a.take-seat").first.click()
    page.wait_for_selector(f'{TABLE}[data-game="{game_id}"][data-mode="seat"][data-busy="false"]')
    token = page.evaluate("new URLSearchParams(location.hash.split('?')[1]).get('token')")
    assert read(served, game_id)["clock"]["seconds_per_move"] == 600
    assert [(entry["game_id"], entry["seat"], entry["name"], entry["token"]) for entry in held(page)] == [
        (game_id, 0, "Ana", token),
        (done_id, 0, "Ana", done_token),
    ]

    # The lobby, reloaded, lists both, newest first, each with its game's status.
    reload_lobby(page)
    assert listed(page) == [(game_id, "active"), (done_id, "finished")]
    mine = page.locator(f'.held-seat[data-game="{game_id}"]')
    assert mine.locator(".badge-you").count() == 1, "it is Ana's turn: the bots move at once"
    if locale.startswith("en"):
        assert page.locator(".held h2").inner_text() == "Your seats"
        assert "as Ana · seat 1" in mine.inner_text()
        assert "your turn" in mine.inner_text()
    page.screenshot(path=SCREENSHOTS / f"held-seats-{locale}.png", full_page=True)

    # Resume: the table, at that seat.
    mine.locator("a.resume").click()
    page.wait_for_selector(f'{TABLE}[data-game="{game_id}"][data-mode="seat"] .hand')
    assert page.locator(f'{TABLE} .seat.you[data-seat="0"]').count() == 1

    # Forget: a finished game's seat at once; an active one's once asked, and not when kept.
    page.locator(".masthead-nav a[href='#/']").click()
    assert listed(page) == [(game_id, "active"), (done_id, "finished")]
    page.locator(f'.held-seat[data-game="{done_id}"] button.forget').click()
    assert listed(page) == [(game_id, "active")]
    page.locator(f'.held-seat[data-game="{game_id}"] button.forget').click()
    page.locator(".forget-question").wait_for()
    page.locator("button.forget-no").click()
    assert listed(page) == [(game_id, "active")]
    page.locator(f'.held-seat[data-game="{game_id}"] button.forget').click()
    page.locator("button.forget-yes").click()
    page.locator("section.held").wait_for(state="hidden")
    assert held(page) == []
    token_never_leaves(watched, token, done_token)


def test_a_seat_joined_from_the_waiting_games_is_held_and_its_link_still_works_alone(
    open_page: Callable[..., Watched], served: str
) -> None:
    made = create(served, [{"name": "Ana"}, {"open": True}, {"name": "Cy", "bot": "greedy"}])
    game_id = made["game_id"]
    watched = open_page("#/?status=waiting")
    page = watched.page
    page.locator(f'tr[data-game="{game_id}"] button.join').click()
    page.locator(".join-form .join-name").fill("Zoe")
    page.get_by_role("button", name="Take the seat").click()
    page.wait_for_selector(f'{TABLE}[data-game="{game_id}"][data-mode="seat"]:not([data-status="waiting"])')
    link = page.evaluate("location.hash")
    token = link.split("?token=", 1)[1]
    assert [(entry["seat"], entry["name"], entry["token"]) for entry in held(page)] == [(1, "Zoe", token)]

    reload_lobby(page)
    assert listed(page) == [(game_id, "active")]
    assert page.locator(".held-seat .status").first.inner_text() == "active"
    token_never_leaves(watched, token)

    # The seat's link, opened in a browser that holds nothing, is the seat as before.
    other = open_page(link).page
    other.wait_for_selector(f'{TABLE}[data-game="{game_id}"][data-mode="seat"][data-busy="false"]')
    assert other.locator(f'{TABLE} .seat.you[data-seat="1"]').count() == 1


def test_a_held_seat_that_a_bot_plays_is_listed_with_the_name_of_that_bot(
    open_page: Callable[..., Watched], served: str
) -> None:
    players = [{"name": "Ana"}, {"name": "Bob"}, {"name": "Cy", "bot": "random"}]
    made = create(served, players, clock={"seconds_per_move": 600})
    game_id, ana = made["game_id"], token_of(made, "Ana")
    watched = open_page(f"#/games/{game_id}?token={ana}")
    page = watched.page
    page.wait_for_selector(f'{TABLE}[data-game="{game_id}"][data-mode="seat"][data-busy="false"]')
    resigned = httpx.post(f"{served}/v1/games/{game_id}/seats/0/resign", headers={"Authorization": f"Bearer {ana}"})
    assert resigned.status_code == 200, resigned.text

    reload_lobby(page)
    assert listed(page) == [(game_id, "active")]  # Bob plays on
    badge = page.locator(f'.held-seat[data-game="{game_id}"] .badge-away')
    assert badge.inner_text() == "resigned — greedy plays"  # as the view names it: no event was read here
    token_never_leaves(watched, ana)
