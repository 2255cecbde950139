"""The outbox: every published event (:mod:`service.events`) as a message for each
enabled webhook of the tenant that asked for its kind, written in the publisher's own
transaction (so a rolled-back move sends nothing and a committed one is never lost),
which :mod:`service.webhooks.deliveries` sends. The event door's subscriber (wired by
the composition root), and the only writer of outbox messages.

Events carry only what any spectator may see: never a hand, the stock, or the seed
before the end (the matches domain tells them).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select

from ..events import Published
from ..storage.base import utcnow
from ..storage.db import db
from ..storage.writes import Rows
from . import cache
from .enums import MessageStatus
from .models import Webhook, WebhookMessage

FINISHES = frozenset({"match.finished", "tournament.finished"})
"""Sent ahead of every other waiting message, held behind none of their lane."""


def _subscribed(tenant: int) -> cache.Subscriptions:
    """(webhook pk, events) of the tenant's enabled webhooks, read at most once a
    :data:`~.cache.SUBSCRIPTIONS_SECONDS` per process."""
    found = cache.subscriptions(tenant)
    if found is None:
        found = tuple((pk, tuple(events)) for pk, events in db.session.execute(
            select(Webhook.pk, Webhook.events)
            .where(Webhook.tenant_pk == tenant, Webhook.disabled_at.is_(None))))
        cache.keep(tenant, found)
    return found


def subscribed(tenant: int) -> bool:
    """Whether the tenant has an enabled webhook (as this process read them lately)."""
    return bool(_subscribed(tenant))


def outbox(tenant: int, happened: Sequence[Published]) -> list[Rows]:
    """Published events as outbox messages for every enabled webhook of the tenant that
    asked for them, to write in the publisher's transaction (none, and no work, without
    such a webhook). Each but a finish joins its match's (or tournament's) lane,
    delivered in order; a finish is in no lane and goes first."""
    subscriptions = _subscribed(tenant)
    if not subscriptions or not happened:
        return []
    now = utcnow()
    stamp = now.isoformat().replace("+00:00", "Z")
    rows: list[dict[str, Any]] = []
    for published in happened:
        kind, data = published.kind, published.data
        body = json.dumps({"type": kind, "timestamp": stamp, "data": data},
                          separators=(",", ":"))
        finish = kind in FINISHES
        lane = None if finish else data.get("match_id") or data.get("tournament_id")
        rows.extend({"webhook_pk": pk, "msg_id": "msg_" + secrets.token_hex(16), "type": kind,
                     "body": body, "status": MessageStatus.PENDING, "attempts": 0,
                     "next_attempt_at": now, "created_at": now, "lane": lane,
                     "holds_lane": lane is not None, "priority": 0 if finish else 1}
                    for pk, events in subscriptions if kind in events)
    return [Rows(WebhookMessage.__table__, tuple(rows))] if rows else []
