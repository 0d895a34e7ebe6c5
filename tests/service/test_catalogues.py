"""The message catalogues (service/static/i18n/<code>.json), which the browser table and the
command line share: every language has every English message, with the same arguments,
each plural with the forms its language needs, and a message for every refusal's code."""

from __future__ import annotations

from typing import Any

import pytest
from babel import Locale

from service import i18n
from service.problems import TITLES

LANGUAGES = i18n.codes()
TRANSLATIONS = [code for code in LANGUAGES if code != i18n.SOURCE]


def arguments(parts: list[Any], found: set[str] | None = None) -> set[str]:
    """Every argument a parsed message names, in its text and in its plurals' and selects' options."""
    found = set() if found is None else found
    for part in parts:
        if isinstance(part, dict):
            if "name" in part and not part.get("hash"):
                found.add(part["name"])
            for option in part.get("options", {}).values():
                arguments(option, found)
    return found


def plurals(parts: list[Any]) -> list[dict[str, Any]]:
    """Every plural in a parsed message, nested ones too."""
    found = []
    for part in parts:
        if isinstance(part, dict):
            if part.get("type") == "plural":
                found.append(part)
            for option in part.get("options", {}).values():
                found.extend(plurals(option))
    return found


def test_the_table_speaks_english_portuguese_chinese_russian_and_persian() -> None:
    assert LANGUAGES == ["en", "pt", "zh", "ru", "fa"]
    assert [i18n.languages()[code].dir for code in LANGUAGES] == ["ltr", "ltr", "ltr", "ltr", "rtl"]


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_message_of_every_catalogue_is_icu_messageformat(code: str) -> None:
    for key in i18n.catalogue(code):
        i18n.parsed(code, key)  # raises on a message the parser cannot read


@pytest.mark.parametrize("code", TRANSLATIONS)
def test_every_catalogue_has_every_english_message_and_no_other(code: str) -> None:
    english, translated = set(i18n.catalogue(i18n.SOURCE)), set(i18n.catalogue(code))
    assert sorted(english - translated) == [], f"{code} lacks these messages"
    assert sorted(translated - english) == [], f"{code} has messages English has not"


@pytest.mark.parametrize("code", TRANSLATIONS)
def test_every_translated_message_names_the_arguments_its_english_one_names(code: str) -> None:
    wrong = {
        key: (sorted(arguments(i18n.parsed(i18n.SOURCE, key))), sorted(arguments(i18n.parsed(code, key))))
        for key in i18n.catalogue(i18n.SOURCE)
        if arguments(i18n.parsed(i18n.SOURCE, key)) != arguments(i18n.parsed(code, key))
    }
    assert wrong == {}


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_plural_has_each_form_its_language_uses_for_whole_numbers(code: str) -> None:
    """Russian counts one, few and many (1 карта, 2 карты, 5 карт); Chinese one form only."""
    locale = Locale.parse(i18n.languages()[code].intl, sep="-")
    forms = {locale.plural_form(n) for n in range(1000)}
    lacking = {
        key: sorted(forms - set(plural["options"]))
        for key in i18n.catalogue(code)
        for plural in plurals(i18n.parsed(code, key))
        if forms - set(plural["options"])
    }
    assert lacking == {}
    if code == "ru":
        assert forms == {"one", "few", "many"}


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_refusals_code_has_a_message_in_every_language(code: str) -> None:
    """The table says a refusal in the reader's language from its stable code."""
    lacking = [problem for problem in TITLES if f"problem.{problem}" not in i18n.catalogue(code)]
    assert lacking == []


def test_a_russian_count_takes_the_form_its_number_asks_for() -> None:
    words = i18n.Words("ru")
    assert [words("hand.count", count=n) for n in (1, 2, 5, 21)] == ["1 карта", "2 карты", "5 карт", "21 карта"]


def test_a_persian_number_is_written_in_persian_digits() -> None:
    assert i18n.Words("fa")("hand.count", count=3) == "۳ کارت"


@pytest.mark.parametrize(
    ("environment", "code"),
    [
        ({"LANG": "ru_RU.UTF-8"}, "ru"),
        ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "fa_IR.UTF-8"}, "fa"),
        ({"LC_ALL": "pt_BR.UTF-8", "LANG": "ru_RU.UTF-8"}, "pt"),
        ({"LANG": "zh_CN.UTF-8"}, "zh"),
        ({"LC_ALL": "C", "LANG": "ru_RU.UTF-8"}, "en"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_the_terminals_language_comes_from_lc_all_then_lc_messages_then_lang(
    environment: dict[str, str], code: str
) -> None:
    assert i18n.from_environment(environment) == code
