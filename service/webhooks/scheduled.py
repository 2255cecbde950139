"""The webhooks' chores for ``basra worker``: old messages and attempts purged (the
deliveries themselves run on :class:`~.dispatcher.Dispatcher`'s threads)."""

from __future__ import annotations

from datetime import timedelta

from ..settings import Settings
from ..storage.base import utcnow
from . import queue


def purge_old(settings: Settings) -> None:
    """The days ahead made, and messages and attempts older than
    BASRA_RETENTION_DAYS_WEBHOOKS removed (none with 0; pending messages kept)."""
    queue.make_days()
    days = settings.retention_days_webhooks
    if days > 0:
        queue.purge(utcnow() - timedelta(days=days))
