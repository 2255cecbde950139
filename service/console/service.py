"""What the console's overview counts for a front end: each figure one indexed count."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, literal_column, select

from ..matches.enums import MatchStatus
from ..matches.models import Match
from ..players.enums import PresenceStatus
from ..players.models import Presence
from ..safety.enums import ReportStatus
from ..safety.models import Report
from ..storage.base import utcnow
from ..storage.db import db, transaction
from ..tournaments.enums import TournamentStatus
from ..tournaments.models import Tournament
from ..webhooks.enums import MessageStatus
from ..webhooks.models import Webhook, WebhookMessage


@dataclass(frozen=True)
class HourCount:
    """How many of a front end's matches started in the hour from ``hour``."""

    hour: datetime
    matches: int


HOURS = 12
"""The hours the overview's chart covers, this one included."""


@dataclass(frozen=True)
class Overview:
    """A front end at a glance."""

    at: datetime
    matches_active: int
    matches_waiting: int
    quick_play_waiting: int
    matches_finished_today: int
    players_online: int
    players_playing: int
    reports_open: int
    tournaments_running: int
    webhook_backlog: int
    webhook_failed_today: int
    started_by_hour: list[HourCount]


COUNTED_UP_TO = 10_000
"""Each figure is counted up to this (a front end with more sees this many): so the
overview costs the same at any scale; the operators' metrics have the totals."""


def _count(*where: Any, table: Any = Match) -> int:
    """The rows matching ``where``, counted up to :data:`COUNTED_UP_TO`."""
    found = select(literal_column("1")).select_from(table).where(*where).limit(COUNTED_UP_TO)
    return int(db.session.scalar(select(func.count()).select_from(found.subquery())) or 0)


def overview(tenant: int) -> Overview:
    """The front end's matches, players, reports, tournaments and webhooks now; "today"
    is since midnight UTC (a match finished today was made within the last two days)."""
    now = utcnow()
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    ours = Match.tenant_pk == tenant
    with transaction():
        active = _count(ours, Match.status == MatchStatus.ACTIVE)
        waiting = _count(ours, Match.status == MatchStatus.WAITING)
        quick = _count(ours, Match.status == MatchStatus.WAITING, Match.quick)
        finished = _count(Match.created_at >= midnight - timedelta(days=1), ours,
                          Match.status == MatchStatus.FINISHED, Match.finished_at >= midnight)
        present = Presence.tenant_pk == tenant
        online = _count(present, Presence.status.in_(
            [PresenceStatus.ONLINE, PresenceStatus.PLAYING]), table=Presence)
        playing = _count(present, Presence.status == PresenceStatus.PLAYING, table=Presence)
        reports = _count(Report.tenant_pk == tenant, Report.status == ReportStatus.OPEN,
                         table=Report)
        running = _count(Tournament.tenant_pk == tenant,
                         Tournament.status == TournamentStatus.RUNNING, table=Tournament)
        hooks = select(Webhook.pk).where(Webhook.tenant_pk == tenant)
        mine = WebhookMessage.webhook_pk.in_(hooks.scalar_subquery())
        backlog = _count(mine, WebhookMessage.status == MessageStatus.PENDING,
                         table=WebhookMessage)
        failed = _count(mine, WebhookMessage.status == MessageStatus.FAILED,
                        WebhookMessage.created_at >= midnight, table=WebhookMessage)
        hourly = _started_by_hour(ours, now)
    return Overview(now, active, waiting, quick, finished, online, playing, reports, running,
                    backlog, failed, hourly)


def _started_by_hour(ours: Any, now: datetime) -> list[HourCount]:
    """Matches started in each of the last :data:`HOURS` hours: the first match of each
    hour found by the time index, then the front end's among them counted by its own
    index of match numbers (numbers grow with time), each hour up to the cap."""
    top = now.replace(minute=0, second=0, microsecond=0)
    hours = [top - timedelta(hours=n) for n in range(HOURS - 1, -1, -1)]
    first = [select(Match.pk).where(Match.created_at >= hour).order_by(Match.created_at)
             .limit(1).scalar_subquery() for hour in hours]  # the time index's first entry
    last = select(func.coalesce(func.max(Match.pk), 0) + 1).scalar_subquery()
    starts = [pk for pk in db.session.execute(select(*first, last)).one()]
    bounds = [pk if pk is not None else starts[-1] for pk in starts]
    counts = db.session.execute(select(*[
        select(func.count()).select_from(
            select(literal_column("1")).select_from(Match)
            .where(ours, Match.pk >= low, Match.pk < high).limit(COUNTED_UP_TO).subquery()
        ).scalar_subquery()
        for low, high in zip(bounds, bounds[1:], strict=False)])).one()
    return [HourCount(hour, int(n)) for hour, n in zip(hours, counts, strict=True)]
