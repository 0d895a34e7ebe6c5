"""The score sheet's labels and the chart's words as a reader of each language sees them, at
desktop and phone size: Chinese text may break between any two characters, so a label or a
name left to the browser's line breaking ends up split over two lines ("总" over "分"); and
labels drawn in the chart at the same height (two lines ending at the same total, the last
round's label below them) cover one another. Both are measured on the page, as laid out."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from service import i18n
from tests.browser.conftest import Watched
from tests.browser.table import TABLE, create

pytestmark = pytest.mark.browser

#: Names in Latin, Cyrillic, Han and Arabic script. With seed 7 and one round, Ana and 李娜
#: end at the same total, 0, so their labels at the chart's right end want the same place.
NAMES = [
    {"name": "Ana", "bot": "greedy"},
    {"name": "Дмитрий", "bot": "random"},
    {"name": "李娜", "bot": "greedy"},
    {"name": "سارا", "bot": "random"},
]
CODES = list(i18n.languages())

#: How many lines each label of the sheet (a heading, a row's label, a name) is drawn on: the
#: distinct tops of the boxes of its letters.
LINES = """all => all.map(label => {
    const range = document.createRange();
    range.selectNodeContents(label);
    const tops = [...range.getClientRects()].filter(box => box.width > 0).map(box => Math.round(box.top));
    return [label.textContent.trim(), new Set(tops).size];
})"""


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize("ruleset", ["poison", "pot"])
def test_no_label_nor_name_on_the_score_sheet_breaks_over_two_lines(
    open_page: Callable[..., Watched], served: str, ruleset: str, code: str, phone: bool
) -> None:
    options = {"rounds": 1} if ruleset == "poison" else {"ruleset": "pot"}
    created = create(served, NAMES, seed=7, **options)
    page = open_page(f"?lang={code}#/games/{created['game_id']}", phone=phone).page
    page.wait_for_selector(f'{TABLE}[data-status="finished"][data-busy="false"]')

    labels = page.locator(".sheet th, .sheet bdi").evaluate_all(LINES)
    assert {"李娜", "سارا"} <= {text for text, _ in labels}
    broken = [text for text, lines in labels if lines != 1]
    assert broken == [], f"broken over lines: {broken}"
    assert page.evaluate("document.documentElement.scrollWidth") <= page.evaluate("window.innerWidth")


#: Every word drawn in the chart, with its box as laid out (the line's box, as the fonts used
#: give it: what a reader needs clear of other words).
BOXES = """svg => [...svg.querySelectorAll('text')].map(text => {
    const box = text.getBoundingClientRect();
    return [text.textContent, box.left, box.right, box.top, box.bottom];
})"""


def overlapping(boxes: list[Any]) -> list[tuple[str, str]]:
    """The pairs of words whose boxes share more than a hair of area."""
    hair = 0.5
    found = []
    for index, (text, left, right, top, bottom) in enumerate(boxes):
        for other, other_left, other_right, other_top, other_bottom in boxes[index + 1 :]:
            wide = min(right, other_right) - max(left, other_left)
            high = min(bottom, other_bottom) - max(top, other_top)
            if wide > hair and high > hair:
                found.append((text, other))
    return found


#: A game whose totals end level (one round), one of many rounds (its axis crowded with
#: labels), and a pot game (a point per pot).
GAMES = {"level": {"rounds": 1}, "many-rounds": {"rounds": 20}, "pots": {"ruleset": "pot"}}


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize("game", list(GAMES))
def test_no_word_in_the_chart_covers_another(
    open_page: Callable[..., Watched], served: str, game: str, code: str, phone: bool
) -> None:
    created = create(served, NAMES, seed=7, **GAMES[game])
    page = open_page(f"?lang={code}#/games/{created['game_id']}", phone=phone).page
    page.wait_for_selector(f'{TABLE}[data-status="finished"][data-busy="false"]')

    boxes = page.locator("svg.chart").evaluate(BOXES)
    assert len([box for box in boxes if box[0].startswith(("Ana", "李娜"))]) == 2
    assert overlapping(boxes) == []


def test_a_tally_on_the_persian_score_sheet_reads_mark_then_count_left_to_right(
    open_page: Callable[..., Watched], served: str
) -> None:
    # A tally is a card's code ("R×4", "☠×3"): in a right-to-left page a skull, a sign and a
    # number have no direction of their own and would read "3×☠".
    created = create(served, NAMES, seed=7, rounds=1)
    page = open_page(f"?lang=fa#/games/{created['game_id']}").page
    page.wait_for_selector(f'{TABLE}[data-status="finished"][data-busy="false"]')
    order = page.locator(".sheet .tally").evaluate_all(
        """all => all.map(tally => {
            const text = tally.firstChild;
            const at = (i) => {
                const range = document.createRange();
                range.setStart(text, i);
                range.setEnd(text, i + 1);
                return range.getBoundingClientRect().left;
            };
            return [tally.textContent, at(0) < at(text.length - 1)];
        })"""
    )
    assert any(text.startswith("☠") for text, _ in order)
    assert [text for text, left_to_right in order if not left_to_right] == []


#: Which character of each chart end label is drawn at each point along its middle, from its
#: left end to its right (the browser's own answer, after its bidirectional reordering), with
#: the label's text: the order a reader sees its characters in.
SEEN = """svg => [...svg.querySelectorAll('text.series-name')].map(text => {
    const box = text.getBBox(), to = text.getScreenCTM(), order = [];
    for (let x = box.x; x <= box.x + box.width; x += 0.5) {
        const point = svg.createSVGPoint();
        point.x = x; point.y = box.y + box.height / 2;
        const at = text.getCharNumAtPosition(point);
        if (at >= 0 && order.at(-1) !== at) order.push(at);
    }
    return [text.textContent, order];
})"""

#: The invisible marks of direction a label may hold (isolates, the marks Intl puts before a
#: signed number in some languages), and spaces: nothing a reader sees to put in order.
MARKS = "\u200e\u200f\u061c\u2066\u2067\u2068\u2069 "


@pytest.mark.parametrize("code", CODES)
def test_each_chart_label_shows_the_name_then_its_signed_total_left_to_right_in_every_language(
    open_page: Callable[..., Watched], served: str, code: str
) -> None:
    # The chart is drawn left to right in every language (its axis is time). A name in a
    # script of the other direction must not pull its total into its own direction: "سارا +17"
    # drawn as "17+ سارا", the total before the name and the sign after the digits.
    created = create(served, NAMES, seed=7, rounds=1)
    page = open_page(f"?lang={code}#/games/{created['game_id']}").page
    page.wait_for_selector(f'{TABLE}[data-status="finished"][data-busy="false"]')

    signed = 0
    for text, order in page.locator("svg.chart").first.evaluate(SEEN):
        seen = [text[at] for at in order if at < len(text) and text[at] not in MARKS]
        first_of_total = next(i for i, char in enumerate(seen) if char.isdigit() or char in "+−")
        name, total = "".join(seen[:first_of_total]), "".join(seen[first_of_total:])
        assert total, f"{text!r} is seen as {seen}"
        assert all(char.isdigit() or char in "+−" for char in total), f"{text!r} is seen as {seen}"
        assert sorted(name) == sorted(char for char in text.rsplit(" ", 1)[0] if char not in MARKS), f"{text!r}"
        if total[0] in "+−":
            signed += 1
    assert signed >= 1  # seed 7 gives someone a total other than zero
