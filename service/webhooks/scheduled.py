"""The webhooks' chores for ``basra worker``: old messages and attempts purged (the
deliveries themselves run on :class:`~.deliveries.Dispatcher`'s threads)."""

from __future__ import annotations

import time
from datetime import timedelta

from ..storage.models import utcnow
from . import deliveries

WEBHOOK_DAYS = 7
"""Delivered and failed webhook messages, and attempts, are kept this long."""
PURGE_SECONDS = 60.0
"""They are purged at most this often per process (a pass comes every 0.2 s)."""
_purged = [float("-inf")]


def purge_old() -> None:
    """Remove messages and attempts older than :data:`WEBHOOK_DAYS`, at most once a
    :data:`PURGE_SECONDS` per process."""
    now = time.monotonic()
    if now - _purged[0] < PURGE_SECONDS:
        return
    _purged[0] = now
    deliveries.purge(utcnow() - timedelta(days=WEBHOOK_DAYS))
