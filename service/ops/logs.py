"""What operators see: a request id on every request and response, structured JSON
logs that carry it, and per-request metrics (:mod:`service.ops.metrics`).

``X-Request-ID`` is taken from the request when it is a sane token (1-128 of
``A-Z a-z 0-9 . _ : -``; a proxy's id thus follows the request through), else
generated, and always returned. Gunicorn's access log is JSON too (its logger
class is in ``gunicorn_conf.py``).
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
import uuid
from datetime import UTC, datetime
from typing import Any

from flask import Flask, Response, g, has_request_context, request

from . import metrics

REQUEST_ID = "X-Request-ID"
_SANE_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, the request id (inside a
    request), any ``extra={...}`` fields and the exception, if any."""

    _STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message"}

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": _now(), "level": record.levelname.lower(), "logger": record.name,
            "message": record.getMessage(),
        }
        if has_request_context() and "request_id" in g:
            entry["request_id"] = g.request_id
            entry["path"] = request.path
        entry.update({k: v for k, v in vars(record).items() if k not in self._STANDARD})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def json_logging(level: int = logging.INFO) -> None:
    """Route the root logger (the service's loggers) to stderr as JSON lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
"""The methods the metrics name; any other is counted as ``other``."""


def init_observability(app: Flask) -> None:
    """Request ids, JSON logs (unless testing) and request metrics for ``app``."""
    if not app.testing:
        json_logging()

    @app.before_request
    def _start() -> None:
        given = request.headers.get(REQUEST_ID, "")
        g.request_id = given if _SANE_ID.fullmatch(given) else uuid.uuid4().hex
        g.started = time.perf_counter()

    @app.after_request
    def _finish(response: Response) -> Response:
        response.headers[REQUEST_ID] = g.get("request_id") or uuid.uuid4().hex
        route = request.url_rule.rule if request.url_rule else "unmatched"
        # a client may send any method name: each new one would be a new series
        method = request.method if request.method in _METHODS else "other"
        metrics.REQUESTS.labels(route, method, str(response.status_code)).inc()
        if "started" in g:
            metrics.LATENCY.labels(route, method).observe(time.perf_counter() - g.started)
        return response
