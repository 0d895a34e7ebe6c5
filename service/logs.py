"""How the service's log lines are written: today's human lines (`text`, the default) or
one JSON object a line (`json`), for a log shipper. The `log_format` setting
(POISON_LOG_FORMAT, service/settings.py) chooses.

A JSON line holds `time` (UTC, ISO 8601, milliseconds), `level`, `logger`, `message`,
`worker` (the process id), `request_id` when the line is written while a request is
served (an error's line included), `error` (the traceback) for an exception, and the
fields of the request's line (`access`, service/observed.py): method, route, path, status,
duration_ms, client. Encoded by msgspec, as the API's bodies are.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any, Literal

import msgspec

from service import request_ids

#: The forms of a log line (the `log_format` setting takes one of them).
LogFormat = Literal["text", "json"]
#: The logger of the request lines in JSON, on stdout as the server's access lines are.
ACCESS_LOGGER = "poison.access"
#: Where a request line's fields ride on its LogRecord (`extra`).
FIELDS = "fields"

_encoder = msgspec.json.Encoder()


class JsonFormatter(logging.Formatter):
    """One JSON object a line (see the module's paragraph)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "worker": record.process,
        }
        request_id = request_ids.current.get()
        if request_id is not None:
            line["request_id"] = request_id.decode()
        fields = record.__dict__.get(FIELDS)
        if isinstance(fields, dict):
            line.update(fields)
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return _encoder.encode(line).decode()
