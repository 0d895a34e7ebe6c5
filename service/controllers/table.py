"""The browser table (issue 14): `GET /` is the page, `/static/…` its files, served from the package.

The page (service/static/: plain ES modules, CSS and SVG, no build step, no CDN) plays,
watches and replays both games through the public HTTP API alone, as any integrator's
client would; nothing here knows a rule of either game, and nothing here reads a token: a
seat's token lives in the page's URL fragment, which a browser never sends to a server.
The files are found beside this package (`service/static`), so an installed service serves
the same page as a checkout. They are listed once, when this module is imported, and a
request's path is only ever looked up in that list: no path a client sends reaches the file
system, so a NUL byte, a name too long for it or a `..` is a 404 like any file that is not
there, never the file system's error (a 500).

The page is served in the reader's language before any of its script runs: its `<html lang
dir>`, its title, its masthead and its `<noscript>` words are the catalogue's
(service/static/i18n/), chosen from the address's `?lang=`, else the request's
Accept-Language (service/i18n.py), else English with nothing chosen, where the page's script
asks the browser's languages (i18n.js). index.html is written in English and names each
translated element's message (`data-i18n`); each language's page is rendered from it once, at
import, so a request only picks one of a few finished pages.
"""

from __future__ import annotations

from html import escape
from html.parser import HTMLParser
from pathlib import Path
from typing import Annotated

from litestar import MediaType, Request, Response, get
from litestar.datastructures import CacheControlHeader
from litestar.exceptions import NotFoundException
from litestar.params import PathParameter
from litestar.response import File
from litestar.types import ControllerRouterHandler

from core.errors import quoted
from service import i18n

#: The page's files, installed with the package (package data `static/**/*`).
STATIC = Path(__file__).resolve().parent.parent / "static"
#: Where the page is served (`poison serve` says so when it starts).
TABLE_PATH = "/"
#: Where the page's files are served from; index.html names its modules and styles under it.
STATIC_PATH = "/static"

#: The page loads only its own files and talks only to this service: no inline script or
#: style, no other origin, no frames, and no page may frame it.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    # A seat's link carries its token in the fragment, never sent anywhere; no referrer
    # either, so not even the page's address leaves with a request to elsewhere.
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    # Revalidated each time: a new version of the service serves its new page at once.
    "Cache-Control": "no-cache",
}


#: The attribute of `<html>` that says the service chose the page's language from the request
#: (its `?lang=` or Accept-Language): the page's script then keeps it before the browser's
#: languages. Absent when nothing was chosen and the page is English only by default.
CHOSEN = "data-lang-chosen"
#: Elements whose content HTML leaves without an end tag: they open no element to close.
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})


class _Translated(HTMLParser):
    """index.html written again in one language: `<html lang dir>` set, and the content of
    every element naming a message (`data-i18n="key"`) replaced by that message; a child marked
    `data-i18n-arg="name"` is kept whole as the message's argument `name` (a link, say). Every
    other byte is copied as written, so the English page is index.html itself."""

    def __init__(self, language: i18n.Language, *, chosen: bool) -> None:
        super().__init__(convert_charrefs=False)
        self.language = language
        self.chosen = chosen
        self.words = i18n.Words(language.code)
        self.out: list[str] = []
        self.key: str | None = None  # the message of the element we are in
        self.depth = 0  # elements open inside it, itself included
        self.args: dict[str, list[str]] = {}
        self.arg: str | None = None  # the argument being copied, and where it began
        self.arg_depth = 0

    def page(self, source: str) -> bytes:
        self.feed(source)
        self.close()
        if self.key is not None:
            raise ValueError(f"index.html: the element of message {self.key} is not closed")
        return "".join(self.out).encode()

    def _copy(self, text: str) -> None:
        if self.key is None:
            self.out.append(text)
        elif self.arg is not None:
            self.args[self.arg].append(text)
        # else: the element's English words, which its message replaces

    def _html(self, attrs: list[tuple[str, str | None]]) -> str:
        given = dict(attrs) | {"lang": self.language.tag, "dir": self.language.dir}
        if self.chosen:
            given[CHOSEN] = None
        written = (f" {name}" if value is None else f' {name}="{escape(value)}"' for name, value in given.items())
        return "<html" + "".join(written) + ">"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        raw = self.get_starttag_text() or ""
        named = dict(attrs)
        if tag == "html":
            self.out.append(self._html(attrs))
            return
        if self.key is None:
            self.out.append(raw)
            if named.get("data-i18n"):
                self.key, self.depth, self.args = named["data-i18n"], 1, {}
            return
        if tag in VOID:
            self._copy(raw)
            return
        self.depth += 1
        if self.arg is None and named.get("data-i18n-arg"):
            self.arg, self.arg_depth = str(named["data-i18n-arg"]), self.depth
            self.args[self.arg] = []
        self._copy(raw)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._copy(self.get_starttag_text() or "")

    def handle_endtag(self, tag: str) -> None:
        if self.key is None:
            self.out.append(f"</{tag}>")
            return
        self.depth -= 1
        if self.depth == 0:  # the element's own end: its message, then its end tag
            self.out.append(self._message(self.key) + f"</{tag}>")
            self.key = None
            return
        self._copy(f"</{tag}>")
        if self.arg is not None and self.depth < self.arg_depth:
            self.arg = None

    def _message(self, key: str) -> str:
        # Each argument goes in as a mark no message has, then comes back as its markup.
        marks = {name: f"\x00{name}\x00" for name in self.args}
        text = escape(self.words(key, **marks), quote=False)
        for name, mark in marks.items():
            text = text.replace(mark, "".join(self.args[name]))
        return text

    def handle_data(self, data: str) -> None:
        self._copy(data)

    def handle_entityref(self, name: str) -> None:
        self._copy(f"&{name};")

    def handle_charref(self, name: str) -> None:
        self._copy(f"&#{name};")

    def handle_comment(self, data: str) -> None:
        self._copy(f"<!--{data}-->")

    def handle_decl(self, decl: str) -> None:
        self._copy(f"<!{decl}>")


def _pages() -> tuple[dict[str, bytes], bytes]:
    source = (STATIC / "index.html").read_text(encoding="utf-8")
    languages = i18n.languages()
    chosen = {code: _Translated(language, chosen=True).page(source) for code, language in languages.items()}
    return chosen, _Translated(languages[i18n.SOURCE], chosen=False).page(source)


#: The page in each language the service chose, and the page when it chose none (English).
PAGES, DEFAULT_PAGE = _pages()


def page_language(lang: str | None, accept_language: str | None) -> str | None:
    """The page's language for a request: its `?lang=`, else its Accept-Language; None for neither."""
    return i18n.match(lang) or i18n.from_accept_language(accept_language)


@get(TABLE_PATH, include_in_schema=False)
async def table(request: Request) -> Response[bytes]:
    """The page: a lobby, a table to play or watch, a replay (the fragment says which), in
    the reader's language."""
    # Several Accept-Language fields are one list (RFC 9110, section 5.3).
    accepted = ", ".join(request.headers.getall("accept-language", [])) or None
    code = page_language(request.query_params.get("lang"), accepted)
    tag = i18n.languages()[code or i18n.SOURCE].tag
    headers = {**PAGE_HEADERS, "Content-Language": tag, "Vary": "Accept-Language"}
    return Response(DEFAULT_PAGE if code is None else PAGES[code], media_type=MediaType.HTML, headers=headers)


#: Every file of the page by its path under STATIC_PATH (`js/api.js`): what may be served.
FILES = {file.relative_to(STATIC).as_posix(): file for file in sorted(STATIC.rglob("*")) if file.is_file()}


@get(f"{STATIC_PATH}/{{name:path}}", include_in_schema=False, cache_control=CacheControlHeader(no_cache=True))
async def static_file(name: Annotated[str, PathParameter()]) -> File:
    """One of the page's files, by its path; any other path is 404."""
    file = FILES.get(name.removeprefix("/"))
    if file is None:
        raise NotFoundException(f"the table has no file {quoted(name.removeprefix('/'))}")
    return File(path=file, filename=file.name, content_disposition_type="inline")


routes: list[ControllerRouterHandler] = [table, static_file]
