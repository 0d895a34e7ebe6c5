"""The words of the command line in the reader's language, from the catalogues the browser
table reads too (service/static/i18n/<code>.json: ICU MessageFormat, one file a language).

A message is parsed by pyicumessageformat (a parser of ICU MessageFormat as ICU writes it,
apostrophe quoting included) and formatted here with Babel's CLDR data: plural categories
(Russian's one, few and many), digits and grouping ("2 000", "۲٬۰۰۰"), lists ("a, b и c").
The page does the same over the browser's Intl (service/static/js/i18n.js), so a message
reads alike in both. The language is `--lang`, else the first of LC_ALL, LC_MESSAGES and
LANG that names a language the table speaks (POSIX's order), else English. The page's is
chosen here too, from a request's Accept-Language (`from_accept_language`), before any of
its script runs (service/controllers/table.py).

A name from outside is isolated between FSI and PDI wherever it goes (`isolated`), so a
right-to-left name never reorders the words or numbers beside it in a terminal.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from babel import Locale
from babel.lists import format_list
from babel.numbers import format_decimal
from pyicumessageformat import Parser

#: The catalogues, beside the page's files (installed with the package).
CATALOGUES = Path(__file__).resolve().parent / "static" / "i18n"
#: The language of every message's first writing: every other catalogue has each of its messages.
SOURCE = "en"
#: The locale variables that name the reader's language, in the order POSIX reads them.
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")
FSI = "\u2068"
PDI = "\u2069"

_PARSER = Parser({"allow_tags": False, "require_other": True})
#: The digits of the numbering systems our languages use by default, where they are not
#: Latin: Babel writes a number with the locale's own separators ("2٬003") but Latin digits.
DIGITS = {"arabext": "۰۱۲۳۴۵۶۷۸۹", "arab": "٠١٢٣٤٥٦٧٨٩"}


@dataclass(frozen=True)
class Language:
    """One language the table speaks, as service/static/i18n/languages.json lists it."""

    code: str
    name: str
    tag: str
    intl: str
    dir: str


@cache
def languages() -> dict[str, Language]:
    listed = json.loads((CATALOGUES / "languages.json").read_text(encoding="utf-8"))
    return {entry["code"]: Language(**entry) for entry in listed}


def codes() -> list[str]:
    return list(languages())


def match(tag: str | None) -> str | None:
    """The table's language for a tag such as "pt_BR.UTF-8", "zh-Hans" or "ru": by its
    first subtag; None for none it speaks ("C", "POSIX", "de_DE")."""
    if not tag:
        return None
    first = tag.split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
    return first if first in languages() else None


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The reader's language from the locale variables; English when none names one spoken here."""
    environ = os.environ if environ is None else environ
    for variable in LOCALE_VARIABLES:
        value = environ.get(variable)
        if value:
            # The first variable set decides, as POSIX has it: LC_ALL=C means no translation.
            return match(value) or SOURCE
    return SOURCE


#: One element of an Accept-Language list (RFC 9110, section 12.5.4): a language range
#: (RFC 4647's basic range, or `*`) with its optional weight, `q` from 0 to 1 in at most three
#: decimals. An empty element is allowed: the list's grammar lets a sender write `a, , b`.
#: A subtag may follow `_` too ("zh_CN", as a locale writes it): read as `match` reads LANG.
_ACCEPTED = re.compile(
    r"[ \t]*(?:(?P<range>[A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*|\*)"
    r"(?:[ \t]*;[ \t]*[qQ]=(?P<q>0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?))?)?[ \t]*"
)


def from_accept_language(header: str | None) -> str | None:
    """The table's language for a request's Accept-Language ("pt-BR, en;q=0.8"): the range
    of highest weight that names a language spoken here, by its first subtag as `match` reads
    it (ties keep the header's order); `*` stands for any language the header does not name
    (the first of them, in languages.json's order); a weight of 0 says "not this one". None
    when the header is absent, names no language spoken here, or is malformed: a header this
    grammar cannot read is ignored whole, as RFC 9110 lets a recipient, never an error.

    By hand, because no dependency reads this header: Babel's `negotiate_locale` takes a list
    already in order (no weights, no `*`) and matches by first subtag as `match` already
    does; Litestar's `Accept` reads media types (it keeps `q=0` and reads a bad `q` as 1)."""
    if not header:
        return None
    ranges: list[tuple[str, float]] = []
    for element in header.split(","):
        read = _ACCEPTED.fullmatch(element)
        if read is None:
            return None
        if read["range"] is not None:
            ranges.append((read["range"], float(read["q"] or 1)))
    named = {match(tag) for tag, _ in ranges}
    # sorted() is stable: ranges of equal weight keep the order the client gave them.
    for tag, weight in sorted(ranges, key=lambda each: -each[1]):
        if weight == 0:
            break
        code = next((code for code in languages() if code not in named), None) if tag == "*" else match(tag)
        if code is not None:
            return code
    return None


@cache
def catalogue(code: str) -> dict[str, str]:
    messages: dict[str, str] = json.loads((CATALOGUES / f"{code}.json").read_text(encoding="utf-8"))
    return messages


@cache
def parsed(code: str, key: str) -> list[Any]:
    tree: list[Any] = _PARSER.parse(catalogue(code)[key])
    return tree


def isolated(name: str) -> str:
    """A name from outside, kept in its own direction whatever surrounds it."""
    return f"{FSI}{name}{PDI}"


class Words:
    """One language's messages, formatted: `words("play.you_play", card="R5")`."""

    def __init__(self, code: str) -> None:
        if code not in languages():
            raise ValueError(f"no language {code!r}: the table speaks {', '.join(languages())}")
        self.code = code
        self.language = languages()[code]
        self.locale = Locale.parse(self.language.intl, sep="-")
        system = self.locale.default_numbering_system
        self._digits = str.maketrans("0123456789", DIGITS[system]) if system in DIGITS else None

    def __call__(self, key: str, /, **args: Any) -> str:
        return "".join(self._render(parsed(self.code, key), args, None))

    def number(self, value: int) -> str:
        shown = str(format_decimal(value, locale=self.locale, numbering_system="default"))
        return shown.translate(self._digits) if self._digits else shown

    def fixed(self, value: float, places: int, *, grouped: bool = True) -> str:
        """A number with `places` decimals, in the reader's digits ("1,234.50"; "1500"
        ungrouped, as a rating is written)."""
        pattern = ("#,##0" if grouped else "0") + ("." + "0" * places if places else "")
        shown = str(format_decimal(value, format=pattern, locale=self.locale, numbering_system="default"))
        return shown.translate(self._digits) if self._digits else shown

    def listed(self, items: Sequence[str]) -> str:
        return str(format_list(list(items), locale=self.locale)) if items else ""

    def _render(self, parts: list[Any], args: Mapping[str, Any], hash_value: int | None) -> list[str]:
        out: list[str] = []
        for part in parts:
            if isinstance(part, str):
                out.append(part)
            elif part.get("hash"):
                out.append(self.number(int(args[part["name"]]) if hash_value is None else hash_value))
            elif "options" not in part:
                value = args[part["name"]]
                out.append(self.number(value) if isinstance(value, int) and not isinstance(value, bool) else str(value))
            elif part["type"] in ("plural", "selectordinal"):
                value = int(args[part["name"]])
                options = part["options"]
                counted = value - int(part.get("offset") or 0)
                chosen = options.get(f"={value}", options.get(self.locale.plural_form(counted), options["other"]))
                out.extend(self._render(chosen, args, counted))
            else:
                options = part["options"]
                out.extend(self._render(options.get(str(args[part["name"]]), options["other"]), args, hash_value))
        return out


#: The language of this process's words (the CLI sets it once from --lang or the locale).
_current: list[Words] = []


def use(code: str) -> Words:
    """Speak `code` from now on in this process (`poison --lang`, or the locale's)."""
    _current[:] = [Words(code)]
    return _current[0]


def words() -> Words:
    """The words of this process's language: the locale's until `use` says otherwise."""
    if not _current:
        use(from_environment())
    return _current[0]
