"""Reviews in the database: asked for, claimed by a worker, kept. Rows only; it runs inside
the transaction its caller opened."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.dialects import postgresql, sqlite

from ..storage.db import backend, db
from ..storage.enums import ReviewStatus
from ..storage.models import Match, Review, as_utc

_R = Review.__table__


@dataclass(frozen=True)
class ReviewRow:
    """A match's review as kept."""

    status: ReviewStatus
    asked_at: datetime
    ready_at: datetime | None
    plays: tuple[dict[str, Any], ...]
    cpu_ms: float | None


def get(match_pk: int) -> ReviewRow | None:
    """The match's review, if one was asked for."""
    row = db.session.execute(select(_R.c.status, _R.c.asked_at, _R.c.ready_at, _R.c.plays,
                                    _R.c.cpu_ms).where(_R.c.match_pk == match_pk)).first()
    if row is None:
        return None
    return ReviewRow(ReviewStatus(row[0]), as_utc(row[1]),
                     None if row[2] is None else as_utc(row[2]), tuple(row[3] or ()), row[4])


def ask(match_pk: int, tenant: int, now: datetime) -> bool:
    """Ask for the match's review; whether this call asked (not a concurrent one)."""
    values = {"match_pk": match_pk, "tenant_pk": tenant, "status": ReviewStatus.PENDING,
              "asked_at": now}
    insert = postgresql.insert(_R) if backend() == "postgresql" else sqlite.insert(_R)
    done = db.session.execute(insert.values(values).on_conflict_do_nothing())
    return bool(done.rowcount)


def waiting_tenants(stale: datetime) -> list[int]:
    """Front ends with a review to make: pending, and not taken or taken before
    ``stale`` (its worker gone)."""
    rows = db.session.execute(select(_R.c.tenant_pk).distinct().where(
        _R.c.status == ReviewStatus.PENDING,
        (_R.c.started_at.is_(None)) | (_R.c.started_at < stale))).all()
    return [r[0] for r in rows]


def claim(tenant: int, now: datetime, stale: datetime) -> tuple[int, str] | None:
    """Take the front end's review asked longest ago (FOR UPDATE SKIP LOCKED on
    PostgreSQL): (match pk, match id), or None if another worker took them all."""
    stmt = select(_R.c.match_pk, Match.__table__.c.id).join(
        Match.__table__, Match.__table__.c.pk == _R.c.match_pk).where(
        _R.c.tenant_pk == tenant, _R.c.status == ReviewStatus.PENDING,
        (_R.c.started_at.is_(None)) | (_R.c.started_at < stale),
    ).order_by(_R.c.asked_at).limit(1)
    if backend() == "postgresql":
        stmt = stmt.with_for_update(of=_R, skip_locked=True)
    row = db.session.execute(stmt).first()
    if row is None:
        return None
    db.session.execute(update(_R).where(_R.c.match_pk == row[0]).values(started_at=now))
    return row[0], row[1]


def keep(match_pk: int, plays: list[dict[str, Any]], cpu_ms: float, now: datetime) -> None:
    """The review made."""
    db.session.execute(update(_R).where(_R.c.match_pk == match_pk).values(
        status=ReviewStatus.READY, plays=plays, cpu_ms=cpu_ms, ready_at=now))
