"""The webhooks' chores for ``basra worker``: old messages and attempts purged (the
deliveries themselves run on :class:`~.dispatcher.Dispatcher`'s threads)."""

from __future__ import annotations

from datetime import timedelta

from ..storage.base import utcnow
from . import queue

WEBHOOK_DAYS = 7
"""Delivered and failed webhook messages, and attempts, are kept this long."""


def purge_old() -> None:
    """Remove messages and attempts older than :data:`WEBHOOK_DAYS`."""
    queue.purge(utcnow() - timedelta(days=WEBHOOK_DAYS))
