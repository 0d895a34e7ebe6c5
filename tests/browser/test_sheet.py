"""The score sheet and the chart as a person reads them: every kind of card taken has a mark
of its own that the sheet explains, and the chart's names at the lines' ends fit inside it."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.browser.conftest import Watched
from tests.browser.table import STEPS, TABLE, create, exported, finished_game, finished_id_and_version, scores

pytestmark = pytest.mark.browser


def test_the_poison_score_sheet_marks_each_kind_taken_its_own_way_and_says_what_the_marks_mean(
    open_page: Callable[..., Watched], served: str
) -> None:
    game_id, last = finished_id_and_version(served, "poison", 4)
    sheet = scores(served, game_id)
    kinds_taken = {
        kind for round_ in sheet["rounds"] for taken in round_["taken"] for kind, count in taken.items() if count
    }
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


#: Names as long as the service takes (32 characters) and in other scripts, at the chart's right edge.
LONG_NAMES = [
    {"name": "Дмитрий", "bot": "greedy"},
    {"name": "Maria da Conceição Albuquerque", "bot": "random"},
    {"name": "Ж" * 32, "bot": "greedy"},
    {"name": "W" * 32, "bot": "random"},
]


#: Six seats of which four end the game (seed 20, one round) at the lowest total, 0: their
#: names are nudged apart downwards, from the chart's bottom line.
LEVEL_AT_THE_BOTTOM = [{"name": f"Seat{seat}", "bot": "random" if seat % 2 == 0 else "greedy"} for seat in range(6)]


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
@pytest.mark.parametrize(
    ("players", "seed", "rounds"),
    [(LONG_NAMES, 21, 2), (LEVEL_AT_THE_BOTTOM, 20, 1)],
    ids=["long-names", "level-at-the-bottom"],
)
def test_the_charts_names_at_the_lines_ends_fit_inside_the_chart_on_desktop_and_phone(
    open_page: Callable[..., Watched], served: str, phone: bool, players: list[dict[str, str]], seed: int, rounds: int
) -> None:
    created = create(served, players, seed=seed, rounds=rounds)
    game_id, last = created["game_id"], created["game"]["version"]
    page = open_page(f"#/games/{game_id}/steps", phone=phone).page
    page.wait_for_selector(f'{STEPS}[data-version="{last}"]')

    chart = page.locator("svg.chart")
    edges = chart.evaluate(
        "svg => { const r = svg.getBoundingClientRect(); return [r.left, r.right, r.top, r.bottom]; }"
    )
    labels = chart.locator("text.series-name").evaluate_all(
        "all => all.map(t => { const r = t.getBoundingClientRect();"
        " return [t.textContent, r.left, r.right, r.top, r.bottom]; })"
    )
    assert len(labels) == len(players)
    left, right, top, bottom = edges
    for text, label_left, label_right, label_top, label_bottom in labels:
        assert left <= label_left, f"{text!r} runs past the chart's left side"
        assert label_right <= right, f"{text!r} runs past the chart's right side: {label_right} > {right}"
        assert top <= label_top, f"{text!r} runs past the chart's top"
        assert label_bottom <= bottom, f"{text!r} runs past the chart's bottom: {label_bottom} > {bottom}"
    # Each label still says whose line it is and its total; a name too long for the room is shortened, never cut.
    titles = chart.locator("g.series > title").all_text_contents()
    for (text, *_), title, player in zip(labels, titles, players, strict=True):
        name, total = text.rsplit(" ", 1)
        # The title names the seat isolated in its own direction (FSI … PDI), as every name is.
        assert title.startswith(f"\u2068{player['name']}\u2069: ")
        assert name == player["name"] or (name.endswith("…") and player["name"].startswith(name[:-1]))
        assert total == title.rsplit(", ", 1)[-1]


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_names_as_long_as_the_service_takes_never_make_the_page_scroll_sideways(
    open_page: Callable[..., Watched], served: str, phone: bool
) -> None:
    # A 32-character name with no space to break at, in the feed, the step, the seats and
    # the score sheet: each wraps within its panel instead of widening the page.
    created = create(served, LONG_NAMES, seed=21, rounds=2)
    game_id, last = created["game_id"], created["game"]["version"]
    page = open_page(f"#/games/{game_id}/steps", phone=phone).page
    page.wait_for_selector(f'{STEPS}[data-version="{last}"]')
    width = page.evaluate("window.innerWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_a_pot_games_sheet_shows_every_pot_in_the_page_and_breaks_no_heading(
    open_page: Callable[..., Watched], served: str, phone: bool
) -> None:
    created = finished_game(served, "pot", 4)
    pots = len(scores(served, created["game_id"])["pots"])
    page = open_page(f"#/games/{created['game_id']}", phone=phone).page
    page.wait_for_selector(f'{TABLE}[data-status="finished"]')
    sheet = page.locator(".sheet.pots")
    assert sheet.locator("tbody tr").count() == pots
    inside, shown = sheet.evaluate("e => [e.scrollHeight, e.clientHeight]")
    assert inside <= shown + 1, f"the sheet scrolls inside the page: {inside} px in {shown} px"
    lines = sheet.locator("thead th").evaluate_all(
        """all => all.map(th => {
            const range = document.createRange();
            range.selectNodeContents(th);
            return [th.textContent, new Set([...range.getClientRects()].map(box => Math.round(box.top))).size];
        })"""
    )
    # A heading may wrap between its words, never inside one ("Toxici-ty").
    assert all(count <= len(text.split()) for text, count in lines), f"a word of a heading broken: {lines}"


def test_a_pile_that_grows_never_covers_the_words_beside_it(open_page: Callable[..., Watched], served: str) -> None:
    created = finished_game(served, "poison", 4)
    logged = [json.loads(line) for line in exported(served, created["game_id"]).splitlines() if line.strip()]
    overflow = next(event for event in logged if event["type"] == "cauldron_overflowed")
    version, seat = overflow["version"], overflow["data"]["seat"]
    page = open_page(f"#/games/{created['game_id']}/steps?version={version}").page
    page.wait_for_selector(f'{STEPS}[data-version="{version}"]')
    page.emulate_media(reduced_motion="no-preference")  # the tests' pages ask for none
    grown = page.locator(f'{STEPS} .seat[data-seat="{seat}"]')
    overlaps = grown.evaluate(
        """seat => {
            const back = seat.querySelector('.pile.grew .card-back');
            back.style.animation = 'none';  // restarted: it may be over by now
            void back.offsetWidth;
            back.style.animation = '';
            const animation = back.getAnimations()[0];
            animation.pause();
            animation.currentTime = 0;  // its largest
            const box = back.getBoundingClientRect();
            const walker = document.createTreeWalker(seat, NodeFilter.SHOW_TEXT);
            const hit = [];
            for (let text = walker.nextNode(); text; text = walker.nextNode()) {
                if (back.contains(text) || !text.textContent.trim()) continue;
                const range = document.createRange();  // its letters, not the spaces around them
                range.setStart(text, text.textContent.length - text.textContent.trimStart().length);
                range.setEnd(text, text.textContent.trimEnd().length);
                for (const word of range.getClientRects()) {
                    const apart = word.right <= box.left || word.left >= box.right
                        || word.bottom <= box.top || word.top >= box.bottom;
                    if (!apart) hit.push(text.textContent.trim());
                }
            }
            return hit;
        }"""
    )
    assert overlaps == [], f"the growing pile covers {overlaps}"
