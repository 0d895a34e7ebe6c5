"""`poison serve`: run the HTTP API.

Settings come from flags, else `POISON_*` environment variables, else defaults (service/
settings.py reads and bounds them all; `poison serve --help` and docs/serve.md list them).
It says on stderr where it listens (once the socket is bound), each step of its embedded
store, and that it stopped; with `--access-log` (POISON_ACCESS_LOG) every request is a line
on stdout. Without a Redis URL, this process starts the embedded server once and hands its
URL to every worker, so several workers share one store and no state lives in only one of
them. It supervises that server: one killed or crashed is started again on the same port and
data (the workers' connections recover by themselves), with back-off. Workers speak HTTP
through service/protocol.py (timeouts for slow clients, caps on connections, malformed HTTP
answered as problem+json). Its log lines are human (the default) or JSON (POISON_LOG_FORMAT,
service/logs.py); with several workers it gives them a directory for their metrics, so
that one scrape of `/metrics` sums them all (service/metrics.py), and removes it when it stops.
"""

from __future__ import annotations

import argparse
import errno
import gc
import logging
import os
import shutil
import signal
import socket
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from service import logs
from service.logs import LogFormat
from service.serverkey import KeyFileError, key_file, read_or_make, too_open
from service.settings import SETTINGS, Setting, Settings, unknown_variables

if TYPE_CHECKING:
    from litestar import Litestar

#: uvicorn's exit status when the service could not start (could not listen, or a worker failed).
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
    """The application of one worker, as uvicorn loads it: the service's, then the
    collector set for serving (`settle_collector`)."""
    from service import app

    application = app.create_app_from_environment()
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
    # serving needs uvicorn or the store's client (redis, in events.server).
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from events.server import EmbeddedServer, ServerFailed, ServerNotFound

    if settings.secret_key is None:
        # Made once, before any worker: each of them, and every restart, reads this one.
        try:
            _, made = read_or_make(settings.data_dir)
        except KeyFileError as error:
            say(str(error))
            return 1
        where = key_file(settings.data_dir)
        say(f"server key {'made in' if made else 'read from'} {where} (keep it secret; POISON_SECRET_KEY sets one)")
        if too_open(settings.data_dir):
            say(f"warning: {where} may be read by others than its owner: chmod 600 it")
    server = None
    if settings.redis_url is None:
        server = EmbeddedServer(settings.data_dir, binary=settings.redis_server)
        try:
            url = server.start()
        except (ServerNotFound, ServerFailed) as error:
            say(str(error))
            return 1
        say(f"embedded store at {server.shown_url}, data in {server.data_dir}")
        for path in server.tightened:
            say(f"made {path} its owner's alone to read: it was open to others")
        for path in server.left_loose:
            say(f"warning: {path} is open to others and not ours to change: chmod go= it")
        server.supervise(say, first_delay=settings.store_restart_delay)
    else:
        url = settings.redis_url
    _room_for_connections(settings.max_connections)
    # Workers read their settings from the environment: every one of them, flags included.
    os.environ.update({**settings.environment(), "POISON_REDIS_URL": url})
    config = uvicorn.Config(
        "service.commands.serve:worker_app",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        log_config=logging_config(settings),
        log_level=None,  # the levels are log_config's: the access log keeps its own
        # In JSON, the request lines are the service's own (service/observed.py): they have
        # the route, the duration and the request id, which uvicorn's do not know.
        access_log=settings.access_log and settings.log_format == "text",
        http="service.protocol:HttpProtocol",
        # The application reads X-Forwarded-For itself, from trusted_proxies alone
        # (service/clients.py): uvicorn's own default would trust 127.0.0.1's.
        proxy_headers=False,
        ws="none",  # the API has no WebSocket route
    )
    signal.signal(signal.SIGTERM, _stop)  # SIGTERM stops as Ctrl-C does: the store too, and says so
    # Made here, after every early return, so that the `finally` below always removes it.
    metrics_dir = _metrics_dir(settings.workers)
    try:
        try:
            sock = bound(settings)
        except CannotListen as error:
            say(str(error))
            return STARTUP_FAILURE
        sock.listen(config.backlog)  # connections wait in the queue from now on, not refused
        say(
            f"listening on {base_url(settings)} ({_workers(settings.workers)}); "
            f"the table at {table_url(settings)}, docs at {docs_url(settings)}"
        )
        if config.workers > 1:
            supervisor = Multiprocess(config, sockets=[sock])
            supervisor.run()
            unstarted = any(process.exitcode == STARTUP_FAILURE for process in supervisor.processes)
            status = STARTUP_FAILURE if unstarted else 0
        else:
            running = uvicorn.Server(config)
            try:
                running.run(sockets=[sock])
            finally:
                status = 0 if running.started else STARTUP_FAILURE
    except (KeyboardInterrupt, Stopped):
        # uvicorn shuts down gracefully on SIGINT or SIGTERM, then raises it again.
        status = 0
    finally:
        if server is not None:
            server.stop()
        if metrics_dir is not None:
            shutil.rmtree(metrics_dir, ignore_errors=True)
        say("stopped")
    return status


class CannotListen(Exception):
    """The socket cannot be bound: the line says why, and which setting chooses otherwise."""


def bound(settings: Settings) -> socket.socket:
    """The socket the workers listen on, bound here (as uvicorn's Config.bind_socket would)
    so that a port in use, or an address not this machine's, is said in the operator's terms:
    which port, and the flag and variable that choose another (uvicorn says `[Errno 98]`)."""
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    sock = socket.socket(family=family)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((settings.host, settings.port))
    except OSError as error:
        sock.close()
        where = f"cannot listen on {settings.host} port {settings.port}"
        if error.errno == errno.EADDRINUSE:
            raise CannotListen(f"{where}: it is in use (by another poison serve?); {_choose(PORT)}") from None
        if error.errno == errno.EACCES:
            raise CannotListen(f"{where}: this user may not use it; {_choose(PORT)}") from None
        why = error.strerror or str(error)
        raise CannotListen(f"{where}: {why[:1].lower()}{why[1:]}; {_choose(HOST)}") from None
    sock.set_inheritable(True)  # the workers of several are other processes, given this socket
    return sock


def _choose(setting: Setting) -> str:
    return f"choose another {setting.name} with {setting.flag} or {setting.variable}"


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


def _workers(count: int) -> str:
    return "1 worker" if count == 1 else f"{count} workers"


def logging_config(settings: Settings) -> dict[str, Any]:
    """Logs on stderr at the level asked (the service's and uvicorn's); with the access log,
    one line per request on stdout, whatever the level: uvicorn's human lines, or in JSON
    (`log_format`) every line one object, the requests' written by the service (poison.access)."""
    level = settings.log_level.upper()
    json_lines = {"()": "service.logs.JsonFormatter"}
    human = {
        "default": {"()": "uvicorn.logging.DefaultFormatter", "fmt": "%(levelprefix)s %(message)s"},
        "access": {
            "()": "uvicorn.logging.AccessFormatter",
            "fmt": '%(asctime)s [%(process)d] %(client_addr)s "%(request_line)s" %(status_code)s',
            "use_colors": False,
        },
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
            "uvicorn": {"handlers": ["default"], "level": level, "propagate": False},
            "uvicorn.error": {"level": level},
            "uvicorn.access": {"handlers": ["access"], "level": "INFO", "propagate": False},
            "poison": {"handlers": ["default"], "level": level, "propagate": False},
            logs.ACCESS_LOGGER: {"handlers": ["access"], "level": "INFO", "propagate": False},
        },
    }


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
    lines = ["settings (environment variables; a flag, where there is one, wins):"]
    for setting in SETTINGS:
        default = "unset" if setting.default is None else shown(setting.default)
        flag = f" ({setting.flag})" if setting.flag else ""
        lines.append(f"  {setting.variable}{flag}  default {default}; {setting.bounds}".rstrip("; "))
        lines.append(f"      {setting.description}")
    lines.append("Any other POISON_* variable is named in a warning at start (a typo would be ignored).")
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


def add(commands: argparse._SubParsersAction) -> None:
    run = commands.add_parser(
        "serve",
        help="run the HTTP API",
        description="Run the HTTP API v1 (docs/http-api.md); docs/serve.md says how to run it.",
        epilog=settings_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for setting in FLAGGED:
        options: dict[str, Any] = {"dest": setting.name, "help": f"{setting.description} ({setting.variable})"}
        if isinstance(setting.default, bool):
            options.update(action="store_true", default=None)  # None: the variable, or the default
        elif isinstance(setting.default, (int, Path)):
            options["type"] = type(setting.default)
        run.add_argument(setting.flag, **options)


def run(args: argparse.Namespace) -> int:
    global said_as
    # Until the settings are read (their refusal included), lines are JSON if JSON was asked.
    said_as = "json" if os.environ.get(LOG_FORMAT.variable, "").strip().lower() == "json" else "text"
    for name in unknown_variables():
        say(f"warning: {name} is no setting of poison serve and is ignored (see poison serve --help)")
    try:
        settings = Settings.from_environment(**{setting.name: getattr(args, setting.name) for setting in FLAGGED})
    except ValueError as error:
        say(str(error))
        return 2
    said_as = settings.log_format
    return serve(settings)
