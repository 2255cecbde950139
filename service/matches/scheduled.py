"""The matches' chores for ``basra worker``: passed turn deadlines, tables nobody filled
in time, expired idempotency keys."""

from __future__ import annotations

from ..storage.db import transaction
from ..storage.models import utcnow
from . import clocks, store
from .service import purge_expired

PURGE_SECONDS = 60.0
"""Expired keys are purged at most this often per process (a pass comes every 0.2 s)."""


def run_clocks() -> int:
    """Every passed deadline applied, unfilled tables aborted, expired keys purged; how
    many matches it timed out."""
    with transaction():
        due = store.due_matches(utcnow())
        unfilled = store.unfilled_tables(clocks.waiting_since())
    applied = sum(1 for match_id in due if clocks.apply_due_timeouts(match_id))
    for match_id, tenant in unfilled:
        clocks.expire_if_due(match_id, tenant)
    purge_expired(every=PURGE_SECONDS)
    return applied
