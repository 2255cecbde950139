"""The Idempotency-Keys kept in the database: a move's (a seat's key, written with its
change by :mod:`.saves`) found again, a create's found and recorded with the match it
made, and the expired ones of both purged. It runs inside the transaction its caller
opened (:mod:`service.storage.db`); how long a key is honoured is :mod:`.conditions`'.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select, tuple_
from sqlalchemy.dialects import postgresql, sqlite

from ..storage.base import as_utc, utcnow
from ..storage.db import backend, db
from .models import CreateKey, IdempotencyKey, Match


def find_idempotent(match_pk: int, seat: int, key: str, since: datetime) -> IdempotencyKey | None:
    """The record of this seat's Idempotency-Key if it was used at or after ``since``
    (older keys have expired)."""
    found = db.session.get(IdempotencyKey, (match_pk, seat, key))
    if found is None or as_utc(found.created_at) < since:
        return None
    return found


def purge_idempotency(before: datetime, limit: int = 10_000) -> int:
    """Delete up to ``limit`` idempotency records (of moves, and of creates) made before
    ``before``; how many."""
    purged = 0
    for table, columns in (
            (IdempotencyKey, (IdempotencyKey.match_pk, IdempotencyKey.seat, IdempotencyKey.key)),
            (CreateKey, (CreateKey.tenant_pk, CreateKey.caller, CreateKey.key))):
        old = select(*columns).where(table.created_at < before).limit(limit)
        result = db.session.execute(delete(table).where(tuple_(*columns).in_(old)))
        purged += int(result.rowcount or 0)  # type: ignore[attr-defined]
    return purged


@dataclass(frozen=True)
class CreateRecord:
    """A create's Idempotency-Key as stored: the body's fingerprint, the match it made
    and what its seat tokens were derived from."""

    fingerprint: str
    match_id: str
    salt: str
    token_check: str


def find_create(tenant: int, caller: str, key: str, since: datetime) -> CreateRecord | None:
    """The record of a caller's create Idempotency-Key if it was used at or after
    ``since`` (older keys have expired)."""
    row = db.session.execute(
        select(CreateKey.fingerprint, Match.id, CreateKey.salt, CreateKey.token_check,
               CreateKey.created_at).join(Match, Match.pk == CreateKey.match_pk)
        .where(CreateKey.tenant_pk == tenant, CreateKey.caller == caller,
               CreateKey.key == key)).first()
    if row is None or as_utc(row[4]) < since:
        return None
    return CreateRecord(*row[:4])


def remember_create(tenant: int, caller: str, key: str, record: CreateRecord, match_pk: int,
                    since: datetime) -> bool:
    """Record a create's Idempotency-Key with the match it made (an expired record of the
    key is replaced); False if a record made at or after ``since`` holds it already (a
    concurrent create with the key made its match first)."""
    mine = (CreateKey.tenant_pk == tenant, CreateKey.caller == caller, CreateKey.key == key)
    db.session.execute(delete(CreateKey).where(*mine, CreateKey.created_at < since))
    dialect = postgresql if backend() == "postgresql" else sqlite
    stmt = dialect.insert(CreateKey).values(
        tenant_pk=tenant, caller=caller, key=key, fingerprint=record.fingerprint,
        match_pk=match_pk, salt=record.salt, token_check=record.token_check,
        created_at=utcnow()).on_conflict_do_nothing()
    return bool(db.session.execute(stmt).rowcount)  # type: ignore[attr-defined]
