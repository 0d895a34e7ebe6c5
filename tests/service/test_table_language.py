"""`GET /`, the browser table's page, served in the reader's language before any of its script
runs: chosen from the address's `?lang=`, else the request's Accept-Language (weights, `*`,
`q=0`, tags read by their first subtag), else English with nothing chosen; its `<html lang
dir>`, title, masthead and `<noscript>` in that language, with Content-Language and Vary."""

from __future__ import annotations

import html
import re

import pytest
from litestar.testing import AsyncTestClient

from service import i18n
from service.controllers.table import CHOSEN, DEFAULT_PAGE, PAGES, STATIC

pytestmark = pytest.mark.anyio

#: A browser's header for each language, as Chromium sends it for that locale.
BROWSERS = {
    "en": "en-GB,en;q=0.9",
    "pt": "pt-BR,pt;q=0.9,en;q=0.8",
    "zh": "zh-CN,zh;q=0.9,en;q=0.8",
    "ru": "ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7",
    "fa": "fa-IR,fa;q=0.9,en;q=0.8",
}
#: Headers this grammar cannot read (RFC 9110, section 12.5.4): each is ignored whole.
MALFORMED = [
    "fa;q=2",
    "fa;q=1.5",
    "fa;q=0.1234",
    "fa;q=",
    "fa;q=half",
    "fa;level=1",
    "fa;;q=0.5",
    ";q=1",
    "fa-",
    "-fa",
    "fa--IR",
    "123",
    "persianlanguage",
    "fa IR",
    "fa;q=0.5;q=0.4",
    "fa, ru;q=0.5 en",
    "**",
]


async def page(client: AsyncTestClient, accept_language: str | None = None, **params: str) -> tuple[str | None, str]:
    """The page's language as served (None when the service chose none) and its text."""
    headers = {} if accept_language is None else {"Accept-Language": accept_language}
    answer = await client.get("/", headers=headers, params=params)
    assert answer.status_code == 200, answer.text
    assert answer.headers["vary"] == "Accept-Language"
    root = re.search(r"<html[^>]*>", answer.text)
    assert root is not None
    chosen = CHOSEN in root.group(0)
    code = next(code for code, language in i18n.languages().items() if f'lang="{language.tag}"' in root.group(0))
    assert answer.headers["content-language"] == i18n.languages()[code].tag
    assert answer.content == (PAGES[code] if chosen else DEFAULT_PAGE)
    return (code if chosen else None), answer.text


@pytest.mark.parametrize("code", list(BROWSERS))
async def test_each_language_a_browser_asks_for_is_the_pages_before_its_script_runs(
    client: AsyncTestClient, code: str
) -> None:
    chosen, text = await page(client, BROWSERS[code])
    assert chosen == code
    language, words = i18n.languages()[code], i18n.Words(code)
    assert f'<html lang="{language.tag}" dir="{language.dir}" {CHOSEN}>' in text
    assert f'<title data-i18n="title.page">{html.escape(words("title.page"), quote=False)}</title>' in text
    for key in ("brand.sub", "nav.lobby", "nav.replay"):
        assert f'data-i18n="{key}">{html.escape(words(key), quote=False)}<' in text
    noscript = re.search(r"<noscript><p [^>]*>(.*)</p></noscript>", text)
    assert noscript is not None
    link = '<a href="/schema/swagger" dir="ltr" data-i18n-arg="api">/schema/swagger</a>'
    assert noscript.group(1) == html.escape(words("page.noscript", api="\0"), quote=False).replace("\0", link)


async def test_without_accept_language_the_page_is_index_html_as_written_with_nothing_chosen(
    client: AsyncTestClient,
) -> None:
    chosen, text = await page(client)
    assert chosen is None
    assert text.encode() == (STATIC / "index.html").read_bytes(), "the English page is index.html itself"


@pytest.mark.parametrize("header", ["de-DE, fr;q=0.8", "x-klingon", "fa;q=0", "en;q=0", "", "   "])
async def test_a_header_naming_no_language_spoken_here_gives_english_with_nothing_chosen(
    client: AsyncTestClient, header: str
) -> None:
    assert (await page(client, header))[0] is None


#: Headers naming languages spoken here, each with the one the page must be in, by the rule of
#: RFC 9110 (section 12.5.4) it shows.
PREFERENCES = {
    "the range of highest weight spoken here wins wherever it stands": [
        ("en;q=0.3, fa;q=0.9, ru;q=0.5", "fa"),
        ("de, ru;q=0.2, zh;q=0.7", "zh"),
        ("pt;q=1.000, ru;q=0.999", "pt"),
        ("ru;q=0.001", "ru"),
        ("ZH-hant-TW", "zh"),
        ("zh_CN", "zh"),
    ],
    "ranges of equal weight keep the order the client gave": [
        ("ru;q=0.5, fa;q=0.5, pt;q=0.5", "ru"),
        ("fa, pt", "fa"),
        ("pt, fa", "pt"),
    ],
    "a weight of zero says not this language": [("fa;q=0, ru;q=0.1", "ru"), ("en-US;q=0, en;q=0, pt;q=0.2", "pt")],
    "a star stands for any language the header does not name": [
        ("*", "en"),
        ("de, *;q=0.1", "en"),
        ("en;q=0, *", "pt"),
        ("en;q=0.5, pt;q=0, *", "zh"),
        ("*;q=0.5, fa", "fa"),
        ("*, fa;q=0.5", "en"),
        ("en, pt, zh, ru, fa;q=0.1, *;q=0.5", "en"),
        ("en;q=0, pt;q=0, zh;q=0, ru;q=0, *;q=0.5, fa;q=0.1", "fa"),
    ],
    "spaces, empty elements and a capital q are read as RFC 9110 allows": [
        ("ru, fa;q=0.5, en", "ru"),
        (" , ru ,, ", "ru"),
        ("ru ; q=0.9 ,fa\t;\tQ=0.8", "ru"),
    ],
}


@pytest.mark.parametrize(
    ("header", "code"),
    [
        pytest.param(header, code, id=f"{rule}: {header!r}")
        for rule, cases in PREFERENCES.items()
        for header, code in cases
    ],
)
async def test_the_page_is_in_the_language_the_header_prefers_as_rfc_9110_reads_it(
    client: AsyncTestClient, header: str, code: str
) -> None:
    assert (await page(client, header))[0] == code


@pytest.mark.parametrize("header", MALFORMED)
async def test_a_malformed_header_is_ignored_whole_never_an_error(client: AsyncTestClient, header: str) -> None:
    assert (await page(client, header))[0] is None


async def test_several_accept_language_fields_are_read_as_one_list(client: AsyncTestClient) -> None:
    answer = await client.get("/", headers=[("Accept-Language", "de;q=0.9"), ("Accept-Language", "ru;q=0.5, fa;q=0.1")])
    assert answer.status_code == 200
    assert answer.headers["content-language"] == "ru"
    assert answer.content == PAGES["ru"]


async def test_the_addresss_lang_comes_before_the_header_and_an_unknown_one_is_no_error(
    client: AsyncTestClient,
) -> None:
    assert (await page(client, BROWSERS["ru"], lang="zh"))[0] == "zh"
    assert (await page(client, BROWSERS["ru"], lang="fa-IR"))[0] == "fa"
    assert (await page(client, BROWSERS["ru"], lang="tlh"))[0] == "ru"
    assert (await page(client, None, lang=""))[0] is None


async def test_a_header_of_bytes_no_language_tag_has_is_ignored_never_an_error(client: AsyncTestClient) -> None:
    answer = await client.get("/", headers=[(b"Accept-Language", "fa-ایران, ru;q=0.5".encode())])
    assert answer.status_code == 200
    assert answer.content == DEFAULT_PAGE
    assert answer.headers["content-language"] == "en"
