"""Delivering webhook messages (run by ``basra worker``), signed per Standard Webhooks.

A pass records the tries that ended and claims due messages in one transaction: the
due ones read in order (finishes first), a lane's (a match's or a tournament's) next
message only once the one before it has been answered, then leased by one UPDATE that
checks them due again under their row locks (so two workers never take one message,
nor one lane's two). A lease pushes ``next_attempt_at`` ahead before any request is
sent; a worker killed mid-delivery therefore only means a retry when the lease ends,
with the same ``webhook-id``. The dispatcher passes on its own thread as soon as tries
end (and every interval), so a lane goes on at the pace its receiver answers.

Each try connects to the address the URL's host resolved to and was checked against
(so DNS cannot point it elsewhere between check and call), follows no redirects, and
keeps the connection for the thread's next try there (up to ``KEEP_SECONDS``, then the
host is resolved and checked again). A try has one deadline,
``BASRA_WEBHOOK_TIMEOUT_SECONDS``, for connecting, sending and the whole answer together:
a receiver that trickles its answer a byte at a time is cut off there (one thread
watches every try's deadline), and the lease outlives it. Tries run in a thread pool
(``BASRA_WEBHOOK_THREADS``) of which each front end holds at most
``BASRA_WEBHOOK_THREADS_PER_FRONT_END`` and each endpoint ``BASRA_WEBHOOK_PER_ENDPOINT``
at once, so a slow or hostile receiver delays only its own front end's messages, never
the worker's clock duties or other front ends.

A failed try is retried after ``BASRA_WEBHOOK_RETRY_SECONDS`` x 4^(tries - 1)
(capped at 6 h, +-20% jitter): with the defaults 5 s, 20 s, 80 s, ... about 26 h
over 11 tries; then the message is ``failed``. A failed try frees its lane (its retry
may come after later messages of the match). ``BASRA_WEBHOOK_DISABLE_AFTER`` failed
messages in a row disable the endpoint (any delivery resets the count).
"""

from __future__ import annotations

import contextlib
import heapq
import http.client
import itertools
import logging
import random
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import urllib3
from flask import Flask
from sqlalchemy import delete, or_, select, tuple_
from standardwebhooks.webhooks import Webhook as Signer
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.util.connection import is_connection_dropped

from ..ops import metrics
from ..storage.base import as_utc, utcnow
from ..storage.db import DISCONNECTED, db, end_session, transaction
from ..storage.errors import DatabaseUnavailable
from . import cache
from . import service as webhooks
from .enums import MessageStatus
from .errors import WebhookUrlNotAllowed
from .models import Webhook, WebhookAttempt, WebhookMessage

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
    created_at: datetime


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


Room = Callable[[int], int]
"""How many more tries one front end (or one endpoint) may have under way."""


def claim(limit: int, lease: timedelta, room: Room, endpoint_room: Room | None = None,
          ) -> list[Claimed]:
    """Up to ``limit`` due messages of enabled webhooks, leased to this worker (in a
    transaction of their own): see :func:`_claim`."""
    with transaction(write=True):
        return _claim(limit, lease, room, endpoint_room or (lambda _: limit))


def _claim(limit: int, lease: timedelta, room: Room, endpoint_room: Room) -> list[Claimed]:
    """Due messages of enabled webhooks, leased to this worker: finishes first, then the
    oldest due; at most ``room(tenant)`` of each front end's and ``endpoint_room(webhook)``
    of each endpoint's; never a message whose lane has an earlier message untried or in
    its first try. A front end or endpoint with no room, or whose due messages fill a
    look, is left out of the next look, so one backlog never hides another's.

    The due messages are read in order without a lock and their lanes worked out here
    (a lane's first due message is its next unless an earlier one is out on a try); the
    chosen ones are then leased by one UPDATE that checks them due again under their row
    locks, so a message another worker leased meanwhile is left to it and a lane's later
    message is never taken while its earlier one is."""
    now = utcnow()
    enabled = _endpoints()
    messages = WebhookMessage.__table__
    out = set(db.session.execute(  # lanes whose earlier message is out on a try
        select(messages.c.webhook_pk, messages.c.lane)
        .where(messages.c.status == MessageStatus.PENDING, messages.c.next_attempt_at > now,
               messages.c.holds_lane)).all())
    chosen = _choose(now, limit, enabled, out, room, endpoint_room)
    if not chosen:
        return []
    taken = db.session.execute(
        messages.update()
        .where(messages.c.pk.in_(chosen), messages.c.status == MessageStatus.PENDING,
               messages.c.next_attempt_at <= now)
        .values(attempts=messages.c.attempts + 1, next_attempt_at=now + lease)
        .returning(messages.c.pk, messages.c.webhook_pk, messages.c.msg_id, messages.c.body,
                   messages.c.attempts, messages.c.created_at)).all()
    order = {pk: n for n, pk in enumerate(chosen)}
    return [Claimed(r.pk, enabled[r.webhook_pk].tenant, r.webhook_pk, r.msg_id, r.body,
                    r.attempts, enabled[r.webhook_pk].url, enabled[r.webhook_pk].secret,
                    as_utc(r.created_at))
            for r in sorted(taken, key=lambda r: order[r.pk])]


def _endpoints() -> dict[int, cache.Endpoint]:
    """Every enabled webhook, read at most once a second per process."""
    found = cache.endpoints()
    if found is None:
        found = {pk: cache.Endpoint(tenant, url, secret)
                 for pk, tenant, url, secret in db.session.execute(
                     select(Webhook.pk, Webhook.tenant_pk, Webhook.url, Webhook.secret)
                     .where(Webhook.disabled_at.is_(None), Webhook.paused_at.is_(None)))}
        cache.keep_endpoints(found)
    return found


def _choose(now: datetime, limit: int, enabled: dict[int, cache.Endpoint], out: set[Any],
            room: Room, endpoint_room: Room) -> list[int]:
    """The pks of the due messages to claim, in the order to try them."""
    chosen: list[int] = []
    mine: Counter[int] = Counter()
    """Messages chosen so far, by front end (across looks)."""
    ours: Counter[int] = Counter()
    """... and by endpoint."""
    lanes: set[tuple[int, str | None]] = set(out)
    """Lanes whose next message is out, or chosen, or passed over in this claim: a look
    leaves their messages out, so a long lane never fills the looks."""
    messages = WebhookMessage.__table__
    hooks = set(enabled)
    for _ in range(_LOOKS):
        if not hooks:
            break
        asked = (limit - len(chosen)) * _WINDOW
        query = (select(messages.c.pk, messages.c.webhook_pk, messages.c.lane,
                        messages.c.holds_lane)
                 .where(messages.c.status == MessageStatus.PENDING,
                        messages.c.next_attempt_at <= now, messages.c.webhook_pk.in_(hooks),
                        messages.c.pk.not_in(chosen))
                 .order_by(messages.c.priority, messages.c.next_attempt_at, messages.c.pk)
                 .limit(asked))
        if lanes:
            query = query.where(or_(~messages.c.holds_lane, tuple_(
                messages.c.webhook_pk, messages.c.lane).not_in(list(lanes))))
        found = db.session.execute(query).all()
        for pk, hook, lane, holds in found:
            tenant = enabled[hook].tenant
            if holds:
                if (hook, lane) in lanes:
                    continue
                lanes.add((hook, lane))  # later messages of the lane wait, chosen or not
            if mine[tenant] < room(tenant) and ours[hook] < endpoint_room(hook):
                mine[tenant] += 1
                ours[hook] += 1
                chosen.append(pk)
                if len(chosen) >= limit:
                    return chosen
        hooks -= {hook for hook in hooks if mine[enabled[hook].tenant] >= room(enabled[hook].tenant)
                  or ours[hook] >= endpoint_room(hook)}
        if len(found) < asked:
            break
    return chosen


_LOOKS = 8
"""How many looks a claim takes past front ends, endpoints and lanes already served
(each look leaves out those the last ones filled or passed)."""
_WINDOW = 4
"""Due messages read a look for each one wanted (a lane's later ones are passed over)."""


def send(message: Claimed, timeout: float, allow_private: bool) -> Outcome:
    """One signed POST of the message to its webhook's URL, on this thread's open
    connection to it if it has one (once more on a new one if the receiver had closed
    that connection)."""
    started = time.monotonic()

    def outcome(code: int | None, error: str | None) -> Outcome:
        return Outcome(code, error and error[:300], int((time.monotonic() - started) * 1000))

    kept = _kept()
    place = urlsplit(message.url)
    target = (place.path or "/") + (f"?{place.query}" if place.query else "")
    for _ in range(2):
        known = kept.pop((place.scheme, place.netloc), None)
        if known is not None and (started - known.since > KEEP_SECONDS
                                  or is_connection_dropped(known.conn)):
            known.conn.close()
            known = None
        reused = known is not None
        if known is None:
            try:
                known = _connect(message.url, timeout, allow_private)
            except WebhookUrlNotAllowed as exc:
                return outcome(None, str(exc))
        now = utcnow()
        headers = {
            "content-type": "application/json",
            "user-agent": USER_AGENT,
            "host": known.host,
            "webhook-id": message.msg_id,
            "webhook-timestamp": str(int(now.timestamp())),
            "webhook-signature": Signer(message.secret).sign(message.msg_id, now, message.body),
        }
        # the socket timeout bounds each read, not the try: at the deadline the
        # connection is cut, whatever the receiver is in the middle of
        watch = _DEADLINES.watch(started + timeout, known.conn)
        try:
            known.conn.request("POST", target, body=message.body.encode(), headers=headers,
                               preload_content=False)
            response = known.conn.getresponse()
            keep = _drained(response)
            if keep and not watch.end():
                _keep(kept, (place.scheme, place.netloc), known)
            else:
                known.conn.close()
            return outcome(response.status, None if response.status < 300
                           else f"HTTP {response.status}")
        except (urllib3.exceptions.HTTPError, OSError, http.client.HTTPException) as exc:
            known.conn.close()
            if watch.end():
                return outcome(None, f"no answer within the {timeout:g} s deadline")
            if reused and isinstance(exc, _CLOSED_BEFORE_ANSWER):
                continue  # the receiver closed the idle connection: once more, anew
            return outcome(None, f"{type(exc).__name__}: {exc}")
        finally:
            watch.end()
    return outcome(None, "the receiver closed the connection before answering")


KEEP_SECONDS = 30.0
"""How long a delivery thread keeps a connection to an endpoint open for its next
tries; after it the URL's host is resolved and checked again on a new one."""
_CLOSED_BEFORE_ANSWER = (http.client.RemoteDisconnected, ConnectionResetError,
                         BrokenPipeError, urllib3.exceptions.ProtocolError)
_ANSWER_KEPT = 64 * 1024
"""A receiver's answer up to this long is read to its end so its connection is kept; a
longer one (or one of unknown length) closes it."""


@dataclass
class _Open:
    """A delivery thread's open connection to one endpoint."""

    conn: Any
    host: str
    """The Host header: the URL's host (and port if not the scheme's)."""
    since: float


def _connect(url: str, timeout: float, allow_private: bool) -> _Open:
    """A new connection to the address the URL's host resolved to and was checked
    against (so DNS cannot point it elsewhere between check and call); no redirects are
    followed."""
    scheme, host, port, addresses = webhooks.resolve(url, allow_private)
    conn: Any
    if scheme == "https":
        conn = HTTPSConnection(addresses[0], port, timeout=timeout, server_hostname=host,
                               assert_hostname=host)
    else:
        conn = HTTPConnection(addresses[0], port, timeout=timeout)
    return _Open(conn, host if port in (80, 443) else f"{host}:{port}", time.monotonic())


def _drained(response: Any) -> bool:
    """Read the answer (its content is not needed); whether the connection may carry the
    next try."""
    length = "0" if response.status in (204, 304) else response.headers.get("content-length", "")
    if (response.version != 11 or "close" in response.headers.get("connection", "").lower()
            or not length.isdigit() or int(length) > _ANSWER_KEPT):
        response.read(4096, decode_content=False)
        return False
    response.read(decode_content=False)
    return True


_local = threading.local()


def _kept() -> dict[tuple[str, str], _Open]:
    """This delivery thread's open connections, by the URL's scheme and host."""
    kept: dict[tuple[str, str], _Open] | None = getattr(_local, "kept", None)
    if kept is None:
        kept = _local.kept = {}
    return kept


def _keep(kept: dict[tuple[str, str], _Open], place: tuple[str, str], known: _Open) -> None:
    """Keep the connection for the thread's next try there, closing the one used least
    lately past :data:`KEPT_PER_THREAD`."""
    kept[place] = known
    if len(kept) > KEPT_PER_THREAD:
        kept.pop(next(iter(kept))).conn.close()


KEPT_PER_THREAD = 4
"""Connections a delivery thread keeps open (to as many endpoints)."""


class _Watch:
    """One try's deadline: its connection is cut when it passes, unless ended first."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.cut = False
        self.ended = False
        self.lock = threading.Lock()

    def end(self) -> bool:
        """The try is over (nothing more to cut); whether the deadline cut it."""
        with self.lock:
            self.ended = True
            return self.cut

    def fire(self) -> None:
        with self.lock:
            if self.ended:
                return
            self.cut = True
        sock = getattr(self.conn, "sock", None)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # ends any read or write on it


class _Deadlines:
    """One thread that cuts the tries past their deadline (a timer thread a try would
    cost a thread's start on every delivery)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.heap: list[tuple[float, int, _Watch]] = []
        self.count = itertools.count()
        self.woken = threading.Event()
        self.thread: threading.Thread | None = None

    def watch(self, at: float, conn: Any) -> _Watch:
        watch = _Watch(conn)
        with self.lock:
            heapq.heappush(self.heap, (at, next(self.count), watch))
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._run, daemon=True,
                                               name="webhook-deadlines")
                self.thread.start()
            if self.heap[0][2] is watch:
                self.woken.set()
        return watch

    def _run(self) -> None:
        while True:
            now = time.monotonic()
            due = []
            with self.lock:
                while self.heap and (self.heap[0][0] <= now or self.heap[0][2].ended):
                    due.append(heapq.heappop(self.heap)[2])
                wait = self.heap[0][0] - now if self.heap else 1.0
                self.woken.clear()
            for watch in due:
                watch.fire()
            self.woken.wait(wait)


_DEADLINES = _Deadlines()


def settle(tries: Sequence[tuple[Claimed, Outcome]], max_attempts: int, retry_base: float,
           disable_after: int) -> list[MessageStatus]:
    """Store the tries that ended and what follows from each, in one transaction; each
    message's status afterwards. A try that ended frees its lane, whatever it gave."""
    with transaction(write=True):
        return _settle(tries, max_attempts, retry_base, disable_after)


def _settle(tries: Sequence[tuple[Claimed, Outcome]], max_attempts: int, retry_base: float,
            disable_after: int) -> list[MessageStatus]:
    now = utcnow()
    statuses = []
    messages, hooks = WebhookMessage.__table__, Webhook.__table__
    db.session.execute(WebhookAttempt.__table__.insert(), [
        {"message_pk": message.pk, "webhook_pk": message.webhook_pk, "at": now,
         "status_code": result.status_code, "error": result.error,
         "duration_ms": result.duration_ms} for message, result in tries])
    delivered = [message for message, result in tries if result.delivered]
    if delivered:
        db.session.execute(
            messages.update().where(messages.c.pk.in_([m.pk for m in delivered]))
            .values(status=MessageStatus.DELIVERED, holds_lane=False))
        db.session.execute(  # most often already 0: no write, no row lock then
            hooks.update().where(hooks.c.pk.in_({m.webhook_pk for m in delivered}),
                                 hooks.c.failed_in_a_row != 0)
            .values(failed_in_a_row=0))
    for message, result in tries:
        if result.delivered:
            statuses.append(MessageStatus.DELIVERED)
            continue
        mine = messages.update().where(messages.c.pk == message.pk)
        if message.attempts < max_attempts:
            db.session.execute(mine.values(
                holds_lane=False,
                next_attempt_at=now + retry_delay(message.attempts, retry_base)))
            statuses.append(MessageStatus.PENDING)
            continue
        db.session.execute(mine.values(status=MessageStatus.FAILED, holds_lane=False))
        statuses.append(MessageStatus.FAILED)
        hook = hooks.update().where(hooks.c.pk == message.webhook_pk)
        failed = db.session.scalar(hook.values(failed_in_a_row=hooks.c.failed_in_a_row + 1)
                                   .returning(hooks.c.failed_in_a_row))
        if failed is not None and failed >= disable_after:
            db.session.execute(hook.values(disabled_at=now))
            cache.forget()
            log.warning("webhook disabled after %d failed messages in a row", failed)
    return statuses


def purge(before: datetime) -> None:
    """Forget finished messages and attempts older than ``before``."""
    with transaction(write=True):
        db.session.execute(delete(WebhookAttempt).where(WebhookAttempt.at < before))
        db.session.execute(delete(WebhookMessage).where(
            WebhookMessage.status != MessageStatus.PENDING, WebhookMessage.created_at < before))


class Dispatcher:
    """Tries messages in a thread pool, claiming only what it can start now, each front
    end's at most its share of the threads and each endpoint's at most its own; the tries
    that ended are recorded together before the next claim."""

    def __init__(self, app: Flask) -> None:
        config = app.config
        self.app = app
        self.size = config["BASRA_WEBHOOK_THREADS"]
        self.share = min(self.size, config["BASRA_WEBHOOK_THREADS_PER_FRONT_END"])
        self.per_endpoint = min(self.share, config["BASRA_WEBHOOK_PER_ENDPOINT"])
        self.pool = ThreadPoolExecutor(self.size, thread_name_prefix="webhook")
        self.running: dict[Future[Outcome], Claimed] = {}
        """The tries under way."""
        self.woken = threading.Event()
        """Set when a try ends: its lane, and its thread, are free for the next."""
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None

    def pass_once(self) -> int:
        """Record the tries that ended and claim due messages, in one transaction, then
        start the claimed; how many were started."""
        ended = [future for future in self.running if future.done()]
        tries = [(self.running.pop(future), future.result()) for future in ended]
        free = self.size - len(self.running)
        if not tries and free <= 0:
            return 0
        tenants = Counter(message.tenant for message in self.running.values())
        endpoints = Counter(message.webhook_pk for message in self.running.values())
        config = self.app.config
        timeout = config["BASRA_WEBHOOK_TIMEOUT_SECONDS"]
        # a try ends by its deadline (a connect that never got a socket by twice that);
        # the lease outlives it, so nobody claims the message while its try runs
        lease = timedelta(seconds=timeout * 2 + 10)
        try:
            with transaction(write=True):
                statuses = _settle(tries, config["BASRA_WEBHOOK_ATTEMPTS"],
                                   config["BASRA_WEBHOOK_RETRY_SECONDS"],
                                   config["BASRA_WEBHOOK_DISABLE_AFTER"]) if tries else []
                claimed = _claim(free, lease, lambda tenant: self.share - tenants[tenant],
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
        _count(tries, statuses)
        for message in claimed:
            future = self.pool.submit(_try, message, timeout,
                                      config["BASRA_WEBHOOKS_ALLOW_PRIVATE"])
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
        tries = [(message, future.result()) for future, message in self.running.items()]
        self.running.clear()
        if tries:
            config = self.app.config
            with self.app.app_context():
                _count(tries, settle(tries, config["BASRA_WEBHOOK_ATTEMPTS"],
                                     config["BASRA_WEBHOOK_RETRY_SECONDS"],
                                     config["BASRA_WEBHOOK_DISABLE_AFTER"]))
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


def _try(message: Claimed, timeout: float, allow_private: bool) -> Outcome:
    """One try, whatever goes wrong in it an outcome."""
    try:
        return send(message, timeout, allow_private)
    except Exception as exc:  # recorded as the try's error; the message is retried
        log.exception("webhook try failed")
        return Outcome(None, f"{type(exc).__name__}: {exc}"[:300], 0)
