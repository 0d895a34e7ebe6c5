"""The browser table (issue 14): `GET /` is the page, `/static/…` its files, served from the package.

The page (service/static/: plain ES modules, CSS and SVG, no build step, no CDN) plays,
watches and replays both games through the public HTTP API alone, as any integrator's
client would; nothing here knows a rule of either game, and nothing here reads a token: a
seat's token lives in the page's URL fragment, which a browser never sends to a server.
The files are found beside this package (`service/static`), so an installed service serves
the same page as a checkout.
"""

from __future__ import annotations

from pathlib import Path

from litestar import MediaType, Response, get
from litestar.datastructures import CacheControlHeader
from litestar.static_files import create_static_files_router
from litestar.types import ControllerRouterHandler

#: The page's files, installed with the package (package data `static/**/*`).
STATIC = Path(__file__).resolve().parent.parent / "static"
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


@get("/", include_in_schema=False)
async def table() -> Response[bytes]:
    """The page: a lobby, a table to play or watch, a replay (the fragment says which)."""
    return Response((STATIC / "index.html").read_bytes(), media_type=MediaType.HTML, headers=PAGE_HEADERS)


static_files = create_static_files_router(
    path=STATIC_PATH,
    directories=[STATIC],
    name="table-static",
    include_in_schema=False,
    cache_control=CacheControlHeader(no_cache=True),
)

routes: list[ControllerRouterHandler] = [table, static_files]
