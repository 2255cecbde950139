"""What time decides: a seat's passed turn deadline (a stand-in, autoplay or forfeit) and a table
nobody filled in time (aborted), applied once, by ``basra worker`` within a pass (a join
that comes too late aborts the table itself). A move after its seat's deadline is
refused, and a read never applies either: it shows the deadline passed, and a long poll
wakes when the worker's change lands. So clocks need the worker running."""

from __future__ import annotations

from datetime import datetime, timedelta

from ..engine import State, apply_move, resign
from ..engine.bots import bot_move
from ..ops import metrics
from ..settings import Settings
from ..storage.base import utcnow
from ..storage.db import transaction
from . import changes, stand_ins, store
from .changes import Change
from .enums import ClockTimeout, EndReason, MatchStatus, MoveKind
from .replies import bots_play
from .rows import LogEntry, MatchRow

TIMEOUTS_TO_FORFEIT = 3
"""Under ``autoplay``, the timeout in a row of one seat that forfeits instead."""


def _time_out(match: MatchRow, state: State) -> MatchRow:
    """Apply every passed deadline of a locked, active match: the seat is dropped and its
    stand-in keeps it (``bot``, unless it is the last seat its player still plays), the
    greedy bot plays for the seat (``autoplay``; the third time in a row forfeits) or its
    team loses (``forfeit``); then bot seats reply and the next seat's clock starts."""
    while match.due(utcnow()) and state.turn is not None:
        seat = state.turn
        assert match.deadline is not None
        metrics.TIMEOUT_LAG.observe((utcnow() - match.deadline).total_seconds())
        if match.clock_timeout == ClockTimeout.BOT and stand_ins.can_keep(match, seat) is None:
            match, state = stand_ins.keep(match, state, seat, worker=True)
            continue
        timeouts = list(match.timeouts or (0,) * len(match.seats))
        timeouts[seat] += 1
        if match.clock_timeout == ClockTimeout.FORFEIT or timeouts[seat] >= TIMEOUTS_TO_FORFEIT:
            entries = [changes.log(MoveKind.FORFEIT, seat, state)]
            state = resign(state, seat)
            match = changes.save(match, state, Change(
                entries, end_reason=EndReason.TIMEOUT, timeouts=tuple(timeouts)))
        else:
            state = apply_move(state, bot_move(state, seat, "greedy"))
            assert state.last_play is not None
            mine = state.last_play
            state, replies = bots_play(state, match.bots, match.tenant, worker=True)
            entries = [LogEntry.of(mine, timeout=True), *match.logged(replies)]
            match = changes.save(match, state, Change(entries, timeouts=tuple(timeouts)))
    return match


def apply_due_timeouts(match_id: str) -> bool:
    """Apply a match's passed deadlines, if another process is not already doing so;
    whether anything was applied (the worker's step)."""
    with transaction(write=True):
        due = store.read_due(match_id, utcnow())
        if due is None:
            return False
        _time_out(*due)
    return True


def waiting_since(settings: Settings) -> datetime:
    """Tables made before this and still waiting for players have expired."""
    return utcnow() - timedelta(minutes=settings.waiting_minutes)


def expired(match: MatchRow, settings: Settings) -> bool:
    """A waiting match that nobody filled within BASRA_WAITING_MINUTES."""
    return match.status == MatchStatus.WAITING and match.created_at < waiting_since(settings)


def expire(match: MatchRow, state: State) -> MatchRow:
    """Abort a locked waiting match nobody filled in time (no seat asked: no log entry)."""
    return changes.save(match, state, Change(status=MatchStatus.ABORTED,
                                             end_reason=EndReason.ABORTED))


def expire_if_due(match_id: str, tenant: int, settings: Settings) -> bool:
    """Abort a waiting match that nobody filled in time (the worker's step); whether it
    did."""
    with transaction():
        due = expired(store.read(match_id, tenant)[0], settings)
    if not due:
        return False
    with transaction(write=True):
        match, state = store.read(match_id, tenant, lock=True)
        if not expired(match, settings):
            return False
        expire(match, state)
    return True
