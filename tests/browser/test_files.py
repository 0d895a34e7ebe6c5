"""The page as the service serves it: `GET /` is the table (no longer a redirect), every file
of service/static is served from the package with its media type, and the few facts of the
rules the page draws (the overflow and explosion limits, each card's value) are the core's."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from core.poison import reference as poison_rules
from core.pot import reference as pot_rules
from service.controllers.table import CONTENT_SECURITY_POLICY, STATIC
from tests.browser.conftest import Watched

pytestmark = pytest.mark.browser

MEDIA = {
    ".js": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
    ".html": "text/html",
    ".json": "application/json",
    ".md": "text/markdown",
}


def test_the_root_is_the_table_page_with_its_security_headers(served: str) -> None:
    answer = httpx.get(f"{served}/", timeout=10)
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/html; charset=utf-8"
    assert answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert answer.headers["referrer-policy"] == "no-referrer"
    assert answer.text == (STATIC / "index.html").read_text()
    assert httpx.head(f"{served}/", timeout=10).status_code == 200


def test_every_file_of_the_page_is_served_from_the_package_with_its_media_type(served: str) -> None:
    files = [path for path in STATIC.rglob("*") if path.is_file()]
    assert {path.suffix for path in files} <= set(MEDIA), "a new kind of file needs its media type checked here"
    for path in files:
        answer = httpx.get(f"{served}/static/{path.relative_to(STATIC).as_posix()}", timeout=10)
        assert answer.status_code == 200, path
        assert answer.headers["content-type"].split(";")[0] == MEDIA[path.suffix], path
        assert answer.content == path.read_bytes()
        if path.suffix == ".md":  # the rules are read as text in every script
            assert answer.headers["content-type"] == "text/markdown; charset=utf-8", path
    missing = httpx.get(f"{served}/static/js/no-such-module.js", timeout=10)
    assert missing.status_code == 404


def test_the_page_draws_the_rules_the_core_plays(open_page: Callable[..., Watched]) -> None:
    page = open_page().page
    page.wait_for_selector(".lobby")
    facts = page.evaluate(
        """async ([poisonCodes, potCodes]) => {
            const poison = await import("/static/js/poison.js");
            const pot = await import("/static/js/pot.js");
            const values = (game, codes) => Object.fromEntries(codes.map((code) => [code, game.face(code).value]));
            return {
                overflow: poison.OVERFLOW_ABOVE,
                explode: pot.EXPLODES_ABOVE,
                poison: values(poison, poisonCodes),
                pot: values(pot, potCodes),
                kinds: [...new Set(poisonCodes.map((code) => poison.face(code).kind))],
            };
        }""",
        [list(poison_rules.CARD_CODES), list(pot_rules.CARD_CODES)],
    )
    assert facts["overflow"] == poison_rules.OVERFLOW_LIMIT
    assert facts["explode"] == pot_rules.EXPLODE_LIMIT
    assert facts["poison"] == {code: poison_rules.value_of(code) for code in poison_rules.CARD_CODES}
    assert facts["pot"] == {code: pot_rules.toxicity_of(code) for code in pot_rules.CARD_CODES}
    assert facts["kinds"] == [*poison_rules.COLOURS, poison_rules.POISON]
    assert [poison_rules.colour_of(code) for code in ("R1", "B1", "P1", "G4")] == facts["kinds"]
