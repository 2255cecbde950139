"""The queue of webhook messages: claims, the tries that ended recorded, old ones purged.

A claim reads the due messages in order (finishes first), a lane's (a match's or a
tournament's) next message only once the one before it has been answered, then leases
them by one UPDATE that checks them due again under their row locks (so two workers never
take one message, nor one lane's two). A lease pushes ``next_attempt_at`` ahead before
any request is sent; a worker killed mid-delivery therefore only means a retry when the
lease ends, with the same ``webhook-id``.

A failed try is retried after ``BASRA_WEBHOOK_RETRY_SECONDS`` x 4^(tries - 1)
(capped at 6 h, +-20% jitter): with the defaults 5 s, 20 s, 80 s, ... about 26 h
over 11 tries; then the message is ``failed``. A failed try frees its lane (its retry
may come after later messages of the match). ``BASRA_WEBHOOK_DISABLE_AFTER`` failed
messages in a row disable the endpoint (any delivery resets the count).
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import or_, select, tuple_

from ..storage import partitions
from ..storage.base import as_utc, utcnow
from ..storage.db import db, transaction
from . import cache
from .enums import MessageStatus
from .models import Webhook, WebhookAttempt, WebhookMessage

log = logging.getLogger(__name__)

MAX_DELAY = timedelta(hours=6)


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
    transaction of their own): see :func:`take`."""
    with transaction(write=True):
        return take(limit, lease, room, endpoint_room or (lambda _: limit))


def take(limit: int, lease: timedelta, room: Room, endpoint_room: Room) -> list[Claimed]:
    """Due messages of enabled webhooks, leased to this worker (in the caller's
    transaction): finishes first, then the
    oldest due; at most ``room(tenant)`` of each front end's and ``endpoint_room(webhook)``
    of each endpoint's; never a message whose lane has an earlier message untried or in
    its first try. A front end or endpoint with no room, or whose due messages fill a
    look, is left out of the next look, so one backlog never hides another's.

    The due messages are read in order without a lock and their lanes worked out here
    (a lane's first due message is its next unless an earlier one is out on a try); the
    chosen ones are then leased by one UPDATE that checks them due again under their row
    locks, skipping rows another worker holds (two workers never wait on, nor deadlock
    over, the same messages), so a message another worker leased meanwhile is left to it
    and a lane's later message is never taken while its earlier one is."""
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
    free = (select(messages.c.pk)  # a row another worker is leasing is passed, not awaited
            .where(messages.c.pk.in_(chosen), messages.c.status == MessageStatus.PENDING,
                   messages.c.next_attempt_at <= now)
            .with_for_update(skip_locked=True))
    taken = db.session.execute(
        messages.update()
        .where(messages.c.pk.in_(free.scalar_subquery()))
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



def settle(tries: Sequence[tuple[Claimed, Outcome]], max_attempts: int, retry_base: float,
           disable_after: int) -> list[MessageStatus]:
    """Store the tries that ended and what follows from each, in one transaction; each
    message's status afterwards. A try that ended frees its lane, whatever it gave."""
    with transaction(write=True):
        return record(tries, max_attempts, retry_base, disable_after)


def record(tries: Sequence[tuple[Claimed, Outcome]], max_attempts: int, retry_base: float,
            disable_after: int) -> list[MessageStatus]:
    """The tries that ended, stored (in the caller's transaction); each message's status
    afterwards."""
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
    """Forget finished messages and attempts older than ``before`` (a message still to
    deliver is kept): on PostgreSQL each day wholly older dropped, on SQLite deleted."""
    partitions.expire("webhook_attempts", "at", before)
    partitions.expire("webhook_messages", "created_at", before,
                      "status = :pending", {"pending": str(MessageStatus.PENDING)})


def make_days() -> None:
    """The messages' and attempts' days ahead, made (PostgreSQL)."""
    partitions.make_ahead("webhook_messages", "created_at")
    partitions.make_ahead("webhook_attempts", "at")

