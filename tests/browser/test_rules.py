"""The table's "Rules in brief" links to the whole rules of its game in the reader's
language (docs/rules/, served from service/static/rules/): the link opens that language's
document, drawn as the page's own elements and in its direction (Persian right to left),
for both games. Each page leaves its screenshot (Persian's to look at first)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from service import i18n
from tests.browser.conftest import Watched
from tests.browser.table import TABLE, create
from tests.test_rules_documents import RULES

pytestmark = pytest.mark.browser

PLAYERS = {
    "poison": [{"name": name, "bot": "greedy"} for name in ("Ana", "Дмитрий", "سارا")],
    "pot": [{"name": "李娜", "bot": "greedy"}, {"name": "سارا", "bot": "greedy"}],
}


@pytest.mark.parametrize("game", list(PLAYERS))
@pytest.mark.parametrize("code", list(i18n.languages()))
def test_the_rules_in_brief_link_to_the_whole_rules_in_the_readers_language(
    open_page: Callable[..., Watched], served: str, code: str, game: str
) -> None:
    options = {"rounds": 1} if game == "poison" else {"ruleset": game}
    created = create(served, PLAYERS[game], seed=3, **options)
    page = open_page(f"?lang={code}#/games/{created['game_id']}").page
    page.wait_for_selector(f'{TABLE}[data-status="finished"][data-busy="false"]')
    page.locator("details.rules summary").click()
    link = page.locator("details.rules a.whole-rules")
    assert link.text_content() == i18n.Words(code)("rules.whole")
    link.click()

    document = page.locator(f'.rules-screen[data-game="{game}"] article.rules-document[aria-busy="false"]')
    document.wait_for()
    language = i18n.languages()[code]
    assert [document.get_attribute("lang"), document.get_attribute("dir")] == [language.tag, language.dir]
    assert page.evaluate("() => document.documentElement.dir") == language.dir
    source = (RULES / code / f"{game}.md").read_text(encoding="utf-8")
    assert document.locator("h2").first.text_content() == source.splitlines()[0].removeprefix("# ")
    assert document.locator("h3").count() == source.count("\n## ")
    # Emphasis and card codes are elements, never markup left as text.
    assert document.locator("strong").count() > 0
    assert document.locator("code").count() > 0
    text = document.inner_text()
    assert "**" not in text
    assert "`" not in text


def test_a_game_the_table_does_not_know_has_no_rules_to_show(open_page: Callable[..., Watched]) -> None:
    page = open_page("?lang=ru#/rules/chess").page
    page.locator('article.rules-document[aria-busy="false"]').wait_for()
    assert page.locator("article.rules-document").inner_text() == i18n.Words("ru")("rules.unknown")
