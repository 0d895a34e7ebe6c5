"""Work on the store `poison serve` would use with the same flags and POISON_* settings, for
the commands that read or move stored games (`replay --game`, `archive`): the settings read,
the store connected (a URL, or the embedded server in the data directory, never created
empty), the work run, and each way that can fail said in one line (CommandError).

The store's client (redis, asyncio, the store's metrics) is imported only when a command
reaches the store: importing it was a large part of every `poison` command's start.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from service.commands import CommandError
from service.i18n import words
from service.settings import Settings

if TYPE_CHECKING:
    from events.archive import Archive
    from events.games import Games

Result = TypeVar("Result")


def settings_of(**flags: Any) -> Settings:
    """The settings of the environment with the flags given (None: not given)."""
    try:
        return Settings.from_environment(**flags)
    except ValueError as error:
        raise CommandError(str(error)) from None


def on_store(
    settings: Settings,
    work: Callable[[Games], Awaitable[Result]],
    *,
    archive: Archive | None = None,
    missing: str = "cli.error.replay.no_store",
) -> Result:
    """`work(games)` run on the games of the settings' store (its archive `archive`);
    CommandError, exit status 1, when the store is not there (`missing`: the message's key)
    or cannot be reached."""
    import asyncio

    from events.connect import connect
    from events.games import Games, StoreUnavailable
    from events.server import DataDirInUse, ServerFailed, ServerNotFound

    if settings.redis_url is None and not settings.data_dir.is_dir():
        # Starting an embedded store there would create an empty one, to find nothing in it.
        raise CommandError(words()(missing, where=str(settings.data_dir)), 1)

    async def connected() -> Result:
        async with connect(
            settings.redis_url, data_dir=settings.data_dir, namespace=settings.namespace, archive=archive
        ) as store:
            return await work(Games(store))

    try:
        return asyncio.run(connected())
    except ValueError as error:  # a URL of no scheme we know
        raise CommandError(str(error)) from None
    except DataDirInUse as error:
        raise CommandError(str(error), 1) from None
    except ServerFailed as error:  # its message carries the store's log: one line here
        log = settings.data_dir / "server.log"
        raise CommandError(words()("cli.error.replay.embedded", what=error.what, log=str(log)), 1) from None
    except (StoreUnavailable, ServerNotFound) as error:
        raise CommandError(str(error), 1) from None
