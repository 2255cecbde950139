"""Delivering webhook messages (run by ``basra worker``).

A pass records the tries that ended and claims due messages (:mod:`.queue`) in one
transaction, then starts the claimed. The dispatcher passes on its own thread as soon as
tries end (and every interval), so a lane goes on at the pace its receiver answers. Tries
(:mod:`.tries`) run in a thread pool (``BASRA_WEBHOOK_THREADS``) of which each front end
holds at most ``BASRA_WEBHOOK_THREADS_PER_FRONT_END`` and each endpoint
``BASRA_WEBHOOK_PER_ENDPOINT`` at once, so a slow or hostile receiver delays only its
own front end's messages, never the worker's clock duties or other front ends.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import timedelta

from flask import Flask

from ..ops import metrics
from ..settings import settings_of
from ..storage.base import utcnow
from ..storage.db import DISCONNECTED, end_session, transaction
from ..storage.errors import DatabaseUnavailable
from . import queue
from .enums import MessageStatus
from .queue import Claimed, Outcome
from .tries import try_once

log = logging.getLogger(__name__)


class Dispatcher:
    """Tries messages in a thread pool, claiming only what it can start now, each front
    end's at most its share of the threads and each endpoint's at most its own; the tries
    that ended are recorded together before the next claim."""

    def __init__(self, app: Flask) -> None:
        settings = settings_of(app)
        self.app = app
        self.size = settings.webhook_threads
        self.share = min(self.size, settings.webhook_threads_per_front_end)
        self.per_endpoint = min(self.share, settings.webhook_per_endpoint)
        self.pool = ThreadPoolExecutor(self.size, thread_name_prefix="webhook")
        self.running: dict[Future[Outcome], Claimed] = {}
        """The tries under way."""
        self.ended: list[tuple[Claimed, Outcome]] = []
        """Tries that ended but are not yet stored: kept until a pass stores them, so a
        failed pass (a deadlock, a failover) never lets a delivered message's lease run
        out and send it again."""
        self.woken = threading.Event()
        """Set when a try ends: its lane, and its thread, are free for the next."""
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None

    def pass_once(self) -> int:
        """Record the tries that ended and claim due messages, in one transaction, then
        start the claimed; how many were started."""
        ended = [future for future in self.running if future.done()]
        self.ended += [(self.running.pop(future), future.result()) for future in ended]
        tries = self.ended
        free = self.size - len(self.running)
        if not tries and free <= 0:
            return 0
        tenants = Counter(message.tenant for message in self.running.values())
        endpoints = Counter(message.webhook_pk for message in self.running.values())
        settings = settings_of(self.app)  # once a pass: what the app holds now
        timeout = settings.webhook_timeout_seconds
        # a try ends by its deadline (a connect that never got a socket by twice that);
        # the lease outlives it, so nobody claims the message while its try runs
        lease = timedelta(seconds=timeout * 2 + 10)
        try:
            with transaction(write=True):
                statuses = queue.record(tries, settings.webhook_attempts,
                                        settings.webhook_retry_seconds,
                                        settings.webhook_disable_after) if tries else []
                claimed = queue.take(free, lease, lambda tenant: self.share - tenants[tenant],
                                     lambda webhook: self.per_endpoint - endpoints[webhook],
                                     ) if free > 0 else []
        except (DatabaseUnavailable, *DISCONNECTED):  # a failover, a restart: the leases
            log.warning("database unavailable; webhook deliveries wait")  # end, tries follow
            end_session()
            return 0
        except Exception:
            log.exception("could not record %d webhook tries or claim more", len(tries))
            end_session()
            return 0
        self.ended = []
        _count(tries, statuses)
        for message in claimed:
            future = self.pool.submit(try_once, message, timeout,
                                      settings.webhooks_allow_private)
            future.add_done_callback(lambda _: self.woken.set())
            self.running[future] = message
        return len(claimed)

    def start(self, interval: float) -> None:
        """Deliver on a thread of its own: a claim as soon as a try ends, and at least
        every ``interval`` seconds."""
        self.thread = threading.Thread(target=self._run, args=(interval,), daemon=True,
                                       name="webhook-dispatcher")
        self.thread.start()

    def _run(self, interval: float) -> None:
        with self.app.app_context():
            while not self.stopping.is_set():
                self.woken.clear()
                self.pass_once()
                if self.woken.wait(interval):
                    time.sleep(_GATHER)

    def wait(self) -> None:
        """Stop claiming, let the tries under way finish and record them (tests,
        shutdown)."""
        self.stopping.set()
        self.woken.set()
        if self.thread is not None:
            self.thread.join()
        tries = self.ended + [(message, future.result())
                              for future, message in self.running.items()]
        self.running.clear()
        self.ended = []
        if tries:
            settings = settings_of(self.app)
            with self.app.app_context():
                _count(tries, queue.settle(tries, settings.webhook_attempts,
                                           settings.webhook_retry_seconds,
                                           settings.webhook_disable_after))
        self.pool.shutdown(wait=True)


def _count(tries: Sequence[tuple[Claimed, Outcome]], statuses: Sequence[MessageStatus]) -> None:
    """The tries' outcomes, and the delivered messages' lag, in the metrics."""
    now = utcnow()
    for (message, _), status in zip(tries, statuses, strict=True):
        metrics.WEBHOOK_TRIES.labels(
            outcome="retry" if status == MessageStatus.PENDING else status).inc()
        if status == MessageStatus.DELIVERED:
            metrics.WEBHOOK_LAG.observe((now - message.created_at).total_seconds())


_GATHER = 0.005
"""How long the dispatcher waits, once a try ended, for others ending about together, so
that one pass records them all and fills their places."""


