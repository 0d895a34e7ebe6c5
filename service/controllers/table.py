"""The root of the service: `GET /` sends a person to the API's interactive documentation."""

from __future__ import annotations

from litestar import get
from litestar.response import Redirect


@get("/", include_in_schema=False)
async def root() -> Redirect:
    return Redirect("/schema/swagger", status_code=302)


routes = [root]
