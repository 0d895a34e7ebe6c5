"""The yardstick of the load benchmark: a bare Litestar JSON endpoint, served by uvicorn the
same way as the service, so that `ratio` measures what the game adds to the framework."""

from litestar import Litestar, get


@get("/bare")
async def bare() -> dict[str, str]:
    return {"status": "ok"}


app = Litestar(route_handlers=[bare], debug=False)
