"""Clocks at the table (docs/clocks.md): the seat to move counts its time down, a seat whose
clock ran out is shown away with the bot that plays it and its person comes back, a seat
resigns (after saying so twice) and a game nobody is left to play ends abandoned, and a
resignation the service refuses is said in the reader's language. The service's own
timekeeper takes the seats: the tests wait for it, polling, and never for a fixed time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.browser.conftest import SCREENSHOTS, Watched
from tests.browser.proxy import relay
from tests.browser.table import STEPS, TABLE, create, read, settled, token_of

pytestmark = pytest.mark.browser

#: A person and two bots: the bots move at once, so the person's clock is the one running.
ANA_AND_BOTS = [{"name": "Ana"}, {"name": "Bob", "bot": "greedy"}, {"name": "Cy", "bot": "random"}]
#: Persian digits, as the page writes numbers in Persian.
PERSIAN_DIGITS = set("۰۱۲۳۴۵۶۷۸۹")


def events_of(served: str, game_id: str) -> list[dict[str, Any]]:
    answer = httpx.get(f"{served}/v1/games/{game_id}/events", params={"limit": 5000}, timeout=10)
    assert answer.status_code == 200, answer.text
    events: list[dict[str, Any]] = answer.json()["events"]
    return events


def left_shown(page: Any) -> int:
    """The whole seconds the seat to move has left, as its countdown draws them."""
    return int(page.locator(f"{TABLE} .seat.to-play .seat-clock").get_attribute("data-left") or -1)


def seat_requests(watched: Watched, step: str) -> list[Any]:
    return [sent for sent in watched.requests if sent.method == "POST" and sent.url.endswith(f"/{step}")]


@pytest.mark.parametrize(("locale", "phone"), [("en-GB", False), ("fa-IR", True)], ids=["en-desktop", "fa-phone"])
def test_the_seat_to_move_counts_its_time_down_and_the_top_says_the_seconds_a_move(
    open_page: Callable[..., Watched], served: str, locale: str, phone: bool
) -> None:
    created = create(served, ANA_AND_BOTS, clock={"seconds_per_move": 30})
    game_id = created["game_id"]
    page = open_page(f"#/games/{game_id}?token={token_of(created, 'Ana')}", locale=locale, phone=phone).page
    face = page.locator(f'{TABLE} .seat[data-seat="0"].to-play .seat-clock')
    face.wait_for()
    first = left_shown(page)
    assert 0 < first <= 30
    # The count goes down by itself, with no event in between.
    page.wait_for_function(
        "([selector, first]) => Number(document.querySelector(selector)?.dataset.left) < first",
        arg=[f"{TABLE} .seat.to-play .seat-clock", first],
    )
    assert left_shown(page) < first
    assert read(served, game_id)["version"] == int(page.locator(TABLE).get_attribute("data-version") or 0)
    assert page.locator(f"{TABLE} .seat-clock").count() == 1, "only the seat to move counts down"
    text = face.inner_text()
    if locale.startswith("fa"):
        assert set(text.replace(":", "")) <= PERSIAN_DIGITS, text
    else:
        assert text.startswith("0:"), text
        assert page.locator(".facts .per-move").inner_text() == "30 seconds a move"
        assert "When your time for a move runs out" in page.locator(".your-seat").inner_text()


def test_a_seat_whose_clock_runs_out_is_away_and_its_person_comes_back(
    open_page: Callable[..., Watched], served: str
) -> None:
    # Four people and nobody moves: each clock runs out in turn, Bob's first (the seat after
    # the dealer's), and the game is abandoned only once all four are away; so Bob comes back
    # with three others' clocks still to run out.
    created = create(
        served, [{"name": "Ana"}, {"name": "Bob"}, {"name": "Cy"}, {"name": "Dee"}], clock={"seconds_per_move": 3}
    )
    game_id = created["game_id"]
    assert created["game"]["turn"] == 1
    watched = open_page(f"#/games/{game_id}?token={token_of(created, 'Bob')}")
    page = watched.page
    mine = page.locator(".your-seat.away")
    mine.wait_for(timeout=30_000)  # the service's timekeeper took the seat
    badge = page.locator(f'{TABLE} .seat[data-seat="1"] .badge-away')
    assert badge.inner_text() == "away — greedy plays"
    assert "Your time ran out: greedy plays your seat." in mine.inner_text()
    assert "Bob's time ran out: greedy plays the seat." in page.locator(".feed").inner_text()
    assert read(served, game_id)["players"][1]["away"] is True
    page.screenshot(path=SCREENSHOTS / "clocks-away.png", full_page=True)

    page.get_by_role("button", name="Come back").click()
    page.wait_for_function("() => document.querySelector('.feed').innerText.includes('Bob is back')")
    returned = [event for event in events_of(served, game_id) if event["type"] == "seat_returned"]
    assert [event["data"]["seat"] for event in returned] == [1]
    sent = seat_requests(watched, "return")
    assert len(sent) == 1
    assert sent[0].headers.get("idempotency-key", "").startswith("table-")


def test_resigning_is_asked_twice_then_a_bot_plays_the_seat_and_a_game_nobody_plays_is_abandoned(
    open_page: Callable[..., Watched], served: str
) -> None:
    created = create(served, ANA_AND_BOTS, clock={"seconds_per_move": 30})
    game_id = created["game_id"]
    watched = open_page(f"#/games/{game_id}?token={token_of(created, 'Ana')}")
    page = watched.page
    settled(page)
    page.get_by_role("button", name="Resign…").click()
    question = page.get_by_role("alertdialog")
    assert "Resign for good?" in question.inner_text()
    assert "you cannot come back" in question.inner_text()
    page.get_by_role("button", name="Keep playing").click()
    assert question.count() == 0
    assert seat_requests(watched, "resign") == [], "keeping on playing sends nothing"

    page.get_by_role("button", name="Resign…").click()
    page.get_by_role("button", name="Yes, resign").click()
    page.wait_for_selector(f'{TABLE}[data-status="abandoned"][data-busy="false"]')
    assert page.locator(".turn-banner").inner_text() == "Abandoned: no winners."
    assert page.locator(f'{TABLE} .seat[data-seat="0"] .badge-away').inner_text() == "resigned — greedy plays"
    feed = page.locator(".feed").inner_text()
    assert "Ana resigned: greedy plays the seat to the end." in feed
    assert "The game is abandoned: no person is left to play it. No winners." in feed
    assert page.locator(".connection").inner_text() == "game over"
    assert page.get_by_role("link", name="Step through the game").count() == 1
    assert page.locator(".your-seat, .seat-clock, button.resign").count() == 0
    game = read(served, game_id)
    assert (game["status"], game["winners"], game["players"][0]["resigned"]) == ("abandoned", [], True)
    sent = seat_requests(watched, "resign")
    assert len(sent) == 1
    assert sent[0].headers.get("idempotency-key", "").startswith("table-")

    # Stepped through like a finished game: the seat resigned, and no totals to chart.
    page.get_by_role("link", name="Step through the game").click()
    page.locator(f'{STEPS} .seat[data-seat="0"] .badge-away[data-away="resigned"]').wait_for()
    assert page.locator(f"{STEPS} .chart-area > *").count() == 0


def test_a_resignation_the_service_refuses_is_said_in_the_readers_language(
    open_page: Callable[..., Watched], served: str
) -> None:
    # Ana's phone, in Portuguese, has a stuck stream: it has not heard that she resigned elsewhere.
    created = create(served, [{"name": "Ana"}, {"name": "Bob"}, {"name": "Cy", "bot": "greedy"}])
    game_id, ana = created["game_id"], token_of(created, "Ana")
    with relay(served) as proxy:
        proxy.hold("/events/stream")
        watched = open_page(f"#/games/{game_id}?token={ana}", base=proxy.base, locale="pt-BR", phone=True)
        watched.may_fail.append("/events/stream")
        refused = watched.expect(409, "/resign")
        page = watched.page
        settled(page)
        elsewhere = httpx.post(
            f"{served}/v1/games/{game_id}/seats/0/resign", headers={"Authorization": f"Bearer {ana}"}, timeout=10
        )
        assert elsewhere.status_code == 200, elsewhere.text

        page.locator("button.resign").click()
        page.locator("button.resign-yes").click()
        notice = page.get_by_role("alert").filter(has_text="409")
        notice.wait_for()
        said = notice.inner_text()
        assert "409 seat_resigned" in said
        assert "Esse lugar desistiu" in said
        assert refused.seen == 1
        # The table shows the game as it is: the seat resigned, and no button for it.
        badge = page.locator(f'{TABLE} .seat[data-seat="0"] .badge-away[data-away="resigned"]')
        badge.wait_for()
        assert badge.inner_text() == "desistiu — joga greedy"  # the bot by name, in the reader's language
        page.locator(".your-seat.resigned").wait_for()
        assert page.locator("button.resign").count() == 0
        proxy.release()
