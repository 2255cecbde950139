"""What the use cases answer: a seat's (or a spectator's) view of a stored match, a
move's result, a page of history. Plain values for the web layer to render."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..engine import (
    Play,
    SeatView,
    State,
    apply_move,
    move_from_parts,
    new_match,
    observe,
    resign,
    team_of,
)
from .enums import EndReason, MatchStatus, MoveKind
from .models import MoveRecord
from .rows import STAND_IN, MatchRow, Stake, delays, finished_by
from .seats import PUBLIC, Viewer, spectates

SPECTATOR_DELAY = 4
"""Plays a spectator lags behind in a rated or tournament match unless it says
otherwise: a turn of every seat at a 4-player table, two at a 2-player one."""
MAX_SPECTATOR_DELAY = 52


@dataclass(frozen=True)
class SeatInfo:
    """A seat as everyone may see it."""

    seat: int
    team: int
    name: str | None
    player_id: str | None
    bot: str | None
    open: bool


@dataclass(frozen=True)
class MatchView:
    """What one seat (or a spectator) is shown of a stored match."""

    id: str
    variant: str
    status: MatchStatus
    version: int
    seats: tuple[SeatInfo, ...]
    commitment: str
    explicit_decks: bool
    created_at: datetime
    view: SeatView
    seed: str | None
    """The seed, revealed once the match is finished."""
    end_reason: EndReason | None
    """None while the match goes on."""
    rematch: str | None
    """The follow-up match's id, once a seat asked for one."""
    clock: dict[str, Any] | None
    """``{"move_seconds", "timeout"}``, or None without a clock."""
    deadline: datetime | None
    """When the seat to play runs out of time (None without a clock or not running)."""
    rated: bool = False
    rating_changes: tuple[dict[str, Any], ...] | None = None
    """Each seat's rating before and after, once a rated match finished."""
    voided: dict[str, Any] | None = None
    """``{"at", "reason"}`` once its front end voided its result."""
    stand_in: str = STAND_IN
    """The bot level that keeps a dropped seat."""
    dropped: tuple[int, ...] = ()
    """The seats the stand-in keeps now."""
    spectator_delay: int = 0
    behind: int = 0
    """A delayed spectator's view: the match's spectator delay (it leaves out up to that
    many plays, never saying how many); 0 for a view of the match as it is."""
    sealed: bool = False
    """A duplicate round's table while the round goes on: outsiders see it as dealt, at
    version 0, until the round ends."""
    stake: Stake | None = None
    """What each seat holds in the table's escrow, and the rake it was made with."""


@dataclass(frozen=True, slots=True)
class LoggedMove:
    """An entry of the move log as it leaves (LoggedMoveSchema): immutable, so one read
    is shared by every stream it is owed to."""

    seq: int
    kind: str
    round: int
    seat: int
    card: str | None
    captured: tuple[str, ...] | None
    basra: str | None
    timeout: bool
    stand_in: bool
    created_at: datetime

    @classmethod
    def of(cls, r: MoveRecord) -> LoggedMove:
        return cls(r.seq, r.kind, r.round, r.seat, r.card,
                   None if r.captured is None else tuple(r.captured), r.basra,
                   bool(r.timeout), bool(r.stand_in), r.created_at)


@dataclass(frozen=True)
class Unchanged:
    """The client's copy of the view is current (an HTTP 304)."""

    version: int
    seat: int | None


@dataclass(frozen=True)
class Seen:
    """The views a client already holds, as (version, seat) pairs (If-None-Match);
    ``anything`` for any version at all."""

    views: frozenset[tuple[int, int | None]] = frozenset()
    anything: bool = False

    def holds(self, version: int, seat: int | None) -> bool:
        """Whether the client holds this version of this seat's view."""
        return self.anything or (version, seat) in self.views

    def newest(self) -> int:
        """The newest version the client holds (-1: none named)."""
        return max((version for version, _ in self.views), default=-1)


def seat_infos(match: MatchRow) -> tuple[SeatInfo, ...]:
    """The public facts of a match's seats."""
    return tuple(
        SeatInfo(s.seat, team_of(s.seat), s.name, s.player_id, s.bot, s.open)
        for s in match.seats
    )


def delayed(match: MatchRow, seat: int | None, viewer: Viewer = PUBLIC) -> bool:
    """Whether the viewer (``seat`` None: not seated) is shown the match as its
    spectators see it (:func:`.seats.spectates`): some plays back while it is in play with a
    spectator delay, so that nobody watching can relay a table's plays as they happen;
    as dealt while it is sealed. The seats see theirs at once, and the front end's
    server sees it as it is; once the match is over (and unsealed), everyone sees
    every play."""
    return seat is None and spectates(match.delays_spectators, (), viewer)


def replay(state: State, records: Sequence[MoveRecord]) -> State:
    """The match rebuilt from its rules, seed, decks and these log entries."""
    rebuilt = new_match(state.rules, state.seed, state.decks)
    for record in records:
        if record.kind in (MoveKind.RESIGN, MoveKind.FORFEIT):
            rebuilt = resign(rebuilt, record.seat)
        elif record.kind == MoveKind.PLAY:
            assert record.card is not None
            rebuilt = apply_move(rebuilt, move_from_parts(record.seat, record.card,
                                                          record.captured))
    return rebuilt


def shown_records(match: MatchRow, records: Sequence[MoveRecord]) -> tuple[list[MoveRecord], int]:
    """The log entries a spectator may see (all but the last ``spectator_delay`` plays
    and what came after them; none of a sealed match's entries) and how many plays that
    leaves out."""
    plays = [i for i, r in enumerate(records) if r.kind == MoveKind.PLAY]
    if match.sealed:  # the table as dealt: not even a resignation shows
        return [], len(plays)
    hidden = min(match.spectator_delay, len(plays))
    if not hidden:
        return list(records), 0
    return list(records[:plays[-hidden]]), hidden


def shown_version(shown: Sequence[MoveRecord]) -> int:
    """The version a spectator is shown of a delayed or sealed match: its last log entry
    shown (0: none), never the match's, which would tell how many plays were made."""
    return shown[-1].seq if shown else 0


def _dropped(shown: Sequence[MoveRecord]) -> tuple[int, ...]:
    """The seats a stand-in kept as of these log entries."""
    dropped: set[int] = set()
    for record in shown:
        if record.kind == MoveKind.DROP:
            dropped.add(record.seat)
        elif record.kind == MoveKind.BACK:
            dropped.discard(record.seat)
    return tuple(sorted(dropped))


def match_view(match: MatchRow, state: State, seat: int | None, *,
               version: int | None = None,
               log: Sequence[MoveRecord] | None = None,
               viewer: Viewer = PUBLIC) -> MatchView:
    """The view of ``seat`` (None: not seated) of a stored match in ``state``; while the
    match waits for players nobody sees a card. ``version`` rebuilds an earlier view
    (of a move, which only an active match takes). ``log``, the match's whole log: a
    :func:`delayed` view is made from it, the position of the plays it shows at the
    version of the last entry it shows (so its ETag moves only when what it shows
    does), with no deadline; a sealed table as dealt, frozen at version 0, in play, with
    no end, rematch, rating change or void."""
    shown_at = None
    behind = 0
    dropped = match.dropped
    status, end_reason, rematch = match.status, match.end_reason, match.rematch_id
    rating_changes, void = match.rating_changes, voided(match.voided_at, match.void_reason)
    if log is not None and delayed(match, seat, viewer):
        shown, hidden = shown_records(match, log)
        state = replay(state, shown) if hidden or match.sealed else state
        shown_at, dropped = shown_version(shown), _dropped(shown)
        behind = 0 if match.sealed else match.spectator_delay
        if match.sealed:  # frozen as dealt: neither its progress nor its end shows
            status = MatchStatus.ACTIVE if status.over else status
            end_reason, rematch, rating_changes, void = None, None, None, None
    if version is not None:
        status = MatchStatus.FINISHED if state.finished else MatchStatus.ACTIVE
        end_reason = finished_by(state) if state.finished else None
        rematch = None
    view = observe(state, seat)
    if status == MatchStatus.WAITING:
        view = dataclasses.replace(
            observe(state, None), seat=seat, floor=(),
            hand_counts=(0,) * len(view.hand_counts), stock_count=52, turn=None,
        )
    return MatchView(
        id=match.id,
        variant=match.variant,
        status=status,
        version=shown_at if shown_at is not None else
        match.version if version is None else version,
        seats=seat_infos(match),
        commitment=match.commitment,
        explicit_decks=match.explicit_decks,
        created_at=match.created_at,
        view=view,
        seed=state.seed.hex() if status.over and not match.sealed else None,
        end_reason=end_reason,
        rematch=rematch,
        rated=match.rated,
        rating_changes=rating_changes if version is None else None,
        clock={"move_seconds": match.clock_seconds, "timeout": match.clock_timeout}
        if match.clock_seconds else None,
        deadline=match.deadline
        if version is None and status == MatchStatus.ACTIVE and shown_at is None else None,
        voided=void if version is None else None,
        stand_in=match.stand_in,
        dropped=dropped,
        spectator_delay=match.spectator_delay,
        behind=behind,
        sealed=match.sealed,
        stake=match.stake,
    )


def voided(at: datetime | None, reason: str | None) -> dict[str, Any] | None:
    """A voided match's ``{"at", "reason"}`` as views and listings show it."""
    return None if at is None else {"at": at, "reason": reason}


@dataclass(frozen=True)
class MoveResult:
    """A play as the API reports it, with the mover's view after any bot replies (a
    resignation has no play)."""

    move: Play | None
    replies: tuple[Play, ...]
    state: MatchView


@dataclass(frozen=True)
class MatchSummary:
    """A match in a history listing."""

    id: str
    variant: str
    status: MatchStatus
    version: int
    rules_hash: str
    scores: list[int]
    winner: int | None
    draw: bool
    seats: tuple[SeatInfo, ...]
    created_at: datetime
    finished_at: datetime | None
    end_reason: EndReason | None
    rounds: int
    rated: bool
    rating_changes: list[dict[str, Any]] | None
    voided: dict[str, Any] | None = None
    sealed: bool = False
    spectator_delay: int = 0
    vouched: tuple[str, ...] = ()
    """The players seated as vouched for (they see their match as it is)."""

    @property
    def delays_spectators(self) -> bool:
        """As :attr:`MatchRow.delays_spectators`."""
        return delays(self.sealed, self.status, self.spectator_delay)


def as_spectators_see(summary: MatchSummary, match: MatchRow, state: State,
                      log: Sequence[MoveRecord]) -> MatchSummary:
    """A listing's line of a match that delays its spectators, as they see it: its
    scores, deals and version those of the plays they are shown (a sealed table's as
    dealt), and no winner, end or rating change of a sealed table."""
    shown, behind = shown_records(match, log)
    if not (behind or match.sealed):
        return summary
    was = replay(state, shown)
    sealed = match.sealed
    return dataclasses.replace(
        summary, version=shown_version(shown), scores=list(was.scores),
        rounds=was.round, winner=None if sealed else summary.winner,
        draw=False if sealed else summary.draw,
        end_reason=None if sealed else summary.end_reason,
        rating_changes=None if sealed else summary.rating_changes)


@dataclass(frozen=True)
class HistoryPage:
    """A page of a history listing and the cursor of the next one."""

    matches: list[MatchSummary]
    next: str | None
