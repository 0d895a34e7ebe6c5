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
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from litestar import MediaType, Response, get
from litestar.datastructures import CacheControlHeader
from litestar.exceptions import NotFoundException
from litestar.params import PathParameter
from litestar.response import File
from litestar.types import ControllerRouterHandler

from core.errors import quoted

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


@get(TABLE_PATH, include_in_schema=False)
async def table() -> Response[bytes]:
    """The page: a lobby, a table to play or watch, a replay (the fragment says which)."""
    return Response((STATIC / "index.html").read_bytes(), media_type=MediaType.HTML, headers=PAGE_HEADERS)


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
