"""Matches in the database: rows, snapshots, the move log, idempotency keys, history.

It speaks engine values and rows, raises the service's typed errors (never HTTP
ones) and runs inside the transaction its caller opened (:mod:`service.storage.db`).
No rules here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

import psycopg
from psycopg.types.json import Json, Jsonb
from sqlalchemy import (
    bindparam,
    delete,
    exists,
    func,
    insert,
    literal_column,
    or_,
    select,
    tuple_,
    update,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.orm import aliased, joinedload
from sqlalchemy.orm.attributes import set_committed_value

from ..engine import Play, State, team_of
from ..engine.codec import rules_from_json, state_from_dict, state_to_dict
from ..errors import MatchNotFound
from ..live import versions
from ..ops import metrics
from ..players import events as player_events
from ..players import ratings, totals
from ..storage import cursors
from ..storage.db import db, read_rows, session_execute
from ..storage.models import IdempotencyKey, Match, MoveRecord, Seat, as_utc, utcnow
from ..webhooks import service as webhooks
from .errors import InvalidCursor
from .seats import NewSeat
from .views import MatchSummary, SeatInfo


@lru_cache(maxsize=1)
def _by_id() -> Any:
    # built once, so it is not built and keyed for the compiled-statement cache on every
    # read; populate_existing: a row read again in a later transaction of the same
    # request is refreshed, not served from the session's earlier copy
    return select(Match).where(
        Match.id == bindparam("match_id"), Match.tenant_pk == bindparam("tenant")
    ).options(joinedload(Match.seats, innerjoin=True)).execution_options(populate_existing=True)


@lru_cache(maxsize=1)
def _locked_by_id() -> Any:
    return _by_id().with_for_update(of=Match)


def _found(match: Match | None, match_id: str) -> Match:
    if match is None:
        raise MatchNotFound(f"no match with id {match_id!r}")
    return match


def get_match(match_id: str, tenant: int) -> Match:
    """A tenant's match and its seats (one query) by public id; another tenant's match is
    not found."""
    found = db.session.execute(_by_id(), {"match_id": match_id, "tenant": tenant})
    return _found(found.unique().scalar_one_or_none(), match_id)


@lru_cache(maxsize=1)
def _version_by_id() -> Any:
    table = Match.__table__
    return select(table.c.version).where(
        table.c.id == bindparam("match_id"), table.c.tenant_pk == bindparam("tenant"))


@lru_cache(maxsize=1)
def _version_by_id_text() -> str:
    """:func:`_version_by_id` as PostgreSQL text, for a psycopg connection of its own."""
    return str(_version_by_id().compile(dialect=postgresql.psycopg.dialect()))


def version_of(match_id: str, tenant: int,
               alone: psycopg.Connection[Any] | None = None) -> int | None:
    """A tenant's match's version (None: no such match), without loading it: on ``alone``
    (from :func:`~service.storage.db.statement_connection`), else a Core query on the session's
    connection (no ORM work either way)."""
    if alone is not None:
        row = alone.execute(_version_by_id_text(),
                            {"match_id": match_id, "tenant": tenant}).fetchone()
        return None if row is None else int(row[0])
    found = db.session.connection().execute(
        _version_by_id(), {"match_id": match_id, "tenant": tenant})
    return found.scalar_one_or_none()  # type: ignore[no-any-return]


def lock_match(match_id: str, tenant: int) -> Match:
    """A tenant's match row, locked until the transaction ends (FOR UPDATE on PostgreSQL;
    SQLite's writer already holds the database)."""
    found = db.session.execute(_locked_by_id(), {"match_id": match_id, "tenant": tenant})
    return _found(found.unique().scalar_one_or_none(), match_id)


def state_of(match: Match) -> State:
    """The engine state of a stored match (from its rules and snapshot)."""
    return state_from_dict(match.snapshot, rules_from_json(match.rules, match.rules_hash))


def _state_columns(
    state: State, version: int, status: str | None = None, end_reason: str | None = None,
    clock_seconds: int | None = None,
) -> dict[str, Any]:
    now = utcnow()
    if status is None:
        status = "finished" if state.finished else "active"
    if status == "finished" and end_reason is None:
        end_reason = "target_score"
    over = status in ("finished", "aborted")
    return {
        "snapshot": state_to_dict(state),
        "version": version,
        "rounds": state.round,
        "turn": state.turn if status == "active" else None,
        "end_reason": end_reason,
        "scores": list(state.scores),
        "winner": state.winner,
        "draw": state.draw,
        "updated_at": now,
        "status": status,
        "finished_at": now if over else None,
        # the seat to play has the clock's time from now on
        "deadline": now + timedelta(seconds=clock_seconds)
        if clock_seconds and status == "active" else None,
    }


@lru_cache(maxsize=8)
def _save_statement(names: tuple[str, ...]) -> Any:
    """The UPDATE that saves a match's new snapshot (columns ``names``) only if the match
    is still at the version read. Built once: the compiled form is cached on it."""
    table = Match.__table__
    return table.update().where(
        table.c.pk == bindparam("match_pk"), table.c.version == bindparam("read")
    ).values({name: bindparam(f"new_{name}") for name in names})


_LOG = insert(MoveRecord.__table__)
_LOG_FIELDS = "seq int, round int, seat int, card text, captured json, basra text, timeout bool"
_MESSAGE_FIELDS = "webhook_pk bigint, msg_id text, type text, body text"
_NOTE_FIELDS = "tenant_pk bigint, player_id text, type text, body text"


@lru_cache(maxsize=32)
def _save_at_once(names: tuple[str, ...], plays: bool, key: bool, messages: bool,
                  rated: bool = False, notes: bool = False) -> str:
    """PostgreSQL: a change saved in one statement (a data-modifying WITH). The UPDATE
    saves the snapshot only if the match is still at the version read (and, with a key,
    the seat has not used that Idempotency-Key yet); the log rows, the key's record and
    the webhook messages, the players' events (and a rated finish's ratings) are written
    only if it did; the NOTIFYs go out when the statement commits; a row back says it
    saved."""
    sets = ", ".join(f"{name} = %(new_{name})s" for name in names)
    # a key the seat used already (and not yet expired) saves nothing: the move is read
    # again, and the first answer found
    unused = (" AND NOT EXISTS (SELECT 1 FROM idempotency_keys WHERE match_pk = "
              "%(match_pk)s AND seat = %(key_seat)s AND key = %(key)s AND created_at >= "
              "%(key_since)s)") if key else ""
    parts = [f"saved AS (UPDATE matches SET {sets} "
             f"WHERE pk = %(match_pk)s AND version = %(read)s{unused} RETURNING pk)"]
    if plays:
        parts.append(
            "logged AS (INSERT INTO moves (match_pk, seq, kind, round, seat, card, captured, "
            "basra, timeout, created_at) SELECT saved.pk, r.seq, 'play', r.round, r.seat, "
            "r.card, r.captured, r.basra, r.timeout, %(now)s FROM saved, "
            f"json_to_recordset(%(plays)s) AS r({_LOG_FIELDS}))")
    if key:
        # an expired record of the same key gives way
        parts.append(
            "kept AS (INSERT INTO idempotency_keys (match_pk, seat, key, fingerprint, "
            "first_seq, version, created_at) SELECT saved.pk, %(key_seat)s, %(key)s, "
            "%(fingerprint)s, %(first_seq)s, %(new_version)s, %(now)s FROM saved "
            "ON CONFLICT (match_pk, seat, key) DO UPDATE SET fingerprint = "
            "excluded.fingerprint, first_seq = excluded.first_seq, version = "
            "excluded.version, created_at = excluded.created_at)")
    if messages:
        parts.append(
            "queued AS (INSERT INTO webhook_messages (webhook_pk, msg_id, type, body, status, "
            "attempts, next_attempt_at, created_at) SELECT r.webhook_pk, r.msg_id, r.type, "
            "r.body, 'pending', 0, %(now)s, %(now)s FROM saved, "
            f"json_to_recordset(%(messages)s) AS r({_MESSAGE_FIELDS}))")
    if rated:
        parts.append(ratings.SAVED_WITH)
    woken = ""
    if notes:
        parts.append(
            "noted AS (INSERT INTO player_events (tenant_pk, player_id, type, body, "
            "created_at) SELECT r.tenant_pk, r.player_id, r.type, r.body, %(now)s FROM saved, "
            f"json_to_recordset(%(notes)s) AS r({_NOTE_FIELDS}) "
            "RETURNING pk, tenant_pk, player_id)")
        woken = (", (SELECT count(pg_notify(%(channel)s, "
                 f"{player_events.WAKE_SQL.format(table='noted')})) FROM noted)")
    return (f"WITH {', '.join(parts)} SELECT pg_notify(%(channel)s, %(notice)s){woken} "
            "FROM saved")


def _rate(match: Match, state: State) -> ratings.Rated:
    """The finished rated match's ratings worked out, its players' ratings locked."""
    seats = [(s.seat, team_of(s.seat), s.player_id) for s in match.seats
             if s.player_id is not None]
    return ratings.rate(match.tenant_pk, match.variant, seats, state.winner, state.draw)


def keeps_record(match: Match) -> bool:
    """Whether finishing the match changes records (it is rated, or a seat is vouched
    for): then it finishes in a write transaction."""
    return match.rated or any(s.vouched for s in match.seats)


_BASRAS_MADE = (select(MoveRecord.seat, MoveRecord.basra, func.count())
                .where(MoveRecord.match_pk == bindparam("match"), MoveRecord.basra.is_not(None))
                .group_by(MoveRecord.seat, MoveRecord.basra))
"""A match's basras and jack basras by the seat that made them."""


def _count(match: Match, state: State, end_reason: str | None) -> None:
    """Add the finished match to its vouched players' totals (after its save, whose plays
    the move log then holds)."""
    vouched = [s for s in match.seats if s.vouched and s.player_id is not None]
    if not vouched:
        return
    made = {(seat, kind): n for seat, kind, n in read_rows(_BASRAS_MADE, {"match": match.pk})}
    results = []
    for s in vouched:
        team = team_of(s.seat)
        lost = not state.draw and state.winner is not None and state.winner != team
        assert s.player_id is not None
        results.append(totals.SeatResult(
            s.player_id, won=not state.draw and state.winner == team, lost=lost,
            drew=state.draw, resigned=lost and end_reason == "resigned",
            timed_out=lost and end_reason == "timeout",
            basras=made.get((s.seat, "basra"), 0),
            jack_basras=made.get((s.seat, "jack_basra"), 0), points=state.scores[team]))
    totals.count(match.tenant_pk, results)


@dataclass(frozen=True)
class KeyRecord:
    """An Idempotency-Key to remember with a move: the seat's key and the request's
    fingerprint; a record of the key made at or after ``since`` (not expired) stops
    the save."""

    seat: int
    key: str
    fingerprint: str
    since: datetime


def _set_state(match: Match, state: State, version: int, status: str | None = None,
               end_reason: str | None = None) -> None:
    """:func:`_save_state` for a caller that holds the match's row lock."""
    _under_lock(match, _save_state(match, state, version, status, end_reason))


def _under_lock(match: Match, saved: bool) -> None:
    """A save by a caller holding the row lock cannot find the match moved on."""
    if not saved:
        raise RuntimeError(f"match {match.id} changed under its row lock")


_KEPT = ("version", "status", "finished_at", "end_reason", "rounds", "turn", "deadline",
         "scores", "winner", "draw", "timeouts", "rating_changes")
"""The columns a save keeps the loaded match object in step with."""


def _happened(match: Match, old_status: str | None, old_version: int,
              plays: Sequence[dict[str, Any]]) -> list[tuple[str, Any]]:
    """A change's events (:func:`webhooks.match_events`), worked out once and only when a
    webhook of the tenant or a vouched player of the match will hear of them."""
    if not (any(s.vouched for s in match.seats) or webhooks.subscribed(match.tenant_pk)):
        return []
    return webhooks.match_events(match, old_status, old_version, plays)


def _save_state(match: Match, state: State, version: int, status: str | None = None,
                end_reason: str | None = None, plays: Sequence[dict[str, Any]] = (), *,
                read: int | None = None, timeouts: list[int] | None = None,
                key: KeyRecord | None = None, alone: psycopg.Connection[Any] | None = None) -> bool:
    """Save a new snapshot and append ``plays`` (move-log rows), only if the stored match
    is still at version ``read`` (default: the version ``match`` shows) and the seat has
    not used ``key`` yet; whether it saved.
    With it go the seats' ``timeouts`` in a row, the Idempotency-Key record and the
    change's webhook messages.

    PostgreSQL takes it all as one statement (no separate locking read: the UPDATE
    takes the row lock), so it needs no transaction around it: on the session's
    connection, or on ``alone`` (from :func:`~service.storage.db.statement_connection`); SQLite as a
    few statements in the caller's write transaction."""
    columns = _state_columns(state, version, status, end_reason, match.clock_seconds)
    if timeouts is not None:
        columns["timeouts"] = timeouts
    old_status, old_version = match.status, match.version if read is None else read
    recorded = columns["status"] == "finished" and old_status != "finished" \
        and keeps_record(match)
    rated: ratings.Rated | None = None
    if recorded:
        # rated and counted once, in the finishing transaction (the caller holds the
        # row lock)
        assert alone is None, "a match that keeps records finishes in a write transaction"
        if match.rated:
            rated = _rate(match, state)
            columns["rating_changes"] = rated.changes
    old = {name: getattr(match, name) for name in _KEPT}
    # the object shows the change while its webhook messages are worked out; put back
    # below if the match moved on
    for name in _KEPT:
        if name in columns:
            set_committed_value(match, name, columns[name])
    happened = _happened(match, old_status, old_version, plays)
    messages = webhooks.messages(match.tenant_pk, happened)
    notes = player_events.for_match(match, happened)
    notice = versions.announcement(match.id, version, columns["status"], columns["turn"],
                                  columns["deadline"])
    if notice is not None:  # PostgreSQL
        saved = _save_postgresql(match, old_version, columns, plays, key, messages, notice,
                                 alone, rated, notes)
    else:
        saved = _save_in_steps(match, old_version, columns, plays, key, messages, rated,
                               notes)
    if not saved:
        for name, value in old.items():
            set_committed_value(match, name, value)
        return False
    # a save on ``alone`` ran outside the session, which then has nothing to mark (and
    # making one only for the mark cost a tenth of a move's handler, measured)
    if notice is not None and alone is None:
        versions.announced(match.id, version)
    if recorded:
        _count(match, state, columns["end_reason"])
    if plays:
        metrics.MOVES.inc(len(plays))
    return True


def _save_postgresql(match: Match, read: int, columns: dict[str, Any],
                     plays: Sequence[dict[str, Any]], key: KeyRecord | None,
                     messages: list[dict[str, Any]], notice: str,
                     alone: psycopg.Connection[Any] | None,
                     rated: ratings.Rated | None = None,
                     notes: Sequence[dict[str, Any]] = ()) -> bool:
    params: dict[str, Any] = {
        f"new_{name}": Jsonb(value) if name == "snapshot" else
        Json(value) if isinstance(value, list) else value
        for name, value in columns.items()
    }
    params.update(match_pk=match.pk, read=read, now=columns["updated_at"],
                  channel=versions.CHANNEL, notice=notice)
    if plays:
        params["plays"] = Json(list(plays))
    if key is not None:
        params.update(key_seat=key.seat, key=key.key, fingerprint=key.fingerprint,
                      first_seq=read + 1, key_since=key.since)
    if messages:
        params["messages"] = Json(messages)
    if rated is not None:
        params.update(ratings=Json(rated.rows), rating_pool=rated.pool)
    if notes:
        params["notes"] = Json(list(notes))
    statement = _save_at_once(tuple(columns), bool(plays), key is not None, bool(messages),
                              rated is not None, bool(notes))
    if alone is not None:  # statement_connection() drops it if it was lost
        return alone.execute(statement, params).fetchone() is not None
    return session_execute(statement, params).fetchone() is not None


def _save_in_steps(match: Match, read: int, columns: dict[str, Any],
                   plays: Sequence[dict[str, Any]], key: KeyRecord | None,
                   messages: list[dict[str, Any]], rated: ratings.Rated | None = None,
                   notes: Sequence[dict[str, Any]] = ()) -> bool:
    params = {f"new_{name}": value for name, value in columns.items()}
    params["match_pk"], params["read"] = match.pk, read
    # in SQLite's write transaction: nobody can use the key between this and the save
    if key is not None and find_idempotent(match, key.seat, key.key, key.since) is not None:
        return False
    conn = db.session.connection()
    if conn.execute(_save_statement(tuple(columns)), params).rowcount != 1:
        return False
    now = columns["updated_at"]
    if plays:
        conn.execute(_LOG, [{**row, "match_pk": match.pk, "kind": "play", "created_at": now}
                            for row in plays])
    if key is not None:
        save_idempotent(match, key.seat, key.key, key.fingerprint, read + 1, match.version)
    webhooks.queue(messages)
    player_events.record(notes)
    if rated is not None:
        ratings.save(match.pk, rated)
    return True


def create_match(
    match_id: str, tenant: int, variant: str, state: State, seats: Sequence[NewSeat],
    commitment: str, explicit_decks: bool, *, waiting: bool = False, quick: bool = False,
    clock: tuple[int, str] | None = None, rated: bool = False,
) -> Match:
    """Insert a tenant's match, its seats and its starting snapshot; ``waiting`` while a
    seat is open."""
    match = Match(
        id=match_id,
        tenant_pk=tenant,
        variant=variant,
        rules=state.rules.to_dict(),
        rules_hash=state.rules.content_hash,
        seed=state.seed,
        commitment=commitment,
        explicit_decks=explicit_decks,
        created_at=utcnow(),
        quick=quick,
        rated=rated,
        clock_seconds=clock[0] if clock else None,
        clock_timeout=clock[1] if clock else None,
        timeouts=[0] * len(seats),
        **_state_columns(state, 0, "waiting" if waiting else None,
                         clock_seconds=clock[0] if clock else None),
    )
    match.seats = [
        Seat(seat=i, name=s.name, player_id=s.player_id, bot=s.bot, token_hash=s.token_hash,
             vouched=s.vouched)
        for i, s in enumerate(seats)
    ]
    db.session.add(match)
    db.session.flush()
    happened = _happened(match, None, 0, ())
    webhooks.queue(webhooks.messages(match.tenant_pk, happened))
    player_events.record(player_events.for_match(match, happened))
    return match


def append_plays(match: Match, plays: Sequence[Play], state: State,
                 timed_out: int = 0) -> None:
    """:func:`append_plays_if_unchanged` for a caller that holds the match's row lock."""
    _under_lock(match, append_plays_if_unchanged(match, match.version, plays, state,
                                                 timed_out))


def append_plays_if_unchanged(match: Match, read: int, plays: Sequence[Play], state: State,
                              timed_out: int = 0, *, timeouts: list[int] | None = None,
                              key: KeyRecord | None = None,
                              alone: psycopg.Connection[Any] | None = None) -> bool:
    """Save the new snapshot and append plays to the move log, if the stored match is
    still at version ``read``, the one the plays were worked out on; False, with nothing
    written, when it has moved on. (Not ``match.version``: a session rollback before
    the save, as SQLite's wait for its write lock makes, reloads the object with
    whatever version is stored by then.) The first ``timed_out`` plays were made on a
    seat's behalf when its time ran out; ``timeouts``, ``key`` and ``alone`` go with the
    move (see :func:`_save_state`)."""
    rows = [
        {"seq": read + i, "round": play.round, "seat": play.seat, "card": str(play.card),
         "captured": [str(c) for c in play.captured], "basra": play.basra,
         "timeout": i <= timed_out}
        for i, play in enumerate(plays, start=1)
    ]
    return _save_state(match, state, read + len(rows), plays=rows, read=read,
                       timeouts=timeouts, key=key, alone=alone)


def append_resign(match: Match, seat: int, round_number: int, state: State) -> None:
    """Append a resignation to the move log and save the final snapshot."""
    _log_entry(match, "resign", seat, round_number)
    _set_state(match, state, match.version + 1, end_reason="resigned")


def _log_entry(match: Match, kind: str, seat: int, round_number: int) -> None:
    db.session.execute(insert(MoveRecord).values(
        match_pk=match.pk, seq=match.version + 1, kind=kind, round=round_number, seat=seat,
        created_at=utcnow(),
    ))


def take_seat(match: Match, seat: int, name: str, player_id: str | None, token_hash: str,
              state: State, vouched: bool = False) -> None:
    """A player sits in an open seat: logged as a join; the match starts (``active``)
    when no seat is left open. ``vouched``: the front end proved ``player_id``."""
    row = match.seats[seat]
    row.name, row.player_id, row.token_hash = name, player_id, token_hash
    row.vouched = vouched and player_id is not None
    _log_entry(match, "join", seat, state.round)
    full = not any(s.open for s in match.seats)
    _set_state(match, state, match.version + 1, None if full else "waiting")


def free_seat(match: Match, seat: int, state: State) -> None:
    """A player leaves the seat of a waiting match: it is open again (logged as a leave)."""
    row = match.seats[seat]
    row.name, row.player_id, row.token_hash, row.vouched = None, None, None, False
    _log_entry(match, "leave", seat, state.round)
    _set_state(match, state, match.version + 1, "waiting")


def end_match(match: Match, state: State, seat: int | None, reason: str) -> None:
    """End a match that nobody won (``aborted``), logged against ``seat`` if one asked."""
    if seat is not None:
        _log_entry(match, "abort", seat, state.round)
    _set_state(match, state, match.version + 1, "aborted", reason)


def forfeit(match: Match, seat: int, state: State) -> None:
    """The seat's clock ran out for good: its team loses (``end_reason`` timeout)."""
    _log_entry(match, "forfeit", seat, state.round)
    _set_state(match, state, match.version + 1, end_reason="timeout")


def set_timeouts(match: Match, timeouts: list[int]) -> None:
    """Each seat's timeouts in a row (a Core UPDATE: ``match`` may be a row this process
    read in an earlier request)."""
    table = Match.__table__
    db.session.execute(table.update().where(table.c.pk == match.pk).values(timeouts=timeouts))
    set_committed_value(match, "timeouts", timeouts)


def due_matches(now: datetime, limit: int = 50) -> list[str]:
    """Ids of active matches whose deadline has passed, the most overdue first."""
    stmt = select(Match.id).where(Match.status == "active", Match.deadline <= now) \
        .order_by(Match.deadline).limit(limit)
    return list(db.session.execute(stmt).scalars())


def unfilled_tables(before: datetime, limit: int = 50) -> list[tuple[str, int]]:
    """(id, tenant) of matches still waiting for players that were made before ``before``."""
    stmt = select(Match.id, Match.tenant_pk).where(
        Match.status == "waiting", Match.created_at < before).order_by(Match.pk).limit(limit)
    return [(row[0], row[1]) for row in db.session.execute(stmt)]


def lock_due(match_id: str, now: datetime) -> Match | None:
    """The match, locked, if its deadline has passed; None if it has not, or if another
    worker holds it (SKIP LOCKED on PostgreSQL: it is applying that timeout)."""
    stmt = select(Match).where(
        Match.id == match_id, Match.status == "active", Match.deadline <= now,
    ).options(joinedload(Match.seats, innerjoin=True)).with_for_update(
        of=Match, skip_locked=True).execution_options(populate_existing=True)
    return db.session.execute(stmt).unique().scalar_one_or_none()


def note_rematch(match: Match, seat: int, rematch_id: str, round_number: int) -> None:
    """Point a finished match at its follow-up (a log entry, so its watchers see it)."""
    _log_entry(match, "rematch", seat, round_number)
    version = match.version + 1
    db.session.execute(update(Match).where(Match.pk == match.pk).values(
        version=version, rematch_id=rematch_id, updated_at=utcnow()))
    set_committed_value(match, "version", version)
    set_committed_value(match, "rematch_id", rematch_id)


def quick_tables(tenant: int, rules_hash: str, since: datetime, rated: bool = False,
                 limit: int = 1) -> list[Match]:
    """The oldest ``limit`` waiting quick-play matches of a tenant with these rules (rated
    or not) made after ``since`` (older ones have expired), locked."""
    stmt = (select(Match).where(
        Match.tenant_pk == tenant, Match.status == "waiting", Match.quick.is_(True),
        Match.rules_hash == rules_hash, Match.created_at >= since, Match.rated.is_(rated),
    ).order_by(Match.pk).limit(limit).options(joinedload(Match.seats, innerjoin=True))
        .with_for_update(of=Match).execution_options(populate_existing=True))
    return list(db.session.execute(stmt).unique().scalars())


def lock_quick_play(tenant: int, rules_hash: str) -> None:
    """Serialise quick-play callers of one tenant and rule set until the transaction ends
    (a PostgreSQL advisory lock; SQLite's writer already holds the database)."""
    if db.session.get_bind().dialect.name == "postgresql":
        key = int.from_bytes(hashlib.sha256(f"{tenant}:{rules_hash}".encode()).digest()[:8],
                             "big", signed=True)
        db.session.execute(select(func.pg_advisory_xact_lock(key)))


def move_log(match: Match, first: int = 1, last: int | None = None) -> list[MoveRecord]:
    """The match's log entries ``first`` to ``last`` (default: all), in order."""
    stmt = select(MoveRecord).where(MoveRecord.match_pk == match.pk, MoveRecord.seq >= first)
    if last is not None:
        stmt = stmt.where(MoveRecord.seq <= last)
    return list(db.session.execute(stmt.order_by(MoveRecord.seq)).scalars())


def find_idempotent(
    match: Match, seat: int, key: str, since: datetime
) -> IdempotencyKey | None:
    """The record of this seat's Idempotency-Key if it was used at or after ``since``
    (older keys have expired)."""
    found = db.session.get(IdempotencyKey, (match.pk, seat, key))
    if found is None or as_utc(found.created_at) < since:
        return None
    return found


def save_idempotent(
    match: Match, seat: int, key: str, fingerprint: str, first_seq: int, version: int
) -> None:
    """Remember that this key answered with log entries ``first_seq`` to ``version`` (an
    expired record of the same key gives way)."""
    db.session.execute(delete(IdempotencyKey).where(
        IdempotencyKey.match_pk == match.pk, IdempotencyKey.seat == seat,
        IdempotencyKey.key == key,
    ))
    db.session.add(IdempotencyKey(
        match_pk=match.pk, seat=seat, key=key, fingerprint=fingerprint, first_seq=first_seq,
        version=version, created_at=utcnow(),
    ))


def purge_idempotency(before: datetime, limit: int = 10_000) -> int:
    """Delete up to ``limit`` idempotency records made before ``before``; how many."""
    columns = (IdempotencyKey.match_pk, IdempotencyKey.seat, IdempotencyKey.key)
    old = select(*columns).where(IdempotencyKey.created_at < before).limit(limit)
    result = db.session.execute(delete(IdempotencyKey).where(tuple_(*columns).in_(old)))
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


# --- history -----------------------------------------------------------


def encode_cursor(match_id: str, key: bytes) -> str:
    """An opaque cursor for keyset pagination, signed with ``key``: the id of the page's
    last match (public already), never a row number that would count the service's
    matches."""
    return cursors.sign("m", match_id, key)


def decode_cursor(cursor: str, key: bytes) -> str:
    """The id of the match a cursor this service signed points below."""
    try:
        match_id = cursors.read("m", cursor, key)
        if not (0 < len(match_id) <= 36 and match_id.isascii()):
            raise ValueError(match_id)
        return match_id
    except ValueError as exc:
        raise InvalidCursor(
            "the cursor is not one this service issued", field="cursor", problem="unknown cursor"
        ) from exc


@dataclass(frozen=True)
class HistoryQuery:
    """Filters and page of one tenant's match history."""

    tenant: int
    player: str | None = None
    player_id: str | None = None
    """Only the matches of this player, as a vouched seat."""
    rated: bool | None = None
    variant: str | None = None
    status: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    cursor: str | None = None
    limit: int = 20


_BEFORE_SEATS = (Match.id, Match.variant, Match.status, Match.version, Match.rules_hash,
                 Match.scores, Match.winner, Match.draw)
_AFTER_SEATS = (Match.created_at, Match.finished_at, Match.end_reason, Match.rounds,
                Match.rated, Match.rating_changes)
""":class:`MatchSummary`'s fields before its seats and after them."""
_SEAT = 1 + len(_BEFORE_SEATS) + len(_AFTER_SEATS)
"""Where a listing row's seat columns start (after the pk and the summary's)."""

_FILTERS = {
    "player": lambda: exists().where(Seat.match_pk == Match.pk, or_(
        Seat.name == bindparam("player"), Seat.player_id == bindparam("player"))),
    "rated": lambda: Match.rated == bindparam("rated"),
    "variant": lambda: Match.variant == bindparam("variant"),
    "status": lambda: Match.status == bindparam("status"),
    "waiting_since": lambda: Match.created_at >= bindparam("waiting_since"),
    "since": lambda: Match.created_at >= bindparam("since"),
    "until": lambda: Match.created_at < bindparam("until"),
    "below": lambda: Match.pk < _below(),
}
"""Each filter of a history listing, on its parameter of the same name."""


def _below() -> Any:
    """The pk of the cursor's match (the ids' unique index): a page lists below it."""
    cursor_match = aliased(Match)
    return (select(cursor_match.pk).where(cursor_match.id == bindparam("below"))
            .scalar_subquery())


@lru_cache(maxsize=256)
def _history_statement(filters: tuple[str, ...], of_player: bool, rows: int) -> Any:
    """The listing's SELECT with these filters: its newest ``rows`` matches, each with its
    seats (a row per seat), in one statement built once per shape, its compiled form cached
    on it. The row count is written into the statement, not bound: PostgreSQL then plans a
    prepared listing once for every player (a bound LIMIT keeps it planning each call)."""
    where = [Match.tenant_pk == bindparam("tenant"), *(_FILTERS[f]() for f in filters)]
    if of_player:
        # a player's page is read from their seats, newest first (the seats' index), so
        # it costs their matches, not the front end's
        mine = [Seat.player_id == bindparam("player_id"), Seat.vouched.is_(True)]
        if "below" in filters:
            mine.append(Seat.match_pk < _below())
        page = (select(Seat.match_pk).join(Match, Match.pk == Seat.match_pk)
                .where(*mine, *where).group_by(Seat.match_pk).order_by(Seat.match_pk.desc()))
    else:
        page = select(Match.pk).where(*where).order_by(Match.pk.desc())
    listed = page.limit(literal_column(str(rows))).correlate(None)
    return (select(Match.pk, *_BEFORE_SEATS, *_AFTER_SEATS, Seat.seat, Seat.name,
                   Seat.player_id, Seat.bot)
            .join(Seat, Seat.match_pk == Match.pk).where(Match.pk.in_(listed))
            .order_by(Match.pk.desc(), Seat.seat))


def history(query: HistoryQuery, cursor_key: bytes,
            waiting_since: datetime | None = None) -> tuple[list[MatchSummary], str | None]:
    """Matches newest first, filtered; keyset pagination on the primary key (no OFFSET),
    with cursors signed by ``cursor_key``; waiting matches made before ``waiting_since``
    (expired) are left out of a ``waiting`` listing. Only the listing's columns, as rows
    (a page is read, never changed)."""
    q = query
    params: dict[str, Any] = {
        "player": q.player, "rated": q.rated, "variant": q.variant or None,
        "status": q.status or None,
        "waiting_since": waiting_since if q.status == "waiting" else None,
        "since": q.since.astimezone(UTC) if q.since else None,
        "until": q.until.astimezone(UTC) if q.until else None,
        "below": decode_cursor(q.cursor, cursor_key) if q.cursor else None,
    }
    params = {name: value for name, value in params.items() if value is not None}
    stmt = _history_statement(tuple(params), bool(q.player_id), q.limit + 1)
    params["tenant"] = q.tenant
    if q.player_id:
        params["player_id"] = q.player_id
    found: dict[int, tuple[Sequence[Any], list[SeatInfo]]] = {}
    for r in read_rows(stmt, params):
        pk, (seat, name, player_id, bot) = r[0], r[_SEAT:]
        found.setdefault(pk, (r, []))[1].append(
            SeatInfo(seat, team_of(seat), name, player_id, bot, name is None))
    rows = list(found.items())
    more = len(rows) > q.limit
    rows = rows[: q.limit]
    after = 1 + len(_BEFORE_SEATS)
    summaries = [MatchSummary(*r[1:after], tuple(seats), *r[after:_SEAT])
                 for _, (r, seats) in rows]
    return summaries, encode_cursor(summaries[-1].id, cursor_key) if more and rows else None
