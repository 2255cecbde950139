"""Prometheus metrics (``prometheus_client``): what the process counts, and the scrape.

Under gunicorn every worker process writes its samples to files in
``PROMETHEUS_MULTIPROC_DIR`` (``gunicorn_conf.py`` makes one when it is unset) and a
scrape of any worker adds them all up (multiprocess mode). Facts that live in the
database (matches by status, the webhook backlog) are counted at scrape time, so
every instance reports the same and none keeps a copy to drift.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

from flask import Flask, current_app
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import func, select, text

from ..matches.enums import MatchStatus
from ..matches.models import Match
from ..storage.base import as_utc, utcnow
from ..storage.db import db, transaction
from ..storage.errors import DatabaseUnavailable
from ..webhooks.enums import MessageStatus
from ..webhooks.models import Webhook, WebhookMessage

CONTENT_TYPE = CONTENT_TYPE_LATEST
READINESS = "basra_readiness"
"""The app's extension holding the optional dependencies ``/readyz`` reports, by name:
each a callable giving a word for its state, or None where it is not in use (wired by
the composition root)."""

REQUESTS = Counter("basra_http_requests", "HTTP requests by route template, method and status",
                   ["route", "method", "status"])
LATENCY = Histogram("basra_http_request_duration_seconds",
                    "Time to answer (to the first byte of a stream), by route and method",
                    ["route", "method"],
                    buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
MOVES = Counter("basra_moves", "Plays applied (bot replies and plays on timeout included)")
WAITERS = Gauge("basra_open_waiters", "Long polls and event streams open now", ["kind"],
                multiprocess_mode="livesum")
TIMEOUT_LAG = Histogram("basra_timeout_lag_seconds",
                        "From a turn deadline to its timeout being applied",
                        buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60))
WEBHOOK_TRIES = Counter("basra_webhook_tries", "Webhook delivery tries by what followed",
                        ["outcome"])
WORKER_PASSED = Gauge("basra_worker_last_pass_timestamp_seconds",
                      "When the worker last finished a pass (Unix time)",
                      multiprocess_mode="max")
WEBHOOK_LAG = Histogram("basra_webhook_delivery_lag_seconds",
                        "From a webhook message's writing to its delivery",
                        buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600))


class _Database(Collector):
    """Gauges read from the database at scrape time (at most every ``DB_SECONDS`` per
    process, so scrapes cannot load the database); none while it is unavailable."""

    DB_SECONDS = 5.0
    _cached: tuple[float, list[GaugeMetricFamily]] = (-DB_SECONDS, [])

    def collect(self) -> Iterator[GaugeMetricFamily]:
        taken, families = _Database._cached
        if time.monotonic() - taken >= self.DB_SECONDS:
            try:
                with transaction():
                    families = list(self._read())
            except DatabaseUnavailable:
                families = [_primary(False)]
            families.append(GaugeMetricFamily(
                "basra_rate_limits_in_memory", "1 while Redis is configured but not "
                "answering: each process counts the rate limits alone",
                value=1 if _rate_limits() == "memory" else 0))
            _Database._cached = (time.monotonic(), families)
        yield from families

    def _read(self) -> Iterator[GaugeMetricFamily]:
        # in the same transaction as the counts: a standby (in recovery) takes no writes
        yield _primary(db.engine.dialect.name != "postgresql" or not db.session.scalar(
            text("SELECT pg_is_in_recovery()")))
        matches = GaugeMetricFamily("basra_matches", "Matches by status", labels=["status"])
        counts = dict(db.session.execute(
            select(Match.status, func.count()).group_by(Match.status)).all())
        for status in MatchStatus:
            matches.add_metric([status], counts.get(status, 0))
        yield matches
        messages = GaugeMetricFamily("basra_webhook_messages",
                                     "Webhook messages by status (pending: the backlog)",
                                     labels=["status"])
        counts = dict(db.session.execute(
            select(WebhookMessage.status, func.count()).group_by(WebhookMessage.status)).all())
        for status in MessageStatus:
            messages.add_metric([status], counts.get(status, 0))
        yield messages
        now = utcnow()
        due = db.session.scalar(  # the due index, and only endpoints being sent to
            select(func.min(WebhookMessage.next_attempt_at))
            .join(Webhook, Webhook.pk == WebhookMessage.webhook_pk)
            .where(WebhookMessage.status == MessageStatus.PENDING,
                   WebhookMessage.next_attempt_at <= now,
                   Webhook.disabled_at.is_(None), Webhook.paused_at.is_(None)))
        yield GaugeMetricFamily(
            "basra_webhook_due_lag_seconds",
            "How long the most overdue webhook message has waited past its time (0: none "
            "overdue): the workers not keeping up, not a receiver failing",
            value=(now - as_utc(due)).total_seconds() if due else 0.0)
        disabled = db.session.scalar(
            select(func.count()).select_from(Webhook).where(Webhook.disabled_at.is_not(None)))
        yield GaugeMetricFamily("basra_webhooks_disabled",
                                "Webhooks disabled after failing", value=disabled or 0)


def _primary(writable: bool) -> GaugeMetricFamily:
    return GaugeMetricFamily(
        "basra_database_primary", "1 while the database answers as a writable primary; 0 "
        "while it is unreachable or read-only (a failover)", value=1 if writable else 0)


def _rate_limits() -> str | None:
    """Where the rate limits are counted (``redis``, ``memory``), as /readyz says."""
    check = current_app.extensions.get(READINESS, {}).get("rate_limits")
    return check() if check is not None else None


class _InApp(Collector):
    """This process's metrics and the database's, read inside ``app``'s context."""

    def __init__(self, app: Flask) -> None:
        self.app = app

    def collect(self) -> Iterator[Metric]:
        yield from REGISTRY.collect()
        with self.app.app_context():
            yield from _Database().collect()


def registry_for(app: Flask) -> CollectorRegistry:
    """A registry for a process outside gunicorn (``basra worker --metrics-port``)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_InApp(app))
    return registry


def scrape() -> bytes:
    """The text exposition of every metric: this process's (or all gunicorn workers')
    and the database's."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        processes = CollectorRegistry()
        multiprocess.MultiProcessCollector(processes)  # type: ignore[no-untyped-call]
    else:
        processes = REGISTRY
    database = CollectorRegistry(auto_describe=False)
    database.register(_Database())
    return generate_latest(processes) + generate_latest(database)
