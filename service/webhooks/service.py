"""A tenant's webhooks: endpoints (create, list, delete, recent attempts, retries), the
check that keeps them off private addresses, and an erasure's rewrite of the kept
messages. The outbox messages themselves are written by :mod:`.outbox`, the event door's
subscriber, alone, and sent by :mod:`.dispatcher`.
"""

from __future__ import annotations

import base64
import ipaddress
import secrets
import socket
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import delete, select

from ..events import WEBHOOK_KINDS
from ..storage import writes
from ..storage.base import as_utc, utcnow
from ..storage.db import db, transaction
from ..tenants import audit
from . import cache
from .enums import MessageStatus
from .errors import DeliveryNotFound, WebhookNotFound, WebhookUrlNotAllowed
from .models import Webhook, WebhookAttempt, WebhookMessage

EVENTS = WEBHOOK_KINDS
"""What a webhook may subscribe to: every kind :mod:`service.events` declares for them."""


@dataclass(frozen=True)
class WebhookInfo:
    """A webhook as its tenant sees it; ``secret`` only in the answer that made it."""

    id: str
    url: str
    events: list[str]
    created_at: datetime
    disabled_at: datetime | None
    paused_at: datetime | None
    secret: str | None = None


@dataclass(frozen=True)
class TryInfo:
    """One try at a message: what the receiver answered, and how long it took."""

    at: datetime
    status_code: int | None
    error: str | None
    duration_ms: int


@dataclass(frozen=True)
class DeliveryInfo:
    """A message to a webhook (a delivery) with every try at it."""

    id: str
    type: str
    status: str
    created_at: datetime
    next_attempt_at: datetime
    attempts: list[TryInfo]


@dataclass(frozen=True)
class AttemptInfo:
    """One try at delivering one message."""

    message_id: str
    type: str
    message_status: str
    at: datetime
    status_code: int | None
    error: str | None
    duration_ms: int


# ---- where the service may call ------------------------------------------------


_CARRYING_IPV4 = tuple(ipaddress.IPv6Network(net) for net in (
    "::/96",  # IPv4-compatible (deprecated), and :: and ::1
    "::ffff:0:0:0/96",  # IPv4-translated (SIIT)
    "64:ff9b::/96",  # NAT64, the well-known prefix
))
"""IPv6 prefixes whose last 32 bits are an IPv4 address the packet may end up at."""
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")
"""NAT64 for local use (RFC 8215): translated to whatever the operator's network has."""


def _ipv4_inside(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, 6to4, Teredo's client, NAT64,
    compatible or translated), if any."""
    if ip.ipv4_mapped:
        return ip.ipv4_mapped
    if ip.sixtofour:
        return ip.sixtofour
    if ip.teredo:
        return ip.teredo[1]
    if any(ip in net for net in _CARRYING_IPV4):
        return ipaddress.IPv4Address(int(ip) & 0xFFFF_FFFF)
    return None


def _public(address: str) -> bool:
    """Whether an address is public: global and not multicast, and so is any IPv4
    address it carries (an IPv6 form of 127.0.0.1 or of the metadata address is not)."""
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address):
        inside = _ipv4_inside(ip)
        if inside is not None and not _public(str(inside)):
            return False
        if ip in _NAT64_LOCAL:
            return False
    return ip.is_global and not ip.is_multicast



def resolve(url: str, allow_private: bool) -> tuple[str, str, int, list[str]]:
    """(scheme, host, port, addresses) of a URL the service may call: http(s) only, with
    every address the host resolves to public (not loopback, private, link-local,
    metadata, shared or reserved) unless ``allow_private``."""
    def refuse(problem: str) -> WebhookUrlNotAllowed:
        return WebhookUrlNotAllowed(f"url: {problem}", field="url", problem=problem)

    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise refuse(f"not a URL ({exc})") from exc
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise refuse("must be an http:// or https:// URL with a host")
    if parts.username or parts.password:
        raise refuse("must not carry a user name or password")
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        found = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise refuse(f"the host {parts.hostname!r} does not resolve") from exc
    addresses = list(dict.fromkeys(str(info[4][0]) for info in found))
    if not allow_private:
        for address in addresses:
            if not _public(address):
                raise refuse(f"{parts.hostname} resolves to {address}, which is not a "
                             "public address (a deployment whose receivers are on its own "
                             "network sets BASRA_WEBHOOKS_ALLOW_PRIVATE=1)")
    return parts.scheme, parts.hostname, port, addresses


# ---- the tenant's endpoints ------------------------------------------------------


def _info(row: Webhook, secret: str | None = None) -> WebhookInfo:
    return WebhookInfo(row.id, row.url, list(row.events), as_utc(row.created_at),
                       as_utc(row.disabled_at) if row.disabled_at else None,
                       as_utc(row.paused_at) if row.paused_at else None, secret)


def create_webhook(tenant: int, url: str, events: list[str],
                   allow_private: bool) -> WebhookInfo:
    """A new webhook and its signing secret (shown only now)."""
    resolve(url, allow_private)
    secret = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
    with transaction(write=True):
        row = Webhook(id=str(uuid.uuid4()), tenant_pk=tenant, url=url,
                      events=sorted(set(events), key=EVENTS.index), secret=secret,
                      created_at=utcnow(), failed_in_a_row=0)
        db.session.add(row)
        db.session.flush()
        made = _info(row, secret)
    cache.forget(tenant)
    return made


def list_webhooks(tenant: int) -> list[WebhookInfo]:
    """The tenant's webhooks, oldest first."""
    with transaction():
        rows = db.session.scalars(select(Webhook).where(Webhook.tenant_pk == tenant)
                                  .order_by(Webhook.pk))
        return [_info(row) for row in rows]


def _find(tenant: int, webhook_id: str) -> Webhook:
    row = db.session.scalar(select(Webhook).where(Webhook.id == webhook_id,
                                                  Webhook.tenant_pk == tenant))
    if row is None:
        raise WebhookNotFound(f"no webhook {webhook_id!r}")
    return row


def delete_webhook(tenant: int, webhook_id: str) -> None:
    """Delete a webhook with its pending messages and attempts."""
    with transaction(write=True):
        row = _find(tenant, webhook_id)
        db.session.execute(delete(WebhookAttempt).where(WebhookAttempt.webhook_pk == row.pk))
        db.session.execute(delete(WebhookMessage).where(WebhookMessage.webhook_pk == row.pk))
        db.session.execute(delete(Webhook).where(Webhook.pk == row.pk))
    cache.forget(tenant)


def pause_webhook(tenant: int, webhook_id: str, actor: str) -> WebhookInfo:
    """Stop sending for now: messages are still written and wait (the dispatchers see
    it within a second)."""
    with transaction(write=True):
        row = _find(tenant, webhook_id)
        if row.paused_at is None:
            row.paused_at = utcnow()
            audit.record(tenant, actor, "webhook.paused", f"webhook:{webhook_id}")
        paused = _info(row)
    cache.forget(tenant)
    return paused


def resume_webhook(tenant: int, webhook_id: str, actor: str) -> WebhookInfo:
    """Send again: a paused webhook, or one disabled after failing (its count of
    failures starts again); what waited is sent from the oldest."""
    with transaction(write=True):
        row = _find(tenant, webhook_id)
        if row.paused_at is not None or row.disabled_at is not None:
            audit.record(tenant, actor, "webhook.resumed", f"webhook:{webhook_id}",
                         was="paused" if row.paused_at else "disabled")
            row.paused_at = row.disabled_at = None
            row.failed_in_a_row = 0
        resumed = _info(row)
    cache.forget(tenant)
    return resumed


def _message(row: Webhook, message_id: str) -> WebhookMessage:
    found = db.session.scalar(select(WebhookMessage).where(
        WebhookMessage.webhook_pk == row.pk, WebhookMessage.msg_id == message_id))
    if found is None:
        raise DeliveryNotFound(f"no delivery {message_id[:64]!r} of this webhook")
    return found


def _again() -> dict[str, Any]:
    """A message made due now, holding no lane: a resend goes out on its own."""
    return {"status": MessageStatus.PENDING, "next_attempt_at": utcnow(),
            "holds_lane": False}


def delivery(tenant: int, webhook_id: str, message_id: str) -> DeliveryInfo:
    """One message of the webhook with every try at it, oldest first."""
    with transaction():
        row = _find(tenant, webhook_id)
        return _delivery(_message(row, message_id))


def _delivery(message: WebhookMessage) -> DeliveryInfo:
    tries = db.session.execute(
        select(WebhookAttempt.at, WebhookAttempt.status_code, WebhookAttempt.error,
               WebhookAttempt.duration_ms)
        .where(WebhookAttempt.message_pk == message.pk).order_by(WebhookAttempt.pk))
    return DeliveryInfo(message.msg_id, message.type, message.status,
                        as_utc(message.created_at), as_utc(message.next_attempt_at),
                        [TryInfo(as_utc(at), code, error, ms) for at, code, error, ms in tries])


def retry_delivery(tenant: int, webhook_id: str, message_id: str, actor: str) -> DeliveryInfo:
    """Send one message again now (delivered, failed or still waiting), with its own
    ``webhook-id``, so a receiver that has it already can tell; one more try."""
    with transaction(write=True):
        row = _find(tenant, webhook_id)
        message = _message(row, message_id)
        db.session.execute(WebhookMessage.__table__.update()
                           .where(WebhookMessage.__table__.c.pk == message.pk)
                           .values(**_again()))
        audit.record(tenant, actor, "webhook.retried", f"webhook:{webhook_id}",
                     delivery=message_id)
        db.session.refresh(message)
        return _delivery(message)


RECOVER_AT_MOST = 10_000
"""Failed messages one recovery sends again: a call says whether more are left."""


def recover(tenant: int, webhook_id: str, since: datetime, actor: str) -> tuple[int, bool]:
    """Send again every message of the webhook that ran out of tries since ``since``
    (the oldest :data:`RECOVER_AT_MOST` of them): how many, and whether more are left."""
    messages = WebhookMessage.__table__
    with transaction(write=True):
        row = _find(tenant, webhook_id)
        failed = (select(messages.c.pk)
                  .where(messages.c.webhook_pk == row.pk,
                         messages.c.status == MessageStatus.FAILED,
                         messages.c.created_at >= since)
                  .order_by(messages.c.pk).limit(RECOVER_AT_MOST + 1))
        pks = list(db.session.scalars(failed))
        chosen = pks[:RECOVER_AT_MOST]
        if chosen:
            db.session.execute(messages.update().where(messages.c.pk.in_(chosen))
                               .values(**_again()))
        audit.record(tenant, actor, "webhook.recovered", f"webhook:{webhook_id}",
                     since=since.isoformat(), messages=len(chosen))
    return len(chosen), len(pks) > RECOVER_AT_MOST


def webhook_attempts(tenant: int, webhook_id: str, limit: int = 100) -> list[AttemptInfo]:
    """The webhook's latest delivery attempts, newest first."""
    with transaction():
        return _attempts(_find(tenant, webhook_id), limit)


def _attempts(row: Webhook, limit: int) -> list[AttemptInfo]:
    found = db.session.execute(
        select(WebhookMessage.msg_id, WebhookMessage.type, WebhookMessage.status,
               WebhookAttempt.at, WebhookAttempt.status_code, WebhookAttempt.error,
               WebhookAttempt.duration_ms)
        .join(WebhookMessage, WebhookMessage.pk == WebhookAttempt.message_pk)
        .where(WebhookAttempt.webhook_pk == row.pk)
        .order_by(WebhookAttempt.pk.desc()).limit(limit)
    )
    return [AttemptInfo(m, t, s, as_utc(at), code, error, ms)
            for m, t, s, at, code, error, ms in found]


# ---- an erasure --------------------------------------------------------------------


def scrub(tenant: int, needles: Sequence[str], rewrite: Callable[[str, Any], Any]) -> None:
    """Rewrite the data of the tenant's kept messages that hold any of ``needles`` (an
    erased player's id, the matches they sat in) with ``rewrite(kind, data)``, in the
    caller's write transaction."""
    mine = select(Webhook.pk).where(Webhook.tenant_pk == tenant)
    writes.rewrite_json_text(
        WebhookMessage.body, WebhookMessage.type, WebhookMessage.webhook_pk.in_(mine), needles,
        lambda kind, body: {**body, "data": rewrite(kind, body.get("data"))})
