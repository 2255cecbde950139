"""A change to a match, saved in one place, and heard by the other domains.

Every change (a match made, a move, a seat taken or left, a clock run out, a
resignation, an abort, a rematch), given as one :class:`Change`, is worked out by
:func:`prepare` and saved by :func:`commit` (both: :func:`save`; a new match:
:func:`created`): the new row is worked out from the engine state, a finish's
consequences are recorded (:mod:`.finish`), what happened is published through the
event door (:mod:`service.events`: the webhooks' outbox, the players' streams), and the
:class:`MatchChanged` event goes to the subscribers the composition root wired
(:func:`wire`: the tournaments' results, the players' presence). Each answers with the
rows it needs written; the store writes them with the change, in its transaction,
without knowing what they are. Then this process's listener hears of the new version
(every other process hears its NOTIFY).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Any

import psycopg

from ..engine import State
from ..events import KINDS, Published, heard, told
from ..live.listener import CHANNEL, listener, payload
from ..ops import metrics
from ..players.ratings import with_display
from ..storage import writes
from ..storage.base import utcnow
from ..storage.db import after_commit
from . import finish, saves
from .enums import EndReason, MatchStatus, MoveKind
from .rows import LogEntry, MatchRow, SeatRow
from .saves import KeyRecord

Event = tuple[str, dict[str, Any]]
"""An event as the webhooks and the players' streams tell it: (type, data)."""
FOR_PLAYERS = frozenset(name for name, kind in KINDS.items()
                        if kind.stream and name.startswith("match."))
"""The match events a seated vouched player's stream gets, as the event door declares
them (a turn only when it is theirs; a seat dropped or back, its own or another's, with
``seat`` theirs and ``dropped`` the seat it is about)."""


@dataclass(frozen=True)
class MatchChanged:
    """A match saved: its status and version before (None and 0: just made), the match
    now, and the log entries the change appended (numbered from ``before_version + 1``)."""

    before: MatchStatus | None
    before_version: int
    match: MatchRow
    entries: tuple[LogEntry, ...] = ()
    voided: bool = False
    """The change voided the finished match's result."""

    @property
    def ended(self) -> bool:
        """The change ended the match (won, drawn or aborted)."""
        return self.match.status.over and not (self.before is not None and self.before.over)

    @cached_property
    def events(self) -> tuple[Event, ...]:
        """What happened, as anyone may see it (never a hand, the stock, or the seed
        before the end): the match started, each play, a seat dropped (its stand-in
        keeps it) or its player back, whose turn it is (a human's), the match ended.
        Worked out once, when a subscriber first asks."""
        m = self.match
        base = {"match_id": m.id, "version": m.version}
        events: list[Event] = []
        if self.before in (None, MatchStatus.WAITING) and m.status in (
                MatchStatus.ACTIVE, MatchStatus.FINISHED):
            events.append(("match.started", {
                **base, "variant": m.variant, "rules_hash": m.rules_hash,
                "commitment": m.commitment,
                "seats": [{"seat": s.seat, "team": s.seat % 2, "name": s.name,
                           "player_id": s.player_id, "bot": s.bot} for s in m.seats],
            }))
        for seq, entry in enumerate(self.entries, start=self.before_version + 1):
            if entry.kind in (MoveKind.DROP, MoveKind.BACK):
                events.append(("match.seat_dropped" if entry.kind == MoveKind.DROP
                               else "match.seat_back", {
                                   "match_id": m.id, "version": seq, "seat": entry.seat,
                                   "name": m.seats[entry.seat].name,
                                   "stand_in": m.stand_in}))
            if entry.play is not None:
                events.append(("match.move", {
                    "match_id": m.id, "version": seq, "round": entry.round,
                    "seat": entry.seat, "card": str(entry.play.card),
                    "captured": [str(c) for c in entry.play.captured],
                    "basra": entry.play.basra, "timeout": entry.timeout,
                    "stand_in": entry.stand_in}))
        changed = m.version > self.before_version or self.before != m.status
        if (changed and m.status == MatchStatus.ACTIVE and m.turn is not None
                and m.seats[m.turn].bot is None):
            events.append(("match.turn", {
                **base, "seat": m.turn, "name": m.seats[m.turn].name,
                "deadline": stamp(m.deadline) if m.deadline else None}))
        if self.ended:
            events.append(("match.finished", {
                **base, "status": m.status, "end_reason": m.end_reason,
                "scores": list(m.scores), "winner": m.winner, "draw": m.draw,
                "rounds": m.rounds, "seed": m.seed.hex() if not m.sealed else None,
                "commitment": m.commitment,
                "rating_changes": [with_display(c) for c in m.rating_changes]
                if m.rating_changes else None}))
        if self.voided:
            assert m.voided_at is not None
            events.append(("match.voided", {
                **base, "voided_at": stamp(m.voided_at), "reason": m.void_reason,
                "rated": m.rated, "scores": list(m.scores), "winner": m.winner,
                "draw": m.draw}))
        return tuple(events)

    @cached_property
    def published(self) -> tuple[Published, ...]:
        """The events as the event door takes them: each to the webhooks, and those of
        :data:`FOR_PLAYERS` to the seated vouched players' streams, with their own seat."""
        seated = self.match.vouched
        out: list[Published] = []
        for kind, data in self.events:
            to: tuple[tuple[str, dict[str, Any]], ...] = ()
            if seated and kind in FOR_PLAYERS:
                about = {"dropped": data["seat"]} if kind.startswith("match.seat_") else {}
                to = tuple((player_id, {**data, **about, "seat": seat})
                           for seat, player_id in seated
                           if kind != "match.turn" or data["seat"] == seat)
            out.append(Published(kind, data, to))
        return tuple(out)


def stamp(moment: datetime) -> str:
    """A moment as the events show it (UTC, ``Z``)."""
    return moment.isoformat().replace("+00:00", "Z")


Subscriber = Callable[[MatchChanged], Sequence[writes.Rows]]
_subscribers: tuple[Subscriber, ...] = ()


def wire(*subscribers: Subscriber) -> None:
    """The subscribers every match change is told of, in this order (the composition
    root's to say)."""
    global _subscribers
    _subscribers = subscribers


def _heard(change: MatchChanged) -> list[writes.Rows]:
    """The rows of the change's events (through the event door: worked out only when
    someone hears them, a vouched seat's stream or a webhook) and of its subscribers."""
    tenant = change.match.tenant
    published = told(tenant, change.published) if change.match.vouched or heard(tenant) \
        else []
    return [*published, *(rows for subscriber in _subscribers for rows in subscriber(change))]


def _announce(match: MatchRow, alone: bool) -> None:
    """This process's listener hears of the new version once it is committed."""
    found = listener()
    if found is None:
        return
    heard = lambda: found.saw(match.id, match.version, *match.facts)  # noqa: E731
    heard() if alone else after_commit(heard)


def created(match: MatchRow) -> None:
    """A match just inserted (in the caller's write transaction): its subscribers' rows
    and its NOTIFY go with it."""
    change = MatchChanged(None, 0, match)
    writes.write(_heard(change), CHANNEL, [payload(match.id, 0, *match.facts)])
    _announce(match, alone=False)


@dataclass(frozen=True)
class Pending:
    """A change worked out and not yet saved: its event, the state it saves, and the
    rows that go with it (its finish's, its subscribers')."""

    change: MatchChanged
    state: State
    parts: tuple[writes.Rows, ...]
    seats_changed: bool

    @property
    def match(self) -> MatchRow:
        """The match as the change saves it."""
        return self.change.match


@dataclass(frozen=True)
class Change:
    """What a change does to a match besides its new state: the log ``entries`` it
    appends (the version moves on by as many, at least one) and whatever else it sets;
    a ``void_reason`` voids a finished match's result."""

    entries: Sequence[LogEntry] = ()
    status: MatchStatus | None = None
    end_reason: EndReason | None = None
    seats: tuple[SeatRow, ...] | None = None
    timeouts: tuple[int, ...] | None = None
    rematch_id: str | None = None
    void_reason: str | None = None
    dropped: tuple[int, ...] | None = None


def prepare(before: MatchRow, state: State, what: Change) -> Pending:
    """The change that saves the match (read as ``before``) in ``state`` as ``what``
    says: the new row, its finish's consequences (worked out now, under the row lock
    the caller holds: :func:`finish.keeps_record`), and its subscribers' rows. A void
    takes back what the finish recorded."""
    changed: dict[str, Any] = {}
    status, end_reason, entries = what.status, what.end_reason, what.entries
    voids = what.void_reason is not None and before.voided_at is None
    if voids:
        changed.update(voided_at=utcnow(), void_reason=what.void_reason)
        status, end_reason = before.status, before.end_reason
    if what.seats is not None:
        changed["seats"] = what.seats
    if what.timeouts is not None:
        changed["timeouts"] = what.timeouts
    if what.rematch_id is not None:
        changed["rematch_id"] = what.rematch_id
    if what.dropped is not None:
        changed["dropped"] = what.dropped
    after = before.after(state, before.version + max(1, len(entries)), utcnow(),
                         status=status, end_reason=end_reason, **changed)
    change = MatchChanged(before.status, before.version, after, tuple(entries), voids)
    parts: list[writes.Rows] = []
    if change.ended and after.status == MatchStatus.FINISHED and finish.keeps_record(after):
        recorded = finish.record(after, change.entries, before.version)
        change = dataclasses.replace(change, match=dataclasses.replace(
            after, rating_changes=recorded.rating_changes))
        parts.extend(recorded.parts)
    if voids and finish.keeps_record(after):
        parts.extend(finish.take_back(after))
    parts.extend(_heard(change))
    return Pending(change, state, tuple(parts), what.seats is not None)


def commit(pending: Pending, *, key: KeyRecord | None = None,
           alone: psycopg.Connection[Any] | None = None) -> MatchRow | None:
    """Save a prepared change, only if the stored match is still at the version it was
    worked out on (and the seat has not used ``key``): the match as saved, or None with
    nothing written. ``alone``: a pooled connection in autocommit, for a change saved as
    one statement (never a finish that keeps records)."""
    change, after = pending.change, pending.match
    if not saves.write(after, pending.state, change.before_version, change.entries,
                       pending.parts, seats_changed=pending.seats_changed, key=key,
                       channel=CHANNEL, notices=[payload(after.id, after.version, *after.facts)],
                       alone=alone):
        return None
    _announce(after, alone=alone is not None)
    metrics.MOVES.inc(sum(1 for e in change.entries if e.play is not None))
    return after


def save(before: MatchRow, state: State, what: Change) -> MatchRow:
    """:func:`prepare` and :func:`commit` a change under the match's row lock (the caller's
    write transaction): it cannot find the match moved on."""
    saved = commit(prepare(before, state, what))
    if saved is None:
        raise RuntimeError(f"match {before.id} changed under its row lock")
    return saved


def log(kind: MoveKind, seat: int, state: State) -> LogEntry:
    """A log entry of ``seat`` that is not a play (a join, leave, resignation...)."""
    return LogEntry(kind, seat, state.round)
