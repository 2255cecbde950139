"""Storage of matches: load, lock, append moves and save snapshots. No rules here."""

from __future__ import annotations

import base64
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, event, exists, func, insert, or_, select, update
from sqlalchemy.orm import defer, joinedload
from sqlalchemy.orm.attributes import set_committed_value

from .engine import Play, State
from .engine.codec import rules_from_json, state_from_dict, state_to_dict
from .models import IdempotencyKey, Match, MoveRecord, Seat, db, utcnow
from .problems import ApiProblem
from .versions import CHANNEL


@event.listens_for(Engine, "connect")
def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """SQLite: WAL, a busy timeout, and transactions this module begins itself."""
    if isinstance(dbapi_connection, sqlite3.Connection):
        from flask import current_app, has_app_context

        timeout = 30000
        if has_app_context():
            timeout = current_app.config.get("BASRA_SQLITE_BUSY_TIMEOUT_MS", timeout)
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={int(timeout)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()


@event.listens_for(Engine, "begin")
def _sqlite_begin(conn: Any) -> None:
    """SQLite: writers take the write lock up front (BEGIN IMMEDIATE), so two writers
    queue on the busy timeout instead of failing with 'database is locked' on upgrade."""
    if conn.dialect.name == "sqlite":
        write = conn.get_execution_options().get("basra_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def not_found(match_id: str) -> ApiProblem:
    """The 404 of an unknown match."""
    return ApiProblem(404, "match_not_found", f"no match with id {match_id!r}")


def begin_write() -> None:
    """Start the request's write transaction (BEGIN IMMEDIATE on SQLite)."""
    if db.session().in_transaction():
        db.session.commit()
    db.session.connection(execution_options={"basra_write": True})


def _with_seats(stmt: Any) -> Any:
    return stmt.options(joinedload(Match.seats, innerjoin=True))


def get_match(match_id: str) -> Match:
    """A match (and its seats, in one query) by public id, or 404."""
    stmt = _with_seats(select(Match).where(Match.id == match_id))
    match = db.session.execute(stmt).unique().scalar_one_or_none()
    if match is None:
        raise not_found(match_id)
    return match


def lock_match(match_id: str) -> Match:
    """The match row, locked for the rest of this transaction (FOR UPDATE on PostgreSQL)."""
    begin_write()
    stmt = _with_seats(select(Match).where(Match.id == match_id)).with_for_update(of=Match)
    match = db.session.execute(stmt).unique().scalar_one_or_none()
    if match is None:
        raise not_found(match_id)
    return match


def peek(match_id: str) -> tuple[int, list[tuple[int, str]]]:
    """A match's version and its seats' token hashes, without loading its snapshot."""
    stmt = (
        select(Match.version, Seat.seat, Seat.token_hash)
        .join(Seat, Seat.match_pk == Match.pk)
        .where(Match.id == match_id)
    )
    try:
        rows = db.session.execute(stmt).all()
    finally:
        db.session.rollback()
    if not rows:
        raise not_found(match_id)
    return rows[0][0], [(r[1], r[2]) for r in rows]


def current_version(match_id: str) -> int | None:
    """The match's version, read in a short transaction of its own (for long polls)."""
    try:
        return db.session.execute(
            select(Match.version).where(Match.id == match_id)
        ).scalar_one_or_none()
    finally:
        db.session.rollback()


def state_of(match: Match) -> State:
    """The engine state of a stored match (from its rules and snapshot)."""
    return state_from_dict(match.snapshot, rules_from_json(match.rules, match.rules_hash))


def _publish(match: Match) -> None:
    """NOTIFY listeners of the match's new version; delivered when this transaction commits."""
    if db.session.get_bind().dialect.name == "postgresql":
        db.session.execute(
            select(func.pg_notify(CHANNEL, f"{match.id}:{match.version}"))
        )


def _state_columns(state: State) -> dict[str, Any]:
    now = utcnow()
    return {
        "snapshot": state_to_dict(state),
        "version": state.ply,
        "scores": list(state.scores),
        "winner": state.winner,
        "draw": state.draw,
        "updated_at": now,
        "status": "finished" if state.finished else "active",
        "finished_at": now if state.finished else None,
    }


def _set_state(match: Match, state: State) -> None:
    """Save a new snapshot with one UPDATE (no unit-of-work bookkeeping on the hot path)."""
    columns = _state_columns(state)
    db.session.execute(update(Match).where(Match.pk == match.pk).values(**columns))
    # keep the loaded object in step without marking it dirty
    set_committed_value(match, "version", state.ply)
    set_committed_value(match, "status", columns["status"])
    _publish(match)


@dataclass(frozen=True)
class NewSeat:
    """A seat to create: who sits there and the hash of its token."""

    name: str
    player_id: str | None
    bot: str | None
    token_hash: str


def create_match(
    match_id: str, variant: str, state: State, seats: Sequence[NewSeat], commitment: str,
    explicit_decks: bool,
) -> Match:
    """Insert a match, its seats and its starting snapshot (not committed)."""
    begin_write()
    match = Match(
        id=match_id,
        variant=variant,
        rules=state.rules.to_dict(),
        rules_hash=state.rules.content_hash,
        seed=state.seed,
        commitment=commitment,
        explicit_decks=explicit_decks,
        created_at=utcnow(),
        **_state_columns(state),
    )
    match.seats = [
        Seat(seat=i, name=s.name, player_id=s.player_id, bot=s.bot, token_hash=s.token_hash)
        for i, s in enumerate(seats)
    ]
    db.session.add(match)
    db.session.flush()
    _publish(match)
    return match


def append_plays(match: Match, plays: Sequence[Play], state: State) -> None:
    """Append plays to the move log and save the new snapshot (same transaction)."""
    now = utcnow()
    rows = [
        {"match_pk": match.pk, "seq": match.version + i, "kind": "play", "round": play.round,
         "seat": play.seat, "card": str(play.card), "captured": [str(c) for c in play.captured],
         "basra": play.basra, "created_at": now}
        for i, play in enumerate(plays, start=1)
    ]
    if rows:
        db.session.execute(insert(MoveRecord), rows)
    _set_state(match, state)


def append_resign(match: Match, seat: int, round_number: int, state: State) -> None:
    """Append a resignation to the move log and save the final snapshot."""
    db.session.execute(insert(MoveRecord).values(
        match_pk=match.pk, seq=match.version + 1, kind="resign", round=round_number, seat=seat,
        created_at=utcnow(),
    ))
    _set_state(match, state)


def move_log(match: Match) -> list[MoveRecord]:
    """The match's moves in order."""
    stmt = select(MoveRecord).where(MoveRecord.match_pk == match.pk).order_by(MoveRecord.seq)
    return list(db.session.execute(stmt).scalars())


def find_idempotent(match: Match, seat: int, key: str) -> IdempotencyKey | None:
    """A stored response for this seat's Idempotency-Key, if any."""
    return db.session.get(IdempotencyKey, (match.pk, seat, key))


def save_idempotent(
    match: Match, seat: int, key: str, fingerprint: str, status: int, body: dict[str, Any]
) -> None:
    """Remember the response to an Idempotency-Key (same transaction as the move)."""
    db.session.add(IdempotencyKey(
        match_pk=match.pk, seat=seat, key=key, fingerprint=fingerprint, status=status, body=body,
    ))


def commit() -> None:
    """Commit the request's transaction."""
    db.session.commit()


# --- history -----------------------------------------------------------


def encode_cursor(pk: int) -> str:
    """An opaque cursor for keyset pagination."""
    return base64.urlsafe_b64encode(f"m:{pk}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    """The match pk a cursor points below; 422 if it is not one of ours."""
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        kind, _, pk = text.partition(":")
        if kind != "m":
            raise ValueError(kind)
        return int(pk)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ApiProblem(
            422, "invalid_cursor", "the cursor is not one this service issued",
            errors=[{"field": "cursor", "message": "unknown cursor"}],
        ) from exc


@dataclass(frozen=True)
class HistoryQuery:
    """Filters and page of the match history."""

    player: str | None = None
    variant: str | None = None
    status: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    cursor: str | None = None
    limit: int = 20


def history(query: HistoryQuery) -> tuple[list[Match], str | None]:
    """Matches newest first, filtered; keyset pagination on the primary key (no OFFSET)."""
    # the listing needs neither the snapshot nor the rules: leave the big columns behind
    stmt = select(Match).options(defer(Match.snapshot), defer(Match.rules), defer(Match.seed))
    q = query
    if q.player:
        stmt = stmt.where(exists().where(
            Seat.match_pk == Match.pk, or_(Seat.name == q.player, Seat.player_id == q.player)
        ))
    if q.variant:
        stmt = stmt.where(Match.variant == q.variant)
    if q.status:
        stmt = stmt.where(Match.status == q.status)
    if q.since:
        stmt = stmt.where(Match.created_at >= q.since.astimezone(UTC))
    if q.until:
        stmt = stmt.where(Match.created_at < q.until.astimezone(UTC))
    if q.cursor:
        stmt = stmt.where(Match.pk < decode_cursor(q.cursor))
    stmt = stmt.order_by(Match.pk.desc()).limit(q.limit + 1)
    rows = list(db.session.execute(stmt).scalars())
    more = len(rows) > q.limit
    rows = rows[: q.limit]
    return rows, encode_cursor(rows[-1].pk) if more and rows else None
