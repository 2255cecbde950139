"""Errors of the live layer (parked requests)."""

from __future__ import annotations

from ..errors import ServiceError


class TooManyWaiters(ServiceError):
    """No parking place left for a long poll or an event stream (this process's or this
    client's share is taken)."""

    reason = "too_many_waiters"
    status = 429
