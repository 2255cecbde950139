"""Delivering webhook messages (run by ``basra worker``), signed per Standard Webhooks.

A pass claims due messages (``FOR UPDATE SKIP LOCKED`` on PostgreSQL, SQLite's
single writer), pushing each one's ``next_attempt_at`` a lease ahead before any
request is sent; a worker killed mid-delivery therefore only means a retry when
the lease ends, with the same ``webhook-id``. Each try connects to the address the
URL's host resolved to and was checked against (so DNS cannot point it elsewhere
between check and call) and follows no redirects. A try has one deadline,
``BASRA_WEBHOOK_TIMEOUT_SECONDS``, for connecting, sending and the whole answer together:
a receiver that trickles its answer a byte at a time is cut off there, and the lease
outlives it. Tries run in a small thread pool (``BASRA_WEBHOOK_THREADS``) of which each
front end holds at most ``BASRA_WEBHOOK_THREADS_PER_FRONT_END`` at once, so a slow or
hostile receiver delays only its own front end's messages, never the worker's clock
duties or other front ends.

A failed try is retried after ``BASRA_WEBHOOK_RETRY_SECONDS`` x 4^(tries - 1)
(capped at 6 h, +-20% jitter): with the defaults 5 s, 20 s, 80 s, ... about 26 h
over 11 tries; then the message is ``failed``. ``BASRA_WEBHOOK_DISABLE_AFTER``
failed messages in a row disable the endpoint (any delivery resets the count).
"""

from __future__ import annotations

import contextlib
import http.client
import logging
import random
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import urllib3
from flask import Flask
from sqlalchemy import delete, insert, select, update
from standardwebhooks.webhooks import Webhook as Signer
from urllib3.connection import HTTPConnection, HTTPSConnection

from ..ops import metrics
from ..storage.db import backend, db, transaction
from ..storage.enums import MessageStatus
from ..storage.models import Webhook, WebhookAttempt, WebhookMessage, utcnow
from . import cache
from . import service as webhooks
from .errors import WebhookUrlNotAllowed

log = logging.getLogger(__name__)

MAX_DELAY = timedelta(hours=6)
USER_AGENT = "basra-webhooks/1"


@dataclass(frozen=True)
class Claimed:
    """A message claimed for one try."""

    pk: int
    tenant: int
    webhook_pk: int
    msg_id: str
    body: str
    attempts: int
    url: str
    secret: str


@dataclass(frozen=True)
class Outcome:
    """What one try gave."""

    status_code: int | None
    error: str | None
    duration_ms: int

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def retry_delay(attempts: int, base: float) -> timedelta:
    """How long to wait after the ``attempts``-th failed try."""
    delay = min(timedelta(seconds=base * 4 ** (attempts - 1)), MAX_DELAY)
    return delay * random.uniform(0.8, 1.2)


def claim(limit: int, lease: timedelta, room: Callable[[int], int]) -> list[Claimed]:
    """Up to ``limit`` due messages of enabled webhooks, leased to this worker, at most
    ``room(tenant)`` of each front end's (oldest due first). A front end with no room, or
    whose due messages fill a look, is left out of the next look, so one front end's
    backlog never hides another's."""
    now = utcnow()
    taken: list[Any] = []
    mine: Counter[int] = Counter()
    """Messages taken so far, by front end (across looks)."""
    full: set[int] = set()
    with transaction(write=True):
        for _ in range(_LOOKS):
            asked = limit - len(taken)
            query = (
                select(WebhookMessage.pk, Webhook.tenant_pk, WebhookMessage.webhook_pk,
                       WebhookMessage.msg_id, WebhookMessage.body, WebhookMessage.attempts,
                       Webhook.url, Webhook.secret)
                .join(Webhook, Webhook.pk == WebhookMessage.webhook_pk)
                .where(WebhookMessage.status == MessageStatus.PENDING,
                       WebhookMessage.next_attempt_at <= now,
                       Webhook.disabled_at.is_(None), Webhook.tenant_pk.not_in(full),
                       WebhookMessage.pk.not_in([r.pk for r in taken]))
                .order_by(WebhookMessage.next_attempt_at).limit(asked)
            )
            if backend() == "postgresql":
                query = query.with_for_update(skip_locked=True, of=WebhookMessage)
            found = db.session.execute(query).all()
            for row in found:
                if mine[row.tenant_pk] < room(row.tenant_pk):
                    mine[row.tenant_pk] += 1
                    taken.append(row)
            full |= {row.tenant_pk for row in found if mine[row.tenant_pk] >= room(row.tenant_pk)}
            if len(found) < asked or len(taken) >= limit:
                break
        if taken:
            db.session.execute(
                update(WebhookMessage).where(WebhookMessage.pk.in_([r.pk for r in taken]))
                .values(attempts=WebhookMessage.attempts + 1, next_attempt_at=now + lease))
    return [Claimed(r.pk, r.tenant_pk, r.webhook_pk, r.msg_id, r.body, r.attempts + 1, r.url,
                    r.secret) for r in taken]


_LOOKS = 4
"""How many looks a claim takes past front ends that are full (each look leaves out the
front ends the last one filled)."""


def send(message: Claimed, timeout: float, allow_private: bool) -> Outcome:
    """One signed POST of the message to its webhook's URL."""
    started = time.monotonic()

    def outcome(code: int | None, error: str | None) -> Outcome:
        return Outcome(code, error and error[:300], int((time.monotonic() - started) * 1000))

    try:
        scheme, host, port, addresses = webhooks.resolve(message.url, allow_private)
    except WebhookUrlNotAllowed as exc:
        return outcome(None, str(exc))
    now = utcnow()
    headers = {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        "host": host if port in (80, 443) else f"{host}:{port}",
        "webhook-id": message.msg_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Signer(message.secret).sign(message.msg_id, now, message.body),
    }
    parts = urlsplit(message.url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    conn: Any
    if scheme == "https":
        conn = HTTPSConnection(addresses[0], port, timeout=timeout, server_hostname=host,
                               assert_hostname=host)
    else:
        conn = HTTPConnection(addresses[0], port, timeout=timeout)
    # the socket timeout bounds each read, not the try: at the deadline the connection
    # is cut, whatever the receiver is in the middle of
    cut = threading.Event()
    deadline = threading.Timer(timeout, _cut, (conn, cut))
    deadline.daemon = True
    deadline.start()
    try:
        conn.request("POST", target, body=message.body.encode(), headers=headers,
                     preload_content=False)
        response = conn.getresponse()
        response.read(4096, decode_content=False)  # a receiver's answer is not needed
        return outcome(response.status, None if response.status < 300
                       else f"HTTP {response.status}")
    except (urllib3.exceptions.HTTPError, OSError, http.client.HTTPException) as exc:
        if cut.is_set():
            return outcome(None, f"no answer within the {timeout:g} s deadline")
        return outcome(None, f"{type(exc).__name__}: {exc}")
    finally:
        deadline.cancel()
        conn.close()


def _cut(conn: Any, cut: threading.Event) -> None:
    """The try's deadline passed: shut its socket, which ends any read or write on it."""
    cut.set()
    sock = getattr(conn, "sock", None)
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def settle(message: Claimed, result: Outcome, max_attempts: int, retry_base: float,
           disable_after: int) -> MessageStatus:
    """Store the try and what follows from it; the message's status afterwards."""
    now = utcnow()
    with transaction(write=True):
        db.session.execute(insert(WebhookAttempt).values(
            message_pk=message.pk, webhook_pk=message.webhook_pk, at=now,
            status_code=result.status_code, error=result.error,
            duration_ms=result.duration_ms))
        hook = update(Webhook).where(Webhook.pk == message.webhook_pk)
        mine = update(WebhookMessage).where(WebhookMessage.pk == message.pk)
        if result.delivered:
            db.session.execute(mine.values(status=MessageStatus.DELIVERED))
            db.session.execute(hook.values(failed_in_a_row=0))
            return MessageStatus.DELIVERED
        if message.attempts < max_attempts:
            db.session.execute(mine.values(
                next_attempt_at=now + retry_delay(message.attempts, retry_base)))
            return MessageStatus.PENDING
        db.session.execute(mine.values(status=MessageStatus.FAILED))
        failed = db.session.scalar(hook.values(failed_in_a_row=Webhook.failed_in_a_row + 1)
                                   .returning(Webhook.failed_in_a_row))
        if failed is not None and failed >= disable_after:
            db.session.execute(hook.values(disabled_at=now))
            cache.forget()
            log.warning("webhook disabled after %d failed messages in a row", failed)
        return MessageStatus.FAILED


def purge(before: datetime) -> None:
    """Forget finished messages and attempts older than ``before``."""
    with transaction(write=True):
        db.session.execute(delete(WebhookAttempt).where(WebhookAttempt.at < before))
        db.session.execute(delete(WebhookMessage).where(
            WebhookMessage.status != MessageStatus.PENDING, WebhookMessage.created_at < before))


class Dispatcher:
    """Tries messages in a thread pool, claiming only what it can start now, each front
    end's at most its share of the threads."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.size = app.config["BASRA_WEBHOOK_THREADS"]
        self.share = min(self.size, app.config["BASRA_WEBHOOK_THREADS_PER_FRONT_END"])
        self.pool = ThreadPoolExecutor(self.size, thread_name_prefix="webhook")
        self.running: dict[Future[None], int] = {}
        """The tries under way, with their front end."""

    def pass_once(self) -> int:
        """Claim and start due messages; how many were started."""
        self.running = {f: t for f, t in self.running.items() if not f.done()}
        free = self.size - len(self.running)
        if free <= 0:
            return 0
        busy = Counter(self.running.values())
        timeout = self.app.config["BASRA_WEBHOOK_TIMEOUT_SECONDS"]
        # a try ends by its deadline (a connect that never got a socket by twice that);
        # the lease outlives it, so nobody claims the message while its try runs
        lease = timedelta(seconds=timeout * 2 + 10)
        claimed = claim(free, lease, lambda tenant: self.share - busy[tenant])
        for message in claimed:
            self.running[self.pool.submit(self._try, message)] = message.tenant
        return len(claimed)

    def _try(self, message: Claimed) -> None:
        config = self.app.config
        result = send(message, config["BASRA_WEBHOOK_TIMEOUT_SECONDS"],
                      config["BASRA_WEBHOOKS_ALLOW_PRIVATE"])
        with self.app.app_context():
            try:
                status = settle(message, result, config["BASRA_WEBHOOK_ATTEMPTS"],
                                config["BASRA_WEBHOOK_RETRY_SECONDS"],
                                config["BASRA_WEBHOOK_DISABLE_AFTER"])
            except Exception:  # the lease ends and another try follows
                log.exception("could not record a webhook try")
                return
        outcome = "retry" if status == MessageStatus.PENDING else status
        metrics.WEBHOOK_TRIES.labels(outcome=outcome).inc()

    def wait(self) -> None:
        """Let the tries under way finish (tests, shutdown)."""
        for future in list(self.running):
            future.result()
        self.pool.shutdown(wait=True)
