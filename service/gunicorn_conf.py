"""gunicorn settings: gevent workers, so long polls (``?wait=``) never starve other requests.

Each long poll is a greenlet sleeping between short version checks; a worker
serves up to ``worker_connections`` of them at once while still answering
every other request. psycopg 3 cooperates with gevent on its own.
Override anything with ``GUNICORN_CMD_ARGS`` or the variables below.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gunicorn import glogging

# metrics: every worker process writes its samples here and /metrics adds them up
if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="basra-metrics-")

worker_class = os.environ.get("BASRA_WORKER_CLASS", "gevent")
# One gevent worker per core: each serves thousands of connections, a bot's search gives
# way to the others (service/live/yielding.py), and more processes than cores only add
# context switches and PostgreSQL connections.
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count()))
# at most BASRA_MAX_WAITERS (5,000) of them parked (service/live/waiters.py): the rest stay
# free for moves and reads however many long polls wait
worker_connections = int(os.environ.get("BASRA_WORKER_CONNECTIONS", "6000"))
# a request may wait up to BASRA_MAX_WAIT seconds in a long poll
timeout = int(float(os.environ.get("BASRA_MAX_WAIT", "30"))) + 30
graceful_timeout = 30
keepalive = 5
accesslog = os.environ.get("BASRA_ACCESS_LOG", "-") or None
errorlog = "-"
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
# gunicorn's control socket is one path per user (~/.gunicorn/gunicorn.ctl): instances on
# one host would take each other's; nothing here uses it
control_socket_disable = True


class AccessLog(glogging.Logger):
    """Gunicorn's access log as JSON lines, with the response's request id. (Defined here:
    importing the service in the master, before gevent patches the workers, would leave
    them with unpatched locks.)"""

    def access(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> None:
        if not (self.cfg.accesslog or self.cfg.logconfig or self.cfg.syslog):
            return
        headers = {name.lower(): value for name, value in resp.headers}
        self.access_log.info(json.dumps({
            "time": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": "info", "logger": "access", "request_id": headers.get("x-request-id"),
            "method": environ.get("REQUEST_METHOD"), "path": environ.get("PATH_INFO"),
            "status": resp.status_code, "bytes": getattr(resp, "sent", None),
            "duration_ms": round(request_time.total_seconds() * 1000, 2),
            "remote": environ.get("REMOTE_ADDR"), "user_agent": environ.get("HTTP_USER_AGENT"),
        }))


logger_class = AccessLog


def on_starting(server: Any) -> None:
    """Start the metrics from zero: drop samples a previous run left behind."""
    for stale in Path(os.environ["PROMETHEUS_MULTIPROC_DIR"]).glob("*.db"):
        stale.unlink()


def child_exit(server: Any, worker: Any) -> None:
    """A worker process ended: its live gauges (open waiters) stop counting."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def post_worker_init(worker: Any) -> None:
    """The app is loaded: its long-lived objects (modules, routes, schemas, the rules
    and capture tables made so far) leave the cyclic collector's generations, so a
    collection scans only what requests made since (``gc.freeze``); then a greenlet
    collects the young generations every 0.1 s and the oldest as it grows
    (service/ops/collector.py)."""
    from service.ops import collector

    collector.schedule()
