"""Reports: a player seated in a match reports another seat of it (once per match and
player) for the front end's staff, who read it with its evidence and resolve it once:
dismissed, the reported player suspended, or the match voided."""

from __future__ import annotations

import uuid
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ..events import publish
from ..matches import service as matches
from ..matches.results import MatchSummary
from ..matches.service import MatchRecord
from ..settings import Settings
from ..storage import cursors
from ..storage.base import as_utc, utcnow
from ..storage.db import db, transaction
from ..tenants import audit
from . import service as safety
from .enums import ReportAction, ReportReason, ReportStatus
from .errors import AlreadyReported, BadCursor, NotReportable, ReportNotFound, ReportResolved
from .models import Report


@dataclass(frozen=True)
class ReportView:
    """A report, and (read one by one) its evidence."""

    id: str
    match_id: str
    reporter: str
    player_id: str
    reason: ReportReason
    text: str | None
    status: ReportStatus
    created_at: datetime
    resolved_at: datetime | None
    resolution: dict[str, Any] | None
    evidence: Evidence | None = None
    details: dict[str, Any] | None = None


@dataclass(frozen=True)
class Evidence:
    """What staff need to judge a report: the match's whole record (every hand once it
    is over), and the two players' other recent matches, together and apart."""

    match: MatchRecord
    together: list[MatchSummary]
    reporter_recent: list[MatchSummary]
    player_recent: list[MatchSummary]


RECENT = 20
"""Each player's recent matches shown, and the matches looked through for those the
two played together."""


def file(tenant: int, reporter: str, match_id: str, player_id: str, reason: ReportReason,
         text: str | None) -> ReportView:
    """``reporter`` (seated in the match, as a vouched player) reports ``player_id``
    (another seat of it): the report, and a ``report.created`` webhook."""
    record = matches.match_record(match_id, tenant)
    seated = {s.player_id for s in record.view.seats if s.player_id}
    if reporter not in seated:
        raise NotReportable("only a player seated in the match may report one of its seats",
                            field="match_id", problem="you hold no seat in it")
    if player_id not in seated or player_id == reporter:
        raise NotReportable(f"{player_id!r} holds no other seat of this match",
                            field="player_id", problem="not another seat of the match")
    now = utcnow()
    report_id = str(uuid.uuid4())
    try:
        with transaction(write=True):
            match_pk = matches.match_pk(tenant, match_id)
            row = Report(id=report_id, tenant_pk=tenant, match_pk=match_pk,
                         reporter=reporter, player_id=player_id, reason=reason, text=text,
                         status=ReportStatus.OPEN, created_at=now)
            db.session.add(row)
            db.session.flush()  # a report made already (at once too): its unique index says
            matches.keep(match_pk)  # its moves outlive any retention: the evidence
            audit.record(tenant, f"player:{reporter}", "report.filed", f"report:{report_id}",
                         match_id=match_id, player_id=player_id, reason=str(reason))
            publish(tenant, "report.created", {
                "report_id": report_id, "match_id": match_id, "reporter": reporter,
                "player_id": player_id, "reason": str(reason), "text": text})
            return _view(row, match_id)
    except IntegrityError as error:
        raise AlreadyReported(f"you already reported {player_id!r} in this match") from error


def _view(row: Report, match_id: str, evidence: Evidence | None = None) -> ReportView:
    return ReportView(row.id, match_id, row.reporter, row.player_id, ReportReason(row.reason),
                      row.text, ReportStatus(row.status), as_utc(row.created_at),
                      as_utc(row.resolved_at) if row.resolved_at else None,
                      dict(row.resolution) if row.resolution else None, evidence,
                      dict(row.details) if row.details else None)


SERVICE = "fair-play"
"""The reporter of the reports the service files itself."""


def flag(tenant: int, match_ids: list[str], player_id: str, text: str,
         details: dict[str, Any]) -> str:
    """A report filed by the service (fair play's flag) about ``player_id`` in the last
    of ``match_ids``, ``details`` its evidence; every one of the matches kept whatever
    the retention. In the caller's write transaction; the report's id."""
    report_id = str(uuid.uuid4())
    pks = [pk for pk in (matches.match_pk(tenant, m) for m in match_ids) if pk is not None]
    db.session.add(Report(id=report_id, tenant_pk=tenant, match_pk=pks[-1], reporter=SERVICE,
                          player_id=player_id, reason=ReportReason.FAIR_PLAY, text=text,
                          status=ReportStatus.OPEN, created_at=utcnow(), details=details))
    for pk in pks:
        matches.keep(pk)  # the evidence outlives any retention
    audit.record(tenant, SERVICE, "report.filed", f"report:{report_id}",
                 match_id=match_ids[-1], player_id=player_id, reason=str(ReportReason.FAIR_PLAY))
    publish(tenant, "report.created", {
        "report_id": report_id, "match_id": match_ids[-1], "reporter": SERVICE,
        "player_id": player_id, "reason": str(ReportReason.FAIR_PLAY), "text": text})
    return report_id


@dataclass(frozen=True)
class ReportPage:
    reports: list[ReportView]
    next: str | None


_CURSOR = "reports"


def listing(tenant: int, key: bytes, status: ReportStatus | None, player_id: str | None,
            cursor: str | None, limit: int, reporter: str | None = None) -> ReportPage:
    """The front end's reports, oldest first (a queue), by cursor; only those about
    ``player_id`` or by ``reporter`` if named."""
    query = select(Report).where(Report.tenant_pk == tenant)
    if status is not None:
        query = query.where(Report.status == status)
    if player_id is not None:
        query = query.where(Report.player_id == player_id)
    if reporter is not None:
        query = query.where(Report.reporter == reporter)
    if cursor is not None:
        try:
            after = cursors.read_number(_CURSOR, cursor, key, below=2**63)
        except ValueError as error:
            raise BadCursor("the cursor is not one this service issued", field="cursor",
                                 problem="unknown cursor") from error
        query = query.where(Report.pk > after)
    with transaction():
        rows = db.session.execute(query.order_by(Report.pk).limit(limit + 1)).scalars().all()
        ids = matches.match_ids(r.match_pk for r in rows[:limit])
    page = rows[:limit]
    return ReportPage([_view(r, ids[r.match_pk]) for r in page],
                      cursors.sign(_CURSOR, str(page[-1].pk), key)
                      if len(rows) > limit else None)


def _find(tenant: int, report_id: str, lock: bool = False) -> tuple[Report, str]:
    query = select(Report).where(Report.tenant_pk == tenant, Report.id == report_id)
    found = db.session.execute(query.with_for_update() if lock else query).scalar()
    if found is None:
        raise ReportNotFound(f"no report {report_id!r}")
    return found, matches.match_ids([found.match_pk])[found.match_pk]


def read(tenant: int, report_id: str, *, settings: Settings) -> ReportView:
    """A report with its evidence."""
    with transaction():
        row, match_id = _find(tenant, report_id)
    record = matches.match_record(match_id, tenant)
    mine = _recent(tenant, row.reporter, RECENT, settings)
    theirs = _recent(tenant, row.player_id, RECENT, settings)
    together = [m for m in theirs if m.id != match_id
                and row.reporter in {s.player_id for s in m.seats}]
    return _view(row, match_id, Evidence(record, together,
                                         [m for m in mine if m.id != match_id],
                                         [m for m in theirs if m.id != match_id]))


def _recent(tenant: int, player_id: str, limit: int, settings: Settings) -> list[MatchSummary]:
    return list(matches.player_matches(tenant, player_id, limit=limit,
                                       settings=settings).matches)


def resolve(tenant: int, report_id: str, action: ReportAction, note: str | None,
            actor: str, *, until: datetime | None = None, forfeit: bool = False) -> ReportView:
    """Resolve an open report, once: ``dismiss``; ``suspend`` the reported player (until
    ``until``, or for good; ``forfeit`` their active matches); ``void`` the match."""
    with transaction(write=True):  # resolved before it is acted on: once, whoever races
        row, match_id = _find(tenant, report_id, lock=True)
        if row.status != ReportStatus.OPEN:
            raise ReportResolved(f"report {report_id!r} was resolved already")
        row.status, row.resolved_at = ReportStatus.RESOLVED, utcnow()
        row.resolution = {"action": str(action), "note": note, "by": actor}
        if action == ReportAction.SUSPEND:
            row.resolution |= {"until": until.isoformat() if until else None,
                               "forfeit": forfeit}
        audit.record(tenant, actor, "report.resolved", f"report:{report_id}",
                     action=str(action), note=note)
        reported, reason = row.player_id, f"report {report_id}: {row.reason}"
        resolved = _view(row, match_id)
    try:
        if action == ReportAction.SUSPEND:
            safety.suspend(tenant, reported, until, note or reason, forfeit, actor)
        elif action == ReportAction.VOID:
            safety.void(tenant, match_id, note or reason, actor)
    except Exception:
        with suppress(Exception):  # not done: open again, to be resolved again
            _reopen(tenant, report_id, actor)
        raise
    return resolved


def _reopen(tenant: int, report_id: str, actor: str) -> None:
    with transaction(write=True):
        row, _ = _find(tenant, report_id, lock=True)
        row.status, row.resolved_at, row.resolution = ReportStatus.OPEN, None, None
        audit.record(tenant, actor, "report.reopened", f"report:{report_id}",
                     why="its action failed")
