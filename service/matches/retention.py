"""A finished match's moves kept for the retention the operator sets
(``BASRA_RETENTION_DAYS_MOVES``, 0: for ever), and those of a match a report points to
(:func:`keep`) whatever the retention.

On PostgreSQL the move log is partitioned by the day a move was made and a day wholly
older than the retention is dropped (``storage/partitions.py``); before the drop, the
moves of a match still in play, finished within the retention, or kept move into the
default partition, where they stay until their match is past the retention too (a long
match's early moves are never lost while it goes on). On SQLite the same moves are deleted.
A match's row (its result, scores and last state) stays: only its log goes.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import update

from ..storage import partitions
from ..storage.base import utcnow
from ..storage.db import db
from .models import Match

HELD = ("EXISTS (SELECT 1 FROM matches m WHERE m.pk = match_pk AND "
        "(m.finished_at IS NULL OR m.finished_at >= :before OR m.kept))")
"""The moves a retention keeps: their match in play, over since the cut, or kept."""


def keep(match_pk: int) -> None:
    """Keep the match's moves whatever the retention, in the caller's write transaction
    (a report points to it); no retention's drop runs meanwhile."""
    partitions.hold_off("moves")
    db.session.execute(update(Match).where(Match.pk == match_pk).values(kept=True))


def make_days() -> list[str]:
    """The move log's days ahead, made (PostgreSQL)."""
    return partitions.make_ahead("moves", "created_at")


def expire_moves(days: int) -> partitions.Expired:
    """Remove the moves of matches over more than ``days`` ago (nothing with 0), but those
    kept."""
    if days <= 0:
        return partitions.Expired()
    return partitions.expire("moves", "created_at", utcnow() - timedelta(days=days), HELD)
