"""The social chores for ``basra worker``: challenges not answered in time marked
expired, and both players told; players whose streams all closed told offline to their
friends (a sweep at most once a second)."""

from __future__ import annotations

import time

from sqlalchemy import select

from ..events import publish
from ..storage.base import utcnow
from ..storage.db import db, transaction
from .challenges import event_data, view_of
from .enums import ChallengeStatus
from .models import Challenge
from .presence import sweep

BATCH = 100
"""Challenges expired in one transaction at most (more: the next pass)."""


def expire_challenges() -> int:
    """Mark the challenges past their time expired (each once, whichever worker; others'
    rows skipped while locked), telling both players ``challenge.expired``; how many."""
    now = utcnow()
    with transaction(write=True):
        due = db.session.execute(select(Challenge).where(
            Challenge.status == ChallengeStatus.OPEN, Challenge.expires_at <= now)
            .order_by(Challenge.expires_at).limit(BATCH)
            .with_for_update(skip_locked=True)).scalars().all()
        for c in due:
            c.status = ChallengeStatus.EXPIRED
            publish(c.tenant_pk, "challenge.expired", event_data(view_of(c, now)),
                    [c.challenger, c.challenged])
    return len(due)


SWEEP_SECONDS = 1.0
"""The presence sweep comes at most this often per worker (a pass comes every 0.2 s)."""
_swept = float("-inf")


def sweep_presence() -> int:
    """Players whose every lease ran out, worked out again (at most once a second); how
    many."""
    global _swept
    if time.monotonic() - _swept < SWEEP_SECONDS:
        return 0
    _swept = time.monotonic()
    return sweep()
