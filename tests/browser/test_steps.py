"""Looking back: a finished game stepped through event by event (time travel), its chart of
running totals with one line per seat, and an exported log dropped on the page and replayed
through POST /v1/replays, a tampered one refused with the version of its first bad event."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest
from playwright.sync_api import Page

from tests.browser.conftest import Watched
from tests.browser.table import (
    STEPS,
    altered,
    drop_file,
    exported,
    finished_game,
    finished_id_and_version,
    number,
    read,
    scores,
)

pytestmark = pytest.mark.browser

#: Each ruleset's score sheet: its lines (rounds or pots), and the events that add one.
SHEETS = {"poison": ("rounds", {"round_scored"}), "pot": ("pots", {"pot_closed", "pot_exploded"})}
#: The events that follow a card which overflows a cauldron or ends a pot.
ENDINGS = {"cauldron_overflowed", "pot_closed", "pot_exploded"}


def board_of(page: Page) -> list[int]:
    """What the table shows in the middle: each cauldron's total, or the pot's toxicity."""
    totals = page.locator(f"{STEPS} .cauldron").evaluate_all("all => all.map(c => Number(c.dataset.total))")
    return totals or [int(page.locator(f"{STEPS} .pot").get_attribute("data-toxicity") or -1)]


def board_in(view: dict) -> list[int]:
    return [cauldron["total"] for cauldron in view["cauldrons"]] if "cauldrons" in view else [view["pot"]["toxicity"]]


@pytest.mark.parametrize(("ruleset", "seats"), [("poison", 4), ("pot", 3)])
def test_a_finished_game_steps_event_by_event_and_its_chart_has_a_line_per_seat(
    open_page: Callable[..., Watched], served: str, ruleset: str, seats: int
) -> None:
    game_id, last = finished_id_and_version(served, ruleset, seats)
    sheet = scores(served, game_id)
    lines, scoring = SHEETS[ruleset]
    page = open_page(f"#/games/{game_id}/steps").page
    page.wait_for_selector(f'{STEPS}[data-version="{last}"]')

    chart = page.locator("svg.chart")
    assert chart.locator("polyline.series-line").count() == seats
    for seat in range(seats):
        points = chart.locator(f'polyline.series-line[data-seat="{seat}"]').get_attribute("points") or ""
        assert len(points.split()) == len(sheet[lines]) + 1, "a point at the start and after each line of the sheet"
    ends = chart.locator("text.series-name").all_text_contents()
    assert [number(end.split()[-1]) for end in ends] == sheet["totals"]

    events = httpx.get(f"{served}/v1/games/{game_id}/events", params={"limit": 5000}).json()["events"]
    page.keyboard.press("Home")
    page.wait_for_selector(f'{STEPS}[data-version="1"]')
    for version in range(2, 16):
        page.keyboard.press("ArrowRight")
        page.wait_for_selector(f'{STEPS}[data-version="{version}"]')
        if page.locator(".overflowing, .pot.exploding, .pot.closing").count():
            # A card that overflows a cauldron (ends a pot) is shown first as it happened.
            assert events[version - 1]["type"] == "card_played"
            assert events[version]["type"] in ENDINGS
        else:
            assert board_of(page) == board_in(read(served, game_id, version=version))
        assert page.locator(".said .now").get_attribute("data-version") == str(version)
    # The chart marks how far the sheet has got at the step shown.
    middle = last // 2
    page.locator(".step-slider").fill(str(middle))
    page.wait_for_selector(f'{STEPS}[data-version="{middle}"]')
    scored = sum(1 for event in events[:middle] if event["type"] in scoring)
    assert chart.locator("line.step-marker").get_attribute("data-at") == str(scored)
    assert page.evaluate("location.hash") == f"#/games/{game_id}/steps?version={middle}"
    page.get_by_role("button", name="Last event").click()
    page.wait_for_selector(f'{STEPS}[data-version="{last}"]')


def test_an_exported_log_dropped_on_the_page_is_replayed_step_by_step_with_every_hand_shown(
    open_page: Callable[..., Watched], served: str
) -> None:
    game_id, last = finished_id_and_version(served, "poison", 3)
    log = exported(served, game_id)
    page = open_page("#/replay").page
    drop_file(page, ".drop-zone", log, "three-bots.ndjson")
    page.wait_for_selector(f'{STEPS}[data-version="1"]')

    page.keyboard.press("ArrowRight")
    page.wait_for_selector(f'{STEPS}[data-version="2"]')
    dealt = json.loads(log.splitlines()[1])["data"]
    hands = [page.locator(f'.seat[data-seat="{seat}"] .open-hand .card').count() for seat in range(3)]
    assert hands == [len(hand) for hand in dealt["hands"]], "a replayed log shows every hand"
    assert page.locator(".open-pile .card").count() == len(dealt["set_aside"]) == 12
    page.keyboard.press("End")
    page.wait_for_selector(f'{STEPS}[data-version="{last}"]')
    assert [number(text) for text in page.locator(".seat .total").all_inner_texts()] == scores(served, game_id)[
        "totals"
    ]


def test_a_log_dropped_on_the_lobby_is_replayed(open_page: Callable[..., Watched], served: str) -> None:
    created = finished_game(served, "pot", 2)
    page = open_page().page
    page.locator(".drop-zone").wait_for()
    drop_file(page, "main", exported(served, created["game_id"]), "pot.ndjson")
    page.wait_for_selector(f"{STEPS}[data-version]")
    assert page.evaluate("location.hash") == "#/replay"
    assert "pot.ndjson" in page.locator(f"{STEPS} h1").inner_text()


def test_a_tampered_log_is_refused_with_the_version_of_its_first_bad_event(
    open_page: Callable[..., Watched], served: str
) -> None:
    def miscounted(played: dict) -> None:
        played["data"]["total"] += 1

    tampered = altered(served, finished_game(served, "poison", 3)["game_id"], 3, "card_played", miscounted)
    watched = open_page("#/replay")
    refused = watched.expect(422, "/v1/replays")
    drop_file(watched.page, ".drop-zone", tampered, "tampered.ndjson")
    notice = watched.page.get_by_role("alert")
    notice.wait_for()
    assert "422 invalid_log" in notice.inner_text()
    assert "The first bad event is number 3." in notice.inner_text()
    assert refused.seen == 1
    assert watched.page.locator(STEPS).count() == 0
