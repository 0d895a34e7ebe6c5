"""The whole rules of both games in every language the table speaks (docs/rules/, served to
the table from service/static/rules/): each language has both documents, each names the
same numbers as the English one (the game's numbers are the same in every language), and
docs/rules is the served folder itself, so there is one copy of each document."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from service import i18n
from service.controllers.table import FILES, STATIC

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules"
GAMES = ("poison", "pot")
#: A whole number, in any script's digits (Persian's ۱۴ is 14), without its sign.
NUMBER = re.compile(r"\d+")
#: A Markdown heading of any level.
HEADING = re.compile(r"^#{1,6} ", re.M)


def numbers(text: str) -> set[int]:
    return {int(found) for found in NUMBER.findall(text)}


def test_the_rules_in_docs_are_the_very_files_the_table_serves() -> None:
    assert RULES.is_symlink()
    assert RULES.resolve() == (STATIC / "rules").resolve()


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("code", list(i18n.languages()))
def test_every_language_has_the_whole_rules_of_each_game_served_to_the_table(code: str, game: str) -> None:
    document = RULES / code / f"{game}.md"
    assert document.is_file(), f"no rules of {game} in {code}"
    assert f"rules/{code}/{game}.md" in FILES
    assert document.read_text(encoding="utf-8").startswith("# ")


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("code", [code for code in i18n.languages() if code != i18n.SOURCE])
def test_each_translation_names_the_same_numbers_and_sections_as_the_english_rules(code: str, game: str) -> None:
    english = (RULES / i18n.SOURCE / f"{game}.md").read_text(encoding="utf-8")
    translated = (RULES / code / f"{game}.md").read_text(encoding="utf-8")
    assert sorted(numbers(translated) - numbers(english)) == [], "numbers the English rules do not name"
    assert sorted(numbers(english) - numbers(translated)) == [], "numbers of the English rules left out"
    assert len(HEADING.findall(translated)) == len(HEADING.findall(english))
    assert re.findall(r"`[^`]+`", translated) == re.findall(r"`[^`]+`", english), "card codes differ"


def test_the_number_check_reads_persian_digits_as_numbers() -> None:
    assert numbers("سمیّتِ دقیقاً ۱۴ و 13") == {13, 14}
