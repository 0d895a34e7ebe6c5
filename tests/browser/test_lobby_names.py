"""The lobby's seat names checked where they are typed: a blank or duplicate name is said
at its field, in words, and nothing is sent until it is put right."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.browser.conftest import Watched

pytestmark = pytest.mark.browser


def sent_creations(watched: Watched) -> int:
    return sum(1 for request in watched.requests if request.method == "POST" and request.url.endswith("/v1/games"))


def error_at(watched: Watched, seat: int) -> str:
    return watched.page.locator(f'.seat-row[data-seat="{seat}"] .seat-name-error').inner_text()


def test_a_blank_or_duplicate_seat_name_is_said_at_its_field_in_words_and_nothing_is_sent(
    open_page: Callable[..., Watched],
) -> None:
    watched = open_page()
    page = watched.page
    create = page.get_by_role("button", name="Create the game")
    first = page.get_by_label("Seat 1: name")
    second = page.get_by_label("Seat 2: name")
    third = page.get_by_label("Seat 3: name")
    second.fill("   ")
    third.fill(first.input_value())
    create.click()

    assert error_at(watched, 1) == "Seat 2 needs a name: the other players see it at the table."
    called = first.input_value()
    # The name is isolated in its own direction (FSI … PDI), as every name from a person is.
    isolated = f"\u2068{called}\u2069"
    assert error_at(watched, 2) == f"Seat 1 is already called “{isolated}”: each seat needs a name of its own."
    assert error_at(watched, 0) == ""
    assert second.get_attribute("aria-invalid") == "true"
    assert first.get_attribute("aria-invalid") is None
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Seat 2: name"
    assert "Check the names." in page.locator(".new-game .notice").inner_text()
    assert sent_creations(watched) == 0, "nothing is sent while a name is wrong"

    # Put right as it is typed: each message goes once its own name is fine.
    second.fill("Zoë")
    assert error_at(watched, 1) == ""
    assert error_at(watched, 2) != ""
    third.fill("Дмитрий")
    assert error_at(watched, 2) == ""
    create.click()
    page.locator("section.created").wait_for()
    assert sent_creations(watched) == 1


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_every_seat_row_of_the_lobby_lines_up_whoever_plays_the_seat(
    open_page: Callable[..., Watched], phone: bool
) -> None:
    page = open_page(phone=phone).page
    add = page.get_by_role("button", name="+ Add a seat")
    add.click()
    page.get_by_label("Seat 4: who plays").select_option(label="open: anyone may join")

    def columns(selector: str) -> list[tuple[float, float]]:
        boxes = page.locator(f".seat-row {selector}").evaluate_all(
            "all => all.map(e => { const r = e.getBoundingClientRect(); return [r.left, r.width]; })"
        )
        return [(round(left, 1), round(width, 1)) for left, width in boxes]

    kinds = page.locator(".seat-row .seat-kind").evaluate_all("all => all.map(e => e.selectedOptions[0].text)")
    assert len(set(kinds)) >= 3, f"the rows show people, bots and an open seat: {kinds}"
    for selector in (".seat-name-input", ".seat-kind", ".remove-seat"):
        shown = columns(selector)
        assert len(set(shown)) == 1, f"{selector} sits and spans alike in every row: {shown}"
