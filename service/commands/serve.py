"""`poison serve`: run the HTTP API.

Settings come from flags, else `POISON_*` environment variables, else defaults (service/
settings.py reads and bounds them all; `poison serve --help` and docs/serve.md list them).
It says on stderr where it listens (once the socket is bound), each step of its embedded
store, and that it stopped; with `--access-log` (POISON_ACCESS_LOG) every request is a line
on stdout. Without a Redis URL, this process starts the embedded server once and hands its
URL to every worker, so several workers share one store and no state lives in only one of
them. It supervises that server: one killed or crashed is started again on the same port and
data (the workers' connections recover by themselves), with back-off. The workers are
granian's, configured here, never patched: its ASGI interface on uvloop, HTTP/1.1, a
deadline for a request's head and a cap on a worker's connections; a worker that dies is
replaced, SIGTERM stops as Ctrl-C does. What the server does not bound, service/guards.py
bounds in the application (a body's deadline, caps on requests under way, live streams
ended at shutdown). Its log lines are human (the default) or JSON (POISON_LOG_FORMAT,
service/logs.py); with several workers it gives them a directory for their metrics, so
that one scrape of `/metrics` sums them all (service/metrics.py), and removes it when it stops.
"""

from __future__ import annotations

import argparse
import errno
import gc
import logging
import multiprocessing
import os
import shutil
import signal
import socket
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from service import i18n, logs
from service.commands import add_command
from service.logs import LogFormat
from service.serverkey import KeyFileError, key_file, read_or_make, too_open
from service.settings import SETTINGS, Setting, Settings, unknown_variables

if TYPE_CHECKING:
    from litestar import Litestar

    from service.commands import Commands

#: The exit status when the service could not start (could not listen, or its workers failed).
STARTUP_FAILURE = 3
#: The cyclic collector's thresholds in a worker (Python's are 700, 10, 10). A young
#: collection every 700 allocations promoted the objects of every request under way (dozens
#: at once under load) to the older generations, which then filled up and were collected
#: whole: the load benchmark's worker (64 clients) spent a large share of its CPU
#: collecting, and each full collection paused it for long (benchmarks/probes.py; figures:
#: docs/performance.md). Seventy times fewer young collections let a request's objects die
#: of their reference count first; a full one waits for 100 middle ones.
GC_THRESHOLDS = (50_000, 20, 100)


def worker_app() -> Litestar:
    """The application of one worker, as the server loads it: the service's, then the
    collector set for serving (`settle_collector`)."""
    from service import app, guards

    application = app.create_app_from_environment()
    # Served, its live streams end when the server is told to stop (service/guards.py).
    application.on_startup.append(guards.end_streams_on_shutdown)
    settle_collector()
    return application


def settle_collector() -> None:
    """Collect once, then freeze what is alive (the modules, the application, its OpenAPI
    document: tens of thousands of objects, which every full collection walked; figures:
    docs/performance.md) out of the collector's sight for good, and collect less often
    (GC_THRESHOLDS). Cycles are still collected: only objects made from now on are looked
    at."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def serve(settings: Settings) -> int:
    # Imported here: every `poison` command imports this module (for its flags), and only
    # serving needs granian or the store's client (redis, in events.server).
    from granian import Granian
    from granian.constants import HTTPModes, Interfaces, Loops
    from granian.http import HTTP1Settings
    from granian.log import LogLevels

    from events.server import EmbeddedServer, ServerFailed, ServerNotFound

    signal.signal(signal.SIGTERM, _stop)  # until granian's own: SIGTERM stops as Ctrl-C does
    if settings.secret_key is None:
        # Made once, before any worker: each of them, and every restart, reads this one.
        try:
            _, made = read_or_make(settings.data_dir)
        except KeyFileError as error:
            say(str(error))
            return 1
        where = key_file(settings.data_dir)
        tell("cli.serve.key", made="made" if made else "read", where=str(where))
        if too_open(settings.data_dir):
            tell("cli.serve.key_open", where=str(where))
    server = None
    if settings.redis_url is None:
        server = EmbeddedServer(settings.data_dir, binary=settings.redis_server)
        try:
            url = server.start()
        except (ServerNotFound, ServerFailed) as error:
            say(str(error))
            return 1
        tell("cli.serve.store", url=server.shown_url, dir=str(server.data_dir))
        for path in server.tightened:
            tell("cli.serve.tightened", path=str(path))
        for path in server.left_loose:
            tell("cli.serve.left_loose", path=str(path))
        server.supervise(say, first_delay=settings.store_restart_delay)
    else:
        url = settings.redis_url
    tell("cli.serve.archive", where=settings.archive_location(), after=f"{settings.archive_after:g}")
    if settings.redis_url is not None and settings.archive_url is None:
        tell("cli.serve.archive_local")  # another node's archived games would not be found here
    _room_for_connections(settings.max_connections)
    # Workers read their settings from the environment: every one of them, flags included.
    os.environ.update({**settings.environment(), "POISON_REDIS_URL": url})
    # Made here, after every early return, so that the `finally` below always removes it.
    metrics_dir = _metrics_dir(settings.workers)
    try:
        try:
            address = listenable(settings)
        except CannotListen as error:
            tell(error.key, **error.fields)
            return STARTUP_FAILURE
        granian = Granian(
            "service.commands.serve:worker_app",
            factory=True,
            address=address,
            port=settings.port,
            interface=Interfaces.ASGI,  # with its lifespan: each worker opens and closes its store
            workers=settings.workers,
            loop=Loops.uvloop,
            http=HTTPModes.http1,
            websockets=False,  # the API has no WebSocket route
            backlog=BACKLOG,
            # A worker takes at most this many connections at once; the next waits in the
            # listen queue until one closes (service/guards.py answers what gets past it).
            backpressure=settings.max_connections,
            http1_settings=HTTP1Settings(
                # From a connection's opening, and between two requests on one, as for a
                # head begun: past it the connection is closed (the server answers nothing).
                header_read_timeout=round(settings.header_timeout * 1000),
                max_buffer_size=MAX_HEAD_BYTES,  # a longer head is 431, never read whole
            ),
            log_enabled=True,
            log_level=LogLevels(_GRANIAN_LEVELS.get(settings.log_level, settings.log_level)),
            log_dictconfig=logging_config(settings),
            # In JSON, the request lines are the service's own (service/observed.py): they have
            # the route, the duration and the request id, which the server's do not know.
            log_access=settings.access_log and settings.log_format == "text",
            log_access_format=ACCESS_FORMAT,
            respawn_failed_workers=True,  # a worker that dies is replaced
            # A worker that has not stopped this long after SIGTERM is killed: each request
            # under way has had its deadlines and every live stream ended at once.
            workers_kill_timeout=KILL_TIMEOUT,
        )
        say_listening(settings)
        # Workers are started afresh (not forked from this process, whose threads supervise
        # the store), as a new program would be.
        multiprocessing.set_start_method("spawn", force=True)
        try:
            granian.serve()  # until SIGINT or SIGTERM, after which the workers stop gracefully
            status = 0
        except SystemExit as exit:
            # Granian exits non-zero when its workers keep failing (a crash loop: one that
            # cannot open its store fails at start, again and again).
            status = STARTUP_FAILURE if exit.code else 0
            if status:
                tell("cli.serve.worker_failed")
        except OSError as error:  # the port was taken between the check and the server's bind
            refused = CannotListen.of(settings, error)
            tell(refused.key, **refused.fields)
            status = STARTUP_FAILURE
    except (KeyboardInterrupt, Stopped):
        status = 0
    finally:
        if server is not None:
            server.stop()
        if metrics_dir is not None:
            shutil.rmtree(metrics_dir, ignore_errors=True)
        tell("cli.serve.stopped")
    return status


#: The kernel's queue of connections not yet accepted.
BACKLOG = 2048
#: The longest request head read, in bytes: a longer one is refused by the server (431).
MAX_HEAD_BYTES = 65_536
#: Seconds a worker told to stop may take before it is killed.
KILL_TIMEOUT = 30
#: The server's access line, which `AccessLine` writes out (its fields are what it needs).
ACCESS_FORMAT = "%(method)s %(path)s %(query_string)s %(protocol)s %(status)d %(addr)s"
#: The server has no "trace" level: its finest is debug.
_GRANIAN_LEVELS = {"trace": "debug"}


class CannotListen(Exception):
    """The socket cannot be bound: the line (a message of the catalogues, `key` with `args`)
    says why, and which setting chooses otherwise."""

    def __init__(self, key: str, **args: str) -> None:
        super().__init__(i18n.Words(i18n.SOURCE)(key, **args))
        self.key, self.fields = key, args

    @classmethod
    def of(cls, settings: Settings, error: OSError) -> CannotListen:
        where = {"host": settings.host, "port": str(settings.port)}
        if error.errno == errno.EADDRINUSE:
            return cls("cli.serve.in_use", **where, **_choose(PORT))
        if error.errno == errno.EACCES:
            return cls("cli.serve.forbidden", **where, **_choose(PORT))
        why = error.strerror or str(error)
        return cls("cli.serve.cannot_listen", **where, why=f"{why[:1].lower()}{why[1:]}", **_choose(HOST))


def listenable(settings: Settings) -> str:
    """The address to hand the server, once a socket has been bound to it and the port here
    and let go: a port in use, or an address not this machine's, is said in the operator's
    terms (which port, the flag and variable that choose another) before any worker starts.
    The server binds with SO_REUSEPORT (each worker a socket of its own), so a port held by
    a server of the same kind would be shared, not refused: the check binds without it.
    A name (localhost) is resolved, since the server takes an address alone."""
    try:
        found = socket.getaddrinfo(settings.host, settings.port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise CannotListen.of(settings, OSError(errno.EADDRNOTAVAIL, str(error.strerror))) from None
    family, _, _, _, where = found[0]
    with socket.socket(family=family) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(where)
        except OSError as error:
            raise CannotListen.of(settings, error) from None
    return str(where[0])


def _choose(setting: Setting) -> dict[str, str]:
    """The words of "choose another port with --port or POISON_PORT"."""
    return {"setting": setting.name, "flag": setting.flag or "", "variable": setting.variable}


def _metrics_dir(workers: int) -> str | None:
    """With several workers, a fresh directory for their metrics' files, named in the
    environment before any of them starts (each imports prometheus_client anew); None with
    one worker (its values stay in its memory, cheaper to update) or when the operator has
    chosen the directory already (theirs is kept)."""
    # Imported here, not at the top: service.metrics imports Litestar, which only serving needs.
    from service.metrics import MULTIPROCESS_VARIABLE

    if workers == 1 or os.environ.get(MULTIPROCESS_VARIABLE):
        return None
    chosen = tempfile.mkdtemp(prefix="poison-metrics-")
    os.environ[MULTIPROCESS_VARIABLE] = chosen
    return chosen


class Stopped(Exception):
    """SIGTERM: stop, as Ctrl-C does."""


def _stop(signum: int, frame: object) -> None:
    raise Stopped


#: How this process's own lines are written (`run` sets it from the `log_format` setting).
said_as: LogFormat = "text"


def tell(key: str, **args: Any) -> None:
    """Say a message of the catalogues: in the reader's language to a person, in English in a
    JSON record (read by an operator's tools, whatever the machine's language)."""
    say((i18n.Words(i18n.SOURCE) if said_as == "json" else i18n.words())(key, **args))


def say_listening(settings: Settings) -> None:
    """The start-up line: where the service listens, and where to open the table and the docs."""
    tell(
        "cli.serve.listening",
        url=base_url(settings),
        workers=settings.workers,
        table=table_url(settings),
        docs=docs_url(settings),
    )


def say(line: str) -> None:
    if said_as == "json":
        record = logging.LogRecord("poison.serve", logging.INFO, __file__, 0, line, None, None)
        print(logs.JsonFormatter().format(record), file=sys.stderr, flush=True)
    else:
        print(f"poison serve: {line}", file=sys.stderr, flush=True)


def base_url(settings: Settings) -> str:
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    return f"http://{host}:{settings.port}"


def table_url(settings: Settings) -> str:
    """The browser table's page."""
    from service.controllers.table import TABLE_PATH

    return f"{base_url(settings)}{TABLE_PATH}"


def docs_url(settings: Settings) -> str:
    """The interactive documentation's page, as the OpenAPI settings place it."""
    from service import openapi

    document = openapi.config(settings)
    root = document.openapi_router.path if document.openapi_router is not None else document.path
    pages = [path for plugin in document.render_plugins for path in plugin.paths]
    return f"{base_url(settings)}{root or ''}{pages[0] if pages else ''}"


def logging_config(settings: Settings) -> dict[str, Any]:
    """Logs on stderr at the level asked (the service's and the server's); with the access
    log, one line per request on stdout, whatever the level: the server's, written as
    `AccessLine` says, or in JSON (`log_format`) every line one object, the requests'
    written by the service (poison.access)."""
    level = settings.log_level.upper() if settings.log_level != "trace" else "DEBUG"
    json_lines = {"()": "service.logs.JsonFormatter"}
    human = {
        "default": {"()": "logging.Formatter", "fmt": "%(levelname)s: %(message)s"},
        "access": {"()": "service.commands.serve.AccessLine"},
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": human if settings.log_format == "text" else {"default": json_lines, "access": json_lines},
        "handlers": {
            "default": {"formatter": "default", "class": "logging.StreamHandler", "stream": "ext://sys.stderr"},
            "access": {"formatter": "access", "class": "logging.StreamHandler", "stream": "ext://sys.stdout"},
        },
        "loggers": {
            SERVER_LOGGER: {"handlers": ["default"], "level": level, "propagate": False},
            "granian.access": {"handlers": ["access"], "level": "INFO", "propagate": False},
            "poison": {"handlers": ["default"], "level": level, "propagate": False},
            logs.ACCESS_LOGGER: {"handlers": ["access"], "level": "INFO", "propagate": False},
        },
    }


#: The logger of granian's own lines (its Rust core's too), as granian.log names it.
SERVER_LOGGER = "_granian"


class AccessLine(logging.Formatter):
    """One request as the access log shows it: the time, the worker's process, the client,
    the request line (its query included) and the status. The server hands each request's
    fields (granian.log's atoms) as the record's arguments."""

    def format(self, record: logging.LogRecord) -> str:
        fields = record.args if isinstance(record.args, dict) else {}
        query = fields.get("query_string") or ""
        target = f"{fields.get('path', '')}{'?' if query else ''}{query}"
        request_line = f"{fields.get('method', '-')} {target} {fields.get('protocol', '')}"
        client, status = fields.get("addr", "-"), fields.get("status", "")
        return f'{self.formatTime(record)} [{record.process}] {client} "{request_line}" {status}'


def _room_for_connections(connections: int) -> None:
    """Raise the soft limit on open files (inherited by the workers) towards what
    `max_connections` needs, so the cap, not the kernel, refuses connections; never above
    the hard limit."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = connections + 512  # the store's connections, the log, the libraries
        if soft != resource.RLIM_INFINITY and soft < wanted:
            resource.setrlimit(
                resource.RLIMIT_NOFILE, (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard), hard)
            )
    except (ImportError, ValueError, OSError):
        pass


def settings_help() -> str:
    """Every setting, as `poison serve --help` lists them after its flags."""
    words = i18n.words()
    lines = [words("cli.help.serve.settings")]
    for setting in SETTINGS:
        default = words("cli.help.serve.unset") if setting.default is None else shown(setting.default)
        flag = f" ({setting.flag})" if setting.flag else ""
        given = words("cli.help.serve.default", value=default)
        lines.append(f"  {setting.variable}{flag}  {given}; {setting.bounds}".rstrip("; "))
        lines.append(f"      {setting.description}")
    lines.append(words("cli.help.serve.others"))
    return "\n".join(lines)


def shown(value: object) -> str:
    """A setting's default as `--help` and docs/serve.md show it: 20,000, 0.2, true."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}" if isinstance(value, int) and value >= 10_000 else str(value)


#: The settings that have a flag (service/settings.py declares which).
FLAGGED = tuple(setting for setting in SETTINGS if setting.flag)
#: The setting that says how log lines are written (read early: see `run`).
LOG_FORMAT = next(setting for setting in SETTINGS if setting.name == "log_format")
#: The settings that choose where to listen, named when it cannot.
HOST = next(setting for setting in SETTINGS if setting.name == "host")
PORT = next(setting for setting in SETTINGS if setting.name == "port")


def add(commands: Commands) -> None:
    run = add_command(
        commands,
        "serve",
        epilog=settings_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for setting in FLAGGED:
        flag = setting.flag
        assert flag is not None  # FLAGGED holds the settings that have one
        options: dict[str, Any] = {"dest": setting.name, "help": f"{setting.description} ({setting.variable})"}
        if isinstance(setting.default, bool):
            options.update(action="store_true", default=None)  # None: the variable, or the default
        elif isinstance(setting.default, (int, Path)):
            options["type"] = type(setting.default)
        run.add_argument(flag, **options)


def run(args: argparse.Namespace) -> int:
    global said_as
    # Until the settings are read (their refusal included), lines are JSON if JSON was asked.
    said_as = "json" if os.environ.get(LOG_FORMAT.variable, "").strip().lower() == "json" else "text"
    for name in unknown_variables():
        tell("cli.serve.unknown_variable", name=name)
    try:
        settings = Settings.from_environment(**{setting.name: getattr(args, setting.name) for setting in FLAGGED})
    except ValueError as error:
        say(str(error))
        return 2
    said_as = settings.log_format
    return serve(settings)
