"""The page and the command line write every message of a catalogue alike: the page through
its i18n module (FormatJS's intl-messageformat over Chromium's Intl), the CLI through
service/i18n.py (pyicumessageformat and Babel's CLDR data), for the same arguments. Every
message of every language is formatted with arguments that reach each of its plural forms
(Russian's one, few and many; the `#` in each), each branch of its selects and the `other`
past them, and numbers in the reader's digits (Persian's ۱۲۳۴).

The vendored library is the one its README names, built from the versions tools/vendor pins."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service import i18n
from service.controllers.table import STATIC
from tests.browser.conftest import Watched

pytestmark = pytest.mark.browser

#: Counts that land in every plural category of the five languages (Russian's 1, 21 one;
#: 2, 3, 22 few; 0, 5, 11, 101 many) and numbers that group ("1 234 567", "۱٬۲۳۴٬۵۶۷").
COUNTS = [0, 1, 2, 3, 5, 11, 21, 22, 101, 1000, 1234567]
#: A name for a bare argument that is no number: in Arabic script, so its digits stay apart.
NAME = "سارا ۲"
#: A select's value none of its branches names: its `other` answers.
UNNAMED = "no-such-branch"
VENDOR = STATIC / "vendor"
BUILD = Path(__file__).resolve().parents[2] / "tools" / "vendor"


def roles(parts: list[Any], found: dict[str, set[str] | str]) -> dict[str, set[str] | str]:
    """Each argument of a parsed message: "plural", "bare", or the set of its select's branches."""
    for part in parts:
        if isinstance(part, str) or part.get("hash"):
            continue
        name = part["name"]
        if part.get("type") in ("plural", "selectordinal"):
            found[name] = "plural"
        elif part.get("type") == "select":
            found[name] = set(part["options"]) - {"other"} | {UNNAMED}
        else:
            found.setdefault(name, "bare")
        for option in part.get("options", {}).values():
            roles(option, found)
    return found


def cases(code: str) -> list[tuple[str, dict[str, Any]]]:
    """Every message of `code`, each with a few sets of arguments, between them reaching every
    count of COUNTS, every branch of each select, and each bare argument as a number and as text."""
    made: list[tuple[str, dict[str, Any]]] = []
    for key in i18n.catalogue(code):
        found = roles(i18n.parsed(code, key), {})
        branches = [sorted(role) for role in found.values() if isinstance(role, set)]
        variants = max([len(COUNTS), *map(len, branches)]) if found else 1
        for v in range(variants):
            args: dict[str, Any] = {}
            for name, role in found.items():
                if role == "plural":
                    args[name] = COUNTS[v % len(COUNTS)]
                elif isinstance(role, set):
                    options = sorted(role)
                    args[name] = options[v % len(options)]
                else:
                    args[name] = COUNTS[v % len(COUNTS)] if v % 2 == 0 else NAME
            made.append((key, args))
    return made


@pytest.mark.parametrize("code", i18n.codes())
def test_every_message_reads_the_same_on_the_page_as_in_the_terminal(
    open_page: Callable[..., Watched], code: str
) -> None:
    page = open_page(f"?lang={code}#/").page
    page.wait_for_selector(".new-game")
    sample = cases(code)
    on_page: list[str] = page.evaluate(
        """async (sample) => {
            const { t } = await import("/static/js/i18n.js");
            return sample.map(([key, args]) => t(key, args));
        }""",
        sample,
    )
    words = i18n.Words(code)
    differ = [
        (key, args, shown, words(key, **args))
        for (key, args), shown in zip(sample, on_page, strict=True)
        if shown != words(key, **args)
    ]
    assert differ == [], f"{len(differ)} of {len(sample)} differ, first: {differ[:5]}"
    # The sample reaches what it means to: digits in the reader's script, every plural form.
    if code == "fa":
        assert any("۱٬۲۳۴٬۵۶۷" in shown for shown in on_page)
    if code == "ru":
        forms = {words("pot.cards", count=n) for n in (1, 2, 5)}
        assert len(forms) == 3, "Russian's one, few and many"
        assert forms <= set(on_page)


def test_the_vendored_message_formatter_is_the_build_its_readme_names() -> None:
    readme = (VENDOR / "README.md").read_text(encoding="utf-8")
    built = hashlib.sha256((VENDOR / "intl-messageformat.js").read_bytes()).hexdigest()
    assert f"`{built}`" in readme, "the bundle changed: rebuild with make vendor and update README.md"
    lock = json.loads((BUILD / "package-lock.json").read_text(encoding="utf-8"))
    pinned = json.loads((BUILD / "package.json").read_text(encoding="utf-8"))
    for name, version in {**pinned["dependencies"], **pinned["devDependencies"]}.items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"{name} is pinned to one version"
        assert lock["packages"][f"node_modules/{name}"]["version"] == version
        assert f"`{name}` {version}" in readme, f"README.md names {name} {version}"
    banner = (VENDOR / "intl-messageformat.js").read_text(encoding="utf-8").splitlines()[0]
    assert f"intl-messageformat {pinned['dependencies']['intl-messageformat']} " in banner
    licences = (VENDOR / "intl-messageformat.LICENSE.md").read_text(encoding="utf-8")
    bundled = [name.removeprefix("node_modules/") for name in lock["packages"] if "esbuild" not in name and name]
    assert len(bundled) == 4, bundled
    assert [name for name in bundled if f"{name} " not in licences] == [], "every bundled package's licence"
