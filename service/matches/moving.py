"""Making a move: a seat's play and its bots' replies, worked out outside any lock and
saved only if nobody moved meanwhile (else worked out again); a retried
Idempotency-Key's first result again; and the hint a bot would play for a seat."""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from ..bots.helpers import decide
from ..engine import (
    Card,
    IllegalMove,
    MatchFinished,
    Move,
    NotYourTurn,
    State,
    apply_move,
    play_from_parts,
)
from ..engine.bots import SEARCHING
from ..players.service import Credential
from ..settings import Settings
from ..storage.base import utcnow
from ..storage.db import statement_connection, transaction
from . import cache, changes, finish, idempotency, saves, store
from .changes import Change
from .conditions import check_playing, idempotency_since, purge_hourly
from .enums import MatchStatus
from .errors import ClockRanOut, IdempotencyKeyReused, VersionMismatch
from .replies import bill_replies, bots_play
from .results import MatchView, MoveResult, match_view, replay
from .rows import LogEntry, MatchRow
from .seats import acting_seat

SEARCHING_LEVELS = SEARCHING
"""The levels whose moves (and hints) spend the ``expensive`` budget."""


MOVE_ATTEMPTS = 5
"""How often a move is worked out again when the match changed while it was computed."""


@dataclass(frozen=True)
class MoveRequest:
    """A seat's move as asked for: the card and what it takes, and the request's
    conditions (If-Match, Idempotency-Key and the body's fingerprint)."""

    token: Credential | None
    card: Card
    capture: tuple[Card, ...] | None
    if_match: int | None
    key: str | None
    fingerprint: str


def play_move(match_id: str, tenant: int, asked: MoveRequest, *,
              settings: Settings) -> MoveResult:
    """Apply a seat's move and any bot replies.

    The engine and the bots run on the match as read (or as this process saved it last),
    outside any lock; the save happens only if nobody moved meanwhile (one conditional
    UPDATE). If somebody did, the move is worked out again on the new position (where it
    may be refused: not your turn, or 412 with If-Match). A retried Idempotency-Key with
    the same body gets the first result again, rebuilt from the move log. A seat whose
    clock ran out (before, or while the move was worked out) plays nothing."""
    first: list[MatchRow] = []
    for attempt in range(MOVE_ATTEMPTS):
        result = _attempt(match_id, tenant, asked, first, recall=attempt == 0,
                          settings=settings)
        if result is not None:
            return result
    raise VersionMismatch("the match kept changing while this move was worked out; retry")


def _attempt(match_id: str, tenant: int, asked: MoveRequest, first: list[MatchRow],
             recall: bool, settings: Settings) -> MoveResult | None:
    """One try at a move; None when it must be worked out again (the match moved).
    ``first`` keeps the match as the move first found it."""
    written = cache.written.get((tenant, match_id)) if recall else None
    if written is not None and not written[0].due(utcnow()) and asked.if_match in (
            None, written[0].version):
        match, state = written
        seat = acting_seat(match, asked.token)
        try:
            moved = apply_move(state, Move(seat, asked.card, asked.capture))
        except IllegalMove:
            return None  # refused on the remembered match: the database says
    else:
        read = _read_for_move(match_id, tenant, asked, settings)
        if isinstance(read, MoveResult):
            return read
        match, state, seat = read
        if first and _timed_out_since(first[0], match, seat):
            raise ClockRanOut(f"seat {seat}'s time ran out while the move was worked out; "
                              "the move was not played")
        moved = apply_move(state, Move(seat, asked.card, asked.capture))
    first.append(match)
    return _save_move(match, seat, moved, asked, settings)


def _timed_out_since(before: MatchRow, now: MatchRow, seat: int) -> bool:
    """Whether the seat's clock ran out between two reads of its match (the worker played
    for it: its timeouts in a row went up)."""
    return len(now.timeouts) > seat and len(before.timeouts) > seat \
        and now.timeouts[seat] > before.timeouts[seat]


def _save_move(match: MatchRow, seat: int, moved: State, asked: MoveRequest,
               settings: Settings) -> MoveResult | None:
    """The bots' replies to a move, and the save of both; None if the match moved on."""
    assert moved.last_play is not None
    mine, played = moved.last_play, moved
    # billed once the save holds: a move worked out again is not billed twice
    moved, replies = bots_play(moved, match.bots, match.tenant, bill=False, replying=True)
    timeouts = tuple(0 if i == seat else n for i, n in enumerate(match.timeouts)) \
        if match.timeouts and match.timeouts[seat] else None
    # the save refuses a key the seat already used: then the move goes round again
    # and the read finds what the key answered first
    key = saves.KeyRecord(seat, asked.key, asked.fingerprint,
                          idempotency_since(settings)) \
        if asked.key else None
    entries = [LogEntry.of(mine), *match.logged(replies)]
    if moved.finished and finish.keeps_record(match):
        saved = _finish(match, seat, moved, entries, timeouts, key)
    else:
        pending = changes.prepare(match, moved, Change(entries, timeouts=timeouts))
        saved = pending.match, match_view(pending.match, moved, seat)
        with statement_connection() as alone:  # the save is one statement
            if changes.commit(pending, key=key, alone=alone) is None:
                saved = None
    if saved is None:
        return None
    after, view = saved
    if after.status == MatchStatus.ACTIVE:
        cache.written.put((after.tenant, after.id), (after, moved))
    else:
        cache.written.drop((after.tenant, after.id))
    bill_replies(replies, match.bots, played)
    if asked.key:
        purge_hourly(settings)
    return MoveResult(mine, tuple(replies), view)


class _Moved(Exception):
    """The match moved on (or the key was used) under a finish: roll back what it did."""


def _finish(match: MatchRow, seat: int, state: State, entries: list[LogEntry],
            timeouts: tuple[int, ...] | None,
            key: saves.KeyRecord | None) -> tuple[MatchRow, MatchView] | None:
    """The finishing move of a match that keeps records, saved with what its finish
    records in one write transaction under the match's row lock (and the mover's view);
    None (nothing written) if the match moved on."""
    try:
        with transaction(write=True):
            locked, _ = store.read(match.id, match.tenant, lock=True)
            if locked.version != match.version:
                raise _Moved()
            pending = changes.prepare(locked, state, Change(entries, timeouts=timeouts))
            view = match_view(pending.match, state, seat)
            if changes.commit(pending, key=key) is None:
                raise _Moved()
    except _Moved:
        return None
    return pending.match, view


def _read_for_move(match_id: str, tenant: int, asked: MoveRequest, settings: Settings
                   ) -> tuple[MatchRow, State, int] | MoveResult:
    """The match about to take the token's move, its state and the seat; or a retried
    Idempotency-Key's first result. A seat whose time ran out plays no more
    (:class:`ClockRanOut`)."""
    with transaction():
        match, state = store.read(match_id, tenant)
        seat = acting_seat(match, asked.token)
        earlier = idempotency.find_idempotent(match.pk, seat, asked.key,
                                               idempotency_since(settings)) \
            if asked.key else None
        if earlier is not None:
            if not hmac.compare_digest(earlier.fingerprint, asked.fingerprint):
                raise IdempotencyKeyReused("this Idempotency-Key was used for a different request")
            return _replayed(match, state, seat, earlier.first_seq, earlier.version)
        check_playing(match, asked.if_match)
        if match.due(utcnow()):
            assert match.deadline is not None
            raise ClockRanOut(f"seat {match.turn}'s time ran out at {match.deadline.isoformat()}; "
                              "the move was not played")
        return match, state, seat


def _replayed(match: MatchRow, state: State, seat: int, first_seq: int,
              version: int) -> MoveResult:
    """The result a move request got, from log entries ``first_seq`` to ``version``."""
    records = store.move_log(match.pk, last=version)
    plays = [play_from_parts(r.round, r.seat, r.card or "", r.captured or [], r.basra)
             for r in records[first_seq - 1:]]
    view = match_view(match, replay(state, records), seat, version=version)
    return MoveResult(plays[0], tuple(plays[1:]), view)


def hint(match_id: str, tenant: int, token: Credential | None, level: str) -> Move:
    """The move bot ``level`` would play for the token's seat now."""
    with transaction():
        match, state = store.read(match_id, tenant)
        seat = acting_seat(match, token)
        check_playing(match)
    if state.finished:
        raise MatchFinished("the match is finished")
    if state.turn != seat:
        raise NotYourTurn(f"it is seat {state.turn}'s turn, not seat {seat}'s")
    return decide(state, seat, level, owner=str(tenant))
