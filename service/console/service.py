"""What the console's overview counts for a front end: each figure one indexed count."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select

from ..storage.db import db, transaction
from ..storage.enums import (
    MatchStatus,
    MessageStatus,
    PresenceStatus,
    ReportStatus,
    TournamentStatus,
)
from ..storage.models import (
    Match,
    Presence,
    Report,
    Tournament,
    Webhook,
    WebhookMessage,
    utcnow,
)


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


def overview(tenant: int) -> Overview:
    """The front end's matches, players, reports, tournaments and webhooks now; "today"
    is since midnight UTC (a match finished today was made within the last two days)."""
    now = utcnow()
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    count = func.count()
    with transaction():
        by_status = dict(db.session.execute(
            select(Match.status, count).where(
                Match.tenant_pk == tenant,
                Match.status.in_([MatchStatus.ACTIVE, MatchStatus.WAITING]))
            .group_by(Match.status)).all())
        quick = db.session.scalar(select(count).select_from(Match).where(
            Match.tenant_pk == tenant, Match.status == MatchStatus.WAITING, Match.quick))
        finished = db.session.scalar(select(count).select_from(Match).where(
            Match.created_at >= midnight - timedelta(days=1), Match.tenant_pk == tenant,
            Match.status == MatchStatus.FINISHED, Match.finished_at >= midnight))
        present = dict(db.session.execute(
            select(Presence.status, count).where(Presence.tenant_pk == tenant)
            .group_by(Presence.status)).all())
        reports = db.session.scalar(select(count).select_from(Report).where(
            Report.tenant_pk == tenant, Report.status == ReportStatus.OPEN))
        running = db.session.scalar(select(count).select_from(Tournament).where(
            Tournament.tenant_pk == tenant, Tournament.status == TournamentStatus.RUNNING))
        messages = dict(db.session.execute(
            select(WebhookMessage.status, count)
            .join(Webhook, Webhook.pk == WebhookMessage.webhook_pk)
            .where(Webhook.tenant_pk == tenant,
                   (WebhookMessage.status == MessageStatus.PENDING)
                   | (WebhookMessage.created_at >= midnight))
            .group_by(WebhookMessage.status)).all())
    return Overview(
        now, by_status.get(MatchStatus.ACTIVE, 0), by_status.get(MatchStatus.WAITING, 0),
        quick or 0, finished or 0,
        present.get(PresenceStatus.ONLINE, 0) + present.get(PresenceStatus.PLAYING, 0),
        present.get(PresenceStatus.PLAYING, 0), reports or 0, running or 0,
        messages.get(MessageStatus.PENDING, 0), messages.get(MessageStatus.FAILED, 0))
