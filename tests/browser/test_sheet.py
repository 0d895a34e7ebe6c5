"""The score sheet and the chart as a person reads them: every kind of card taken has a mark
of its own that the sheet explains, and the chart's names at the lines' ends fit inside it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.browser.conftest import Watched
from tests.browser.table import STEPS, finished_game, scores

pytestmark = pytest.mark.browser


def test_the_poison_score_sheet_marks_each_kind_taken_its_own_way_and_says_what_the_marks_mean(
    open_page: Callable[..., Watched], served: str
) -> None:
    created = finished_game(served, "poison", 4)
    game_id, last = created["game_id"], created["game"]["version"]
    sheet = scores(served, game_id)
    kinds_taken = {kind for round_ in sheet["rounds"] for taken in round_["taken"] for kind, count in taken.items() if count}
    assert {"purple", "poison"} <= kinds_taken, "the game chosen takes both purple and poison"
    page = open_page(f"#/games/{game_id}/steps").page
    page.wait_for_selector(f'{STEPS}[data-version="{last}"]')

    shown = page.locator(".sheet .tally").evaluate_all(
        "all => all.map(t => [[...t.classList].find(c => c.startsWith('kind-')).slice(5), t.textContent])"
    )
    marks: dict[str, set[str]] = {}
    for kind, text in shown:
        mark, count = text.split("×")
        assert int(count) > 0
        marks.setdefault(kind, set()).add(mark)
    assert set(marks) == kinds_taken
    assert all(len(kind_marks) == 1 for kind_marks in marks.values()), marks
    assert len({next(iter(kind_marks)) for kind_marks in marks.values()}) == len(marks), f"one mark per kind: {marks}"
    caption = page.locator(".sheet caption").inner_text()
    for kind, kind_marks in marks.items():
        assert f"{next(iter(kind_marks))} {kind}" in caption, caption
