"""The table in each of its languages (service/static/i18n/): the page's `lang` and `dir`, no
English left on screen in another language, names in four scripts kept in their own
direction, at desktop and phone size; the language as the browser asks for it (its
Accept-Language, in the page as served, then navigator.languages), and the menu's. Each page
leaves its screenshot (Persian's to look at first: it reads right to left)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from service import i18n
from tests.browser.conftest import Watched
from tests.browser.table import STEPS, TABLE, create

#: Names in Latin, Cyrillic, Han and Arabic script; four bots play them to the end at once.
NAMES = [
    {"name": "Ana", "bot": "greedy"},
    {"name": "Дмитрий", "bot": "random"},
    {"name": "李娜", "bot": "greedy"},
    {"name": "سارا", "bot": "random"},
]
pytestmark = pytest.mark.browser

TAGS = {code: (language.tag, language.dir) for code, language in i18n.languages().items()}


def texts(parts: list[Any]) -> list[str]:
    """The words of a parsed message, without its arguments: what would be left on screen."""
    found: list[str] = []
    for part in parts:
        if isinstance(part, str):
            found.append(part)
        elif isinstance(part, dict):
            for option in part.get("options", {}).values():
                found.extend(texts(option))
    return found


def english_left(code: str) -> list[str]:
    """The English catalogue's runs of words (three words or more) that `code` translates:
    any of them on a page in `code` is English left untranslated."""
    translated = " ".join(i18n.catalogue(code).values())
    runs = set()
    for key in i18n.catalogue(i18n.SOURCE):
        for text in texts(i18n.parsed(i18n.SOURCE, key)):
            for run in re.split(r"[:;.()·“”]", text):
                run = run.strip()
                if len(run.split()) >= 3 and run not in translated:
                    runs.add(run)
    return sorted(runs)


def shown(page: Any) -> str:
    return str(page.evaluate("() => document.body.innerText"))


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
@pytest.mark.parametrize("code", list(TAGS))
def test_a_finished_game_reads_in_the_readers_language_with_every_name_isolated(
    open_page: Callable[..., Watched], served: str, code: str, phone: bool
) -> None:
    created = create(served, NAMES, seed=7, rounds=1)
    game_id = created["game_id"]
    page = open_page(f"?lang={code}#/games/{game_id}", phone=phone).page
    page.wait_for_selector(f'{TABLE}[data-status="finished"][data-busy="false"]')
    page.locator("details.rules summary").click()

    tag, direction = TAGS[code]
    assert page.evaluate("() => [document.documentElement.lang, document.documentElement.dir]") == [tag, direction]
    text = shown(page)
    if code != i18n.SOURCE:
        left = [run for run in english_left(code) if run in text]
        assert left == [], f"English left on the {code} page"
    # Every seat's name on the board and on the sheet is an element of its own direction.
    for player in NAMES:
        assert page.locator(f'{TABLE} bdi:text-is("{player["name"]}")').count() >= 2
    words = i18n.Words(code)
    assert words("table.rules") in text


#: A browser's locale for each language: Chromium sends it as Accept-Language and gives it as
#: navigator.languages.
LOCALES = {"en": "en-GB", "pt": "pt-BR", "zh": "zh-CN", "ru": "ru-RU", "fa": "fa-IR"}


@pytest.mark.parametrize("code", list(LOCALES))
def test_the_page_is_painted_in_the_browsers_language_before_any_script_runs(
    open_page: Callable[..., Watched], code: str
) -> None:
    # No script at all: what shows is the page as served, the words the first paint shows.
    page = open_page("#/", locale=LOCALES[code], javascript=False).page
    words = i18n.Words(code)
    assert page.evaluate("() => [document.documentElement.lang, document.documentElement.dir]") == list(TAGS[code])
    assert page.title() == words("title.page")
    assert page.locator("main noscript p, main p.panel").first.inner_text() == words(
        "page.noscript", api="/schema/swagger"
    )
    assert page.locator(".masthead-nav").inner_text().split("\n") == [
        words("nav.lobby"),
        words("nav.replay"),
        words("nav.api"),
    ]
    assert page.locator(".brand-sub").inner_text() == words("brand.sub")


@pytest.mark.parametrize("code", ["fa", "zh"])
def test_the_language_the_service_chose_from_the_header_comes_before_the_browsers_languages(
    open_page: Callable[..., Watched], code: str
) -> None:
    # The request asks for `code` (as a proxy's or a client's header may); the browser's own
    # languages, as the page's script sees them, say Portuguese.
    prefers = "Object.defineProperty(navigator, 'languages', { get: () => ['pt-BR', 'pt'] });"
    page = open_page("#/", locale=LOCALES[code], script=prefers).page
    page.wait_for_selector(".new-game")
    assert page.evaluate("() => [document.documentElement.lang, document.documentElement.dir]") == list(TAGS[code])
    assert page.locator("select.language").input_value() == code
    assert i18n.Words(code)("nav.lobby") in shown(page)


@pytest.mark.parametrize("code", ["ru", "fa", "zh", "pt"])
def test_the_language_comes_from_the_browsers_languages_and_the_menu_keeps_another(
    open_page: Callable[..., Watched], code: str
) -> None:
    # An Accept-Language naming no language spoken here: the service chooses none, and the
    # page asks the browser's languages.
    prefers = f"Object.defineProperty(navigator, 'languages', {{ get: () => ['{code}-XX', 'en'] }});"
    page = open_page("#/", script=prefers, locale="de-DE").page
    page.wait_for_selector(".new-game")
    assert page.evaluate("() => document.documentElement.lang") == TAGS[code][0]

    page.locator("select.language").select_option("en")
    page.wait_for_selector(".new-game")
    assert page.evaluate("() => [document.documentElement.lang, document.documentElement.dir]") == ["en", "ltr"]
    page.goto(page.url.split("?")[0] + "#/")
    page.wait_for_selector(".new-game")
    assert page.evaluate("() => document.documentElement.lang") == "en", "the menu's choice is kept"


def test_a_step_through_in_persian_keeps_the_chart_left_to_right_and_its_names_whole(
    open_page: Callable[..., Watched], served: str
) -> None:
    created = create(served, NAMES, seed=7, rounds=2)
    game_id, last = created["game_id"], created["game"]["version"]
    page = open_page(f"?lang=fa#/games/{game_id}/steps").page
    page.wait_for_selector(f'{STEPS}[data-version="{last}"]')
    chart = page.locator("svg.chart")
    assert chart.get_attribute("direction") == "ltr"
    names = chart.locator("tspan.series-who").all_text_contents()
    assert sorted(names) == sorted(player["name"] for player in NAMES)
