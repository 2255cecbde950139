"""What time decides: a seat's passed turn deadline (autoplay or forfeit) and a table
nobody filled in time (aborted), applied once, wherever it is noticed first: a read,
a write, or ``basra worker``."""

from __future__ import annotations

import time
from datetime import datetime, timedelta

from flask import current_app

from ..engine import apply_move, resign
from ..engine.bots import bot_move
from ..live import versions
from ..live.searches import play_bots
from ..ops import metrics
from ..storage.db import transaction
from ..storage.models import Match, as_utc, utcnow
from . import store
from .seats import bot_levels

TIMEOUTS_TO_FORFEIT = 3
"""Under ``autoplay``, the timeout in a row of one seat that forfeits instead."""


def _time_out(match: Match) -> None:
    """Apply every passed deadline of a locked, active match: the greedy bot plays for the
    seat (``autoplay``; the third time in a row forfeits) or its team loses (``forfeit``),
    then bot seats reply and the next seat's clock starts."""
    state = store.state_of(match)
    while is_due(match) and state.turn is not None:
        seat = state.turn
        metrics.TIMEOUT_LAG.observe((utcnow() - as_utc(match.deadline)).total_seconds())
        timeouts = list(match.timeouts or [0] * len(match.seats))
        timeouts[seat] += 1
        store.set_timeouts(match, timeouts)
        if match.clock_timeout == "forfeit" or timeouts[seat] >= TIMEOUTS_TO_FORFEIT:
            state = resign(state, seat)
            store.forfeit(match, seat, state)
        else:
            state = apply_move(state, bot_move(state, seat, "greedy"))
            assert state.last_play is not None
            mine = state.last_play
            state, replies = play_bots(state, bot_levels(match.seats))
            store.append_plays(match, [mine, *replies], state, timed_out=1)
        versions.publish(match)


def apply_due_timeouts(match_id: str) -> bool:
    """Apply a match's passed deadlines, if another process is not already doing so;
    whether anything was applied (the worker's step)."""
    with transaction(write=True):
        match = store.lock_due(match_id, utcnow())
        if match is None:
            return False
        _time_out(match)
    versions.saw(match)
    return True


def is_due(match: Match) -> bool:
    """Whether the seat to play has run out of time."""
    return match.status == "active" and match.deadline is not None \
        and as_utc(match.deadline) <= utcnow()


def apply_if_due(match: Match) -> None:
    """A read or a write of a match applies its passed deadline first (as the worker
    does, within a second)."""
    if is_due(match):
        apply_due_timeouts(match.id)


def waiting_since() -> datetime:
    """Tables made before this and still waiting for players have expired."""
    return utcnow() - timedelta(minutes=current_app.config["BASRA_WAITING_MINUTES"])


def expired(match: Match) -> bool:
    """A waiting match that nobody filled within BASRA_WAITING_MINUTES."""
    return match.status == "waiting" and as_utc(match.created_at) < waiting_since()


def expire_if_due(match_id: str, tenant: int, version: int) -> int:
    """Abort a waiting match that nobody filled in time (reads, joins and the worker all
    apply this deadline); returns the match's version (``version`` if not due)."""
    with transaction():
        match = store.get_match(match_id, tenant)
        due = expired(match)
    if not due:
        return version
    with transaction(write=True):
        match = store.lock_match(match_id, tenant)
        if expired(match):
            store.end_match(match, store.state_of(match), None, "aborted")
            versions.publish(match)
    versions.saw(match)
    return match.version


def peek(match_id: str, tenant: int, at_least: int = -1) -> versions.Peek:
    """The match as a poll sees it (:func:`versions.peek`, at ``at_least`` or later), once
    whatever time has decided is applied: a passed turn deadline, a table nobody filled.
    Costs nothing more while nothing is due."""
    peeked = versions.peek(match_id, tenant, at_least)
    if peeked.deadline and peeked.deadline <= time.time() * 1000:
        apply_due_timeouts(match_id)
        peeked = versions.peek(match_id, tenant)
    elif peeked.turn == versions.UNKNOWN and expire_if_due(match_id, tenant, -1) >= 0:
        peeked = versions.peek(match_id, tenant)
    return peeked
