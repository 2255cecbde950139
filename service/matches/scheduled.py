"""The matches' chores for ``basra worker``: passed turn deadlines, tables nobody filled
in time, and (once a minute) expired idempotency keys (:func:`purge_expired`, which a
keyed move also calls) and the moves past their retention (:func:`expire_moves`)."""

from __future__ import annotations

from ..settings import Settings
from ..storage.base import utcnow
from ..storage.db import transaction
from . import clocks, retention, store
from .conditions import purge_expired

__all__ = ["expire_moves", "purge_expired", "run_clocks"]


def run_clocks(settings: Settings) -> int:
    """Every passed deadline applied, unfilled tables aborted; how many matches it timed
    out."""
    with transaction():
        due = store.due_matches(utcnow())
        unfilled = store.unfilled_tables(clocks.waiting_since(settings))
    applied = sum(1 for match_id in due if clocks.apply_due_timeouts(match_id))
    for match_id, tenant in unfilled:
        clocks.expire_if_due(match_id, tenant, settings)
    return applied


def expire_moves(settings: Settings) -> None:
    """The move log's days ahead made, and the moves past BASRA_RETENTION_DAYS_MOVES
    removed (:mod:`.retention`)."""
    retention.make_days()
    retention.expire_moves(settings.retention_days_moves)
