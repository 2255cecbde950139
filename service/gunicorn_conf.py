"""gunicorn settings: gevent workers, so long polls (``?wait=``) never starve other requests.

Each long poll is a greenlet sleeping between short version checks; a worker
serves up to ``worker_connections`` of them at once while still answering
every other request. psycopg 3 cooperates with gevent on its own.
Override anything with ``GUNICORN_CMD_ARGS`` or the variables below.
"""

from __future__ import annotations

import multiprocessing
import os

worker_class = os.environ.get("BASRA_WORKER_CLASS", "gevent")
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1))
worker_connections = int(os.environ.get("BASRA_WORKER_CONNECTIONS", "1000"))
# a request may wait up to BASRA_MAX_WAIT seconds in a long poll
timeout = int(float(os.environ.get("BASRA_MAX_WAIT", "30"))) + 30
graceful_timeout = 30
keepalive = 5
accesslog = os.environ.get("BASRA_ACCESS_LOG", "-") or None
errorlog = "-"
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
