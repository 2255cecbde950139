"""Reviews in the database: asked for, claimed by a worker, kept. Rows only; it runs inside
the transaction its caller opened."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.dialects import postgresql, sqlite

from ..storage.base import as_utc
from ..storage.db import backend, db
from .enums import ReviewStatus
from .models import Review

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


def _takeable(stale: datetime) -> Any:
    """Pending and not taken, or taken before ``stale`` (its worker gone)."""
    return (_R.c.status == ReviewStatus.PENDING) \
        & ((_R.c.started_at.is_(None)) | (_R.c.started_at < stale))


def waiting_tenants(stale: datetime) -> list[int]:
    """Front ends with a review to make."""
    rows = db.session.execute(select(_R.c.tenant_pk).distinct().where(_takeable(stale))).all()
    return [r[0] for r in rows]


@dataclass(frozen=True)
class Claim:
    """A review a worker took: its match, and the moment it took it (its claim)."""

    match_pk: int
    match_id: str
    taken_at: datetime
    attempts: int


def claim(tenant: int, now: datetime, stale: datetime,
          match_ids: Callable[[Iterable[int]], dict[int, str]]) -> Claim | None:
    """Take the front end's review asked longest ago (FOR UPDATE SKIP LOCKED on
    PostgreSQL), or None if another worker took them all; ``match_ids`` names its match
    (the matches' use case: their rows are theirs)."""
    stmt = select(_R.c.match_pk, _R.c.attempts).where(
        _R.c.tenant_pk == tenant, _takeable(stale)).order_by(_R.c.asked_at).limit(1)
    if backend() == "postgresql":
        stmt = stmt.with_for_update(of=_R, skip_locked=True)
    row = db.session.execute(stmt).first()
    if row is None:
        return None
    db.session.execute(update(_R).where(_R.c.match_pk == row[0]).values(
        started_at=now, attempts=row[1] + 1))
    return Claim(row[0], match_ids([row[0]])[row[0]], now, row[1] + 1)


def keep(taken: Claim, plays: list[dict[str, Any]], cpu_ms: float, now: datetime) -> bool:
    """The review made, if the claim is still this worker's; whether it was kept."""
    done = db.session.execute(update(_R).where(
        _R.c.match_pk == taken.match_pk, _R.c.started_at == taken.taken_at,
        _R.c.status == ReviewStatus.PENDING,
    ).values(status=ReviewStatus.READY, plays=plays, cpu_ms=cpu_ms, ready_at=now))
    return bool(done.rowcount)


def give_up(taken: Claim, failed: bool) -> None:
    """A review that could not be made: to be taken again at once, or ``failed``."""
    db.session.execute(update(_R).where(
        _R.c.match_pk == taken.match_pk, _R.c.started_at == taken.taken_at).values(
        started_at=None, status=ReviewStatus.FAILED if failed else ReviewStatus.PENDING))
