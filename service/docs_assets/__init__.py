"""The API's interactive documentation page, Swagger UI, served by the service itself.

Its assets are vendored beside this module (README.md says from where, which version and
their checksums), so the page renders on a machine without internet: nothing it loads comes
from anywhere but the service. The page reads the document from /schema/openapi.json, and
its Authorize button takes a seat's token (the document's Bearer scheme), so "Try it out"
can play a move.

The router under /schema that serves the page also answers every unknown path under it
with problem+json 404, as every other unknown path is answered (Litestar's own answer there
is an HTML page).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from litestar import Request, Router, get
from litestar.enums import MediaType
from litestar.exceptions import NotFoundException
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.params import FromPath
from litestar.response import File, Response

SWAGGER_UI_VERSION = "5.35.0"
#: The files served under /schema/assets/, and their media types: nothing else is.
ASSETS = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "favicon-32x32.png": "image/png",
}
_HERE = Path(__file__).parent


@get("/assets/{name:str}", include_in_schema=False, sync_to_thread=False)
def asset(name: FromPath[str]) -> File:
    """One of the page's assets; a day in a browser's cache (they change only with an upgrade)."""
    media_type = ASSETS.get(name)
    if media_type is None:
        raise NotFoundException(f"no asset {name!r}")
    return File(
        _HERE / name,
        media_type=media_type,
        content_disposition_type="inline",
        headers={"Cache-Control": "public, max-age=86400"},
    )


def _problem_for_a_page_not_found(response: Response[Any]) -> Response[Any]:
    # Litestar answers an unknown path under the documentation's router with an HTML page:
    # raised as NotFoundException instead, it leaves as every other 404 does (problem+json).
    if response.status_code == 404 and response.media_type == MediaType.HTML:
        raise NotFoundException("no such page of the documentation: see /schema/swagger or /schema/openapi.json")
    return response


def schema_router(path: str) -> Router:
    """The router of the documentation (Litestar adds the pages and the document to it)."""
    return Router(path, route_handlers=[asset], include_in_schema=False, after_request=_problem_for_a_page_not_found)


class SwaggerPage(SwaggerRenderPlugin):
    """Swagger UI from the assets above; also the page at /schema itself."""

    def __init__(self) -> None:
        super().__init__(version=SWAGGER_UI_VERSION, path=["/swagger", "/"])

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        document = self.get_openapi_json_route(request)
        assets = document.rsplit("/", 1)[0] + "/assets"
        title = openapi_schema["info"]["title"]
        # validatorUrl null: Swagger UI would otherwise show a badge fetched from swagger.io.
        return f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{title}: the HTTP API</title>
  <link rel="icon" type="image/png" href="{assets}/favicon-32x32.png">
  <link rel="stylesheet" href="{assets}/swagger-ui.css">
  <style>body {{ margin: 0 }}</style>
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="{assets}/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({{
      url: "{document}",
      dom_id: "#swagger-ui",
      deepLinking: true,
      validatorUrl: null,
      persistAuthorization: true,
      displayOperationId: true,
      defaultModelsExpandDepth: 0,
      presets: [SwaggerUIBundle.presets.apis],
      layout: "BaseLayout",
    }});
  </script>
</body>
</html>
""".encode()

    def receive_router(self, router: Router) -> None:
        """No OAuth2 redirect page: the API's only scheme is a Bearer token."""
