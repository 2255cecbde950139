"""The players' chores for ``basra worker``: the leaderboards ranked again, old stream
events purged."""

from __future__ import annotations

import time
from datetime import timedelta

from ..settings import Settings
from ..storage.base import utcnow
from . import events, presence
from .leaderboards import Listing, refresh_ranks

_ranked = [float("-inf")]


def rank_leaderboards(settings: Settings, force: bool = False) -> int:
    """Rank every leaderboard again, at most every BASRA_LEADERBOARD_REFRESH_SECONDS per
    process (``force``: now); how many places changed."""
    now = time.monotonic()
    if not force and now - _ranked[0] < settings.leaderboard_refresh_seconds:
        return 0
    _ranked[0] = now
    return refresh_ranks(Listing.of(settings))


def purge_events(settings: Settings) -> int:
    """The events' days ahead made, and the events older than
    BASRA_RETENTION_DAYS_PLAYER_EVENTS removed (none with 0); how many deleted one by one."""
    events.make_days()
    days = settings.retention_days_player_events
    return events.purge(utcnow() - timedelta(days=days)) if days > 0 else 0


def purge_leases() -> int:
    """Remove presence leases that ran out over a minute ago; how many."""
    return presence.purge(utcnow() - timedelta(minutes=1))
