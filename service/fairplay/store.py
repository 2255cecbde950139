"""Fair play in the database: graded seats, the chore's progress and the flags filed.
Rows only; it runs inside the transaction its caller opened."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.dialects import postgresql, sqlite

from ..storage.base import as_utc, utcnow
from ..storage.db import backend, db
from .models import FairPlayFlag, FairPlayProgress, FairPlaySeat
from .signals import MatchSignals, SeatSignals

_S = FairPlaySeat.__table__
_F = FairPlayFlag.__table__
_P = FairPlayProgress.__table__


def _insert(table: Any) -> Any:
    return postgresql.insert(table) if backend() == "postgresql" else sqlite.insert(table)


def graded(match_pks: Iterable[int]) -> set[int]:
    """Those of these matches already graded."""
    pks = list(match_pks)
    if not pks:
        return set()
    return set(db.session.execute(select(_S.c.match_pk).distinct().where(
        _S.c.match_pk.in_(pks))).scalars())


def add(tenant: int, match_pk: int, finished_at: datetime, signals: MatchSignals) -> None:
    """A graded match's seats (once: a second worker's are ignored)."""
    rows = [{"match_pk": match_pk, "seat": s.seat, "tenant_pk": tenant,
             "match_id": signals.match_id, "player_id": s.player, "pool": signals.pool,
             "finished_at": finished_at, "signals": s.__dict__,
             "coins": int(signals.coins.get(s.player, 0))} for s in signals.seats]
    if rows:
        db.session.execute(_insert(_S).values(rows).on_conflict_do_nothing())


def skip(tenant: int, match_pk: int, match_id: str) -> None:
    """A finished rated match fair play leaves out (its pool not chosen, no vouched
    player): marked done, with no seat (seat -1)."""
    db.session.execute(_insert(_S).values(
        match_pk=match_pk, seat=-1, tenant_pk=tenant, match_id=match_id, player_id="",
        pool="", finished_at=utcnow(), signals={}, coins=0).on_conflict_do_nothing())


def _matches(rows: Sequence[Any]) -> list[MatchSignals]:
    seats: dict[str, list[Any]] = defaultdict(list)
    for row in rows:
        seats[row.match_id].append(row)
    out = []
    for match_id, mine in seats.items():
        out.append(MatchSignals(match_id, mine[0].pool,
                                tuple(SeatSignals(**r.signals) for r in mine),
                                {r.player_id: r.coins for r in mine}))
    return out


def pool_recent(tenant: int, pool: str, since: datetime, limit: int) -> list[MatchSignals]:
    """The pool's graded matches finished since ``since`` (at most ``limit`` seats, the
    newest), oldest first."""
    rows = db.session.execute(select(_S).where(
        _S.c.tenant_pk == tenant, _S.c.pool == pool, _S.c.finished_at >= since,
    ).order_by(_S.c.finished_at.desc(), _S.c.match_pk, _S.c.seat).limit(limit)).all()
    return _matches(list(reversed(rows)))


def pools_of(tenant: int, player_id: str) -> list[str]:
    """The pools a player has graded matches in, most played first."""
    rows = db.session.execute(select(_S.c.pool, func.count()).where(
        _S.c.tenant_pk == tenant, _S.c.player_id == player_id).group_by(_S.c.pool)).all()
    return [r[0] for r in sorted(rows, key=lambda r: -r[1])]


def next_pk() -> int:
    """Matches with a key below this were ended and looked at by the chore."""
    found = db.session.execute(select(_P.c.next_pk).where(_P.c.id == 1)).scalar()
    return int(found or 0)


def move_on(pk: int) -> None:
    db.session.execute(_insert(_P).values(id=1, next_pk=pk).on_conflict_do_update(
        index_elements=["id"], set_={"next_pk": pk}))


def flagged(tenant: int, kind: str, subject: str) -> bool:
    return db.session.execute(select(_F.c.pk).where(
        _F.c.tenant_pk == tenant, _F.c.kind == kind, _F.c.subject == subject)).first() \
        is not None


def add_flag(tenant: int, kind: str, subject: str, report_id: str, now: datetime,
             evidence: dict[str, Any]) -> None:
    db.session.execute(_insert(_F).values(
        tenant_pk=tenant, kind=kind, subject=subject, report_id=report_id, flagged_at=now,
        evidence=evidence))


def flags_of(tenant: int, player_id: str) -> list[dict[str, Any]]:
    """The flags filed about a player (alone or in a pair), newest first."""
    rows = db.session.execute(select(_F).where(_F.c.tenant_pk == tenant).where(
        (_F.c.subject == player_id) | _F.c.subject.like(f"{player_id}|%")
        | _F.c.subject.like(f"%|{player_id}")).order_by(_F.c.pk.desc())).all()
    return [{"kind": r.kind, "subject": r.subject, "report_id": r.report_id,
             "flagged_at": as_utc(r.flagged_at)} for r in rows]
