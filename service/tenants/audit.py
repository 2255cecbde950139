"""The audit log: what was done to a front end's players, matches, reports and keys, by
whom and when, each entry written in the transaction of what it records (so an action
and its entry stand or fall together), read by the front end by cursor."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Text, cast, select, update

from ..storage import cursors
from ..storage.base import as_utc, utcnow
from ..storage.db import db
from .models import AuditEntry

COMMAND_LINE = "cli"
"""The actor of what the ``basra`` command does."""


def record(tenant: int, actor: str, action: str, subject: str, /, **details: Any) -> None:
    """Record an action in the caller's write transaction: ``actor`` (``key:<prefix>``,
    ``player:<id>``, ``cli``), ``action`` (``player.suspended``...), ``subject``
    (``player:<id>``, ``match:<id>``, ``report:<id>``, ``keys``)."""
    db.session.add(AuditEntry(tenant_pk=tenant, at=utcnow(), actor=actor[:160],
                              action=action, subject=subject[:200], details=details))


@dataclass(frozen=True)
class Entry:
    """An audit entry as the front end reads it."""

    id: int
    at: datetime
    actor: str
    action: str
    subject: str
    details: dict[str, Any]


@dataclass(frozen=True)
class AuditPage:
    entries: Sequence[Entry]
    next: str | None


_CURSOR = "audit"


def page(tenant: int, key: bytes, *, cursor: str | None, limit: int,
         action: str | None = None, subject: str | None = None) -> AuditPage:
    """A page of the front end's audit log, newest first, by cursor; only ``action``'s
    and ``subject``'s entries if named (caller's transaction). A cursor this service
    did not sign: ValueError."""
    query = select(AuditEntry).where(AuditEntry.tenant_pk == tenant)
    if cursor is not None:
        query = query.where(AuditEntry.pk < cursors.read_number(_CURSOR, cursor, key,
                                                                below=2**63))
    if action is not None:
        query = query.where(AuditEntry.action == action)
    if subject is not None:
        query = query.where(AuditEntry.subject == subject)
    rows = db.session.execute(query.order_by(AuditEntry.pk.desc()).limit(limit + 1)
                              ).scalars().all()
    entries = [Entry(r.pk, as_utc(r.at), r.actor, r.action, r.subject, dict(r.details or {}))
               for r in rows[:limit]]
    more = len(rows) > limit
    return AuditPage(entries, cursors.sign(_CURSOR, str(entries[-1].id), key)
                     if more else None)


@dataclass(frozen=True)
class Done:
    """An entry of the audit log about a player, as their export holds it."""

    at: datetime
    action: str
    details: dict[str, Any]


def done_to(tenant: int, player_id: str) -> list[Done]:
    """What the audit log says was done to the player, oldest first (caller's
    transaction): a player's export."""
    return [Done(as_utc(e.at), e.action, e.details) for e in db.session.execute(
        select(AuditEntry).where(AuditEntry.tenant_pk == tenant,
                                 AuditEntry.subject == f"player:{player_id}")
        .order_by(AuditEntry.pk)).scalars()]


def pseudonymize(tenant: int, player_id: str, pseudonym: str) -> None:
    """The erased player's id replaced in the audit log: as its subject, its actor, and in
    the details of other entries (a block of them, a report by or of them); caller's
    write transaction."""
    me, them = f"player:{player_id}", f"player:{pseudonym}"
    db.session.execute(update(AuditEntry).where(
        AuditEntry.tenant_pk == tenant, AuditEntry.subject == me).values(subject=them))
    db.session.execute(update(AuditEntry).where(
        AuditEntry.tenant_pk == tenant, AuditEntry.actor == me).values(actor=them))
    quoted = json.dumps(player_id)
    for entry in db.session.execute(select(AuditEntry).where(
            AuditEntry.tenant_pk == tenant,
            cast(AuditEntry.details, Text).contains(quoted))).scalars():
        entry.details = {k: pseudonym if v == player_id else v
                         for k, v in (entry.details or {}).items()}
