"""``basra worker``: applies what time decides, with no request needed.

Each pass applies passed turn deadlines (``clocks.apply_due_timeouts``) and aborts
tables nobody filled in time (:mod:`service.matches.scheduled`). Deadlines are
rows of the matches table (indexed), so the worker is a short polling loop over
that index: any number of workers may run, each match is locked while its
timeout is applied (``FOR UPDATE SKIP LOCKED`` on PostgreSQL, SQLite's single
writer) and the deadline is checked again under the lock, so a timeout is applied
exactly once. Nothing lives only in the worker: kill it at any moment and the
next pass (or the next read of the match) applies what is due.

Each pass also takes every due tournament's next step (start, pair, record results,
finish: :mod:`service.tournaments.scheduled`, under the tournament's row lock, so each
happens once) and ranks the leaderboards again when due. Once a minute the worker
also purges what has expired: idempotency keys, and what is past its retention
(``BASRA_RETENTION_DAYS_*``: webhook messages and attempts, stream events, finished
matches' moves), dropping whole days on PostgreSQL, and makes the days ahead. Webhook
messages are delivered beside the passes by :class:`webhooks.dispatcher.Dispatcher` (its
own threads, so a slow receiver never delays a deadline, and a claim as soon as a try
ends, not at the next pass). Two :class:`~service.live.chores.Chore` threads make the
reviews asked for and grade each finished rated match for fair play (each in a bot helper
process, fair play within a review's budget).
"""

from __future__ import annotations

import logging
import time

from flask import Flask
from prometheus_client import start_http_server

from .fairplay.scheduled import grader as fair_play_grader
from .matches import scheduled as match_chores
from .ops import metrics
from .players import scheduled as player_chores
from .reviews.scheduled import reviewer as reviews_maker
from .social import scheduled as social_chores
from .storage.db import DISCONNECTED, end_session
from .storage.errors import DatabaseUnavailable
from .tournaments import scheduled as tournament_chores
from .web.settings import current
from .webhooks import scheduled as webhook_chores
from .webhooks.dispatcher import Dispatcher

log = logging.getLogger(__name__)


def run_once() -> int:
    """One pass of every domain's chores, with the settings of the app it runs in (read
    once a pass); how many matches it timed out."""
    settings = current()
    applied = match_chores.run_clocks(settings)
    tournament_chores.run_tournaments(settings)
    player_chores.rank_leaderboards(settings)
    social_chores.expire_challenges()
    social_chores.sweep_presence()
    return applied


PURGE_SECONDS = 60.0
"""What has expired (idempotency keys, rows past their retention) is purged at most this
often per worker: a pass comes every 0.2 s."""


def purge() -> None:
    """Every domain's purge of what has expired, and its partitions' days ahead made."""
    settings = current()
    match_chores.purge_expired(settings)
    match_chores.expire_moves(settings)
    webhook_chores.purge_old(settings)
    player_chores.purge_events(settings)
    player_chores.purge_leases()


def run(app: Flask, interval: float = 0.2, passes: int | None = None) -> None:
    """Pass after pass every ``interval`` seconds (``passes`` of them, or for ever)."""
    done = 0
    purged = float("-inf")
    dispatcher = Dispatcher(app)
    dispatcher.start(interval)
    reviewer = reviews_maker(app)
    reviewer.start(interval)
    grader = fair_play_grader(app)
    grader.start(max(interval, 1.0))
    with app.app_context():
        while passes is None or done < passes:
            started = time.monotonic()
            try:
                applied = run_once()
                if applied:
                    log.info("applied timeouts", extra={"timeouts": applied})
                if started - purged >= PURGE_SECONDS:
                    purge()
                    purged = started
                metrics.WORKER_PASSED.set_to_current_time()
            except (DatabaseUnavailable, *DISCONNECTED):  # a failover, a restart
                log.warning("database unavailable; retrying")
                end_session()  # the next pass starts on a new connection
            done += 1
            time.sleep(max(0.0, interval - (time.monotonic() - started)))
    dispatcher.wait()
    reviewer.stop()
    grader.stop()


def serve_metrics(app: Flask, port: int, host: str = "127.0.0.1") -> tuple[str, int]:
    """Serve the worker's metrics (timeout lag, webhook tries, the database's gauges) at
    ``http://host:port/metrics`` (prometheus_client's server, in a daemon thread): on
    this machine only unless ``host`` says otherwise (the operator's network, never the
    public one). The address it listens on."""
    server, _ = start_http_server(port, addr=host, registry=metrics.registry_for(app))
    address: tuple[str, int] = server.server_address[:2]  # type: ignore[assignment]
    return address
