"""Matches in the database: their rows and seats, snapshots, the move log, idempotency
keys. Rows only: it reads :class:`~.rows.MatchRow` values and the engine state, and saves
a change (with whatever other rows go with it, unknown to it) only if the match is still
at the version it was worked out on. It runs inside the transaction its caller opened
(:mod:`service.storage.db`); no rules here.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

import psycopg
from sqlalchemy import (
    Text,
    and_,
    bindparam,
    case,
    cast,
    delete,
    exists,
    func,
    insert,
    literal_column,
    select,
    tuple_,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite

from ..engine import State, rules_from_json, state_from_dict, state_to_dict
from ..errors import MatchNotFound
from ..storage import writes
from ..storage.base import as_utc, utcnow
from ..storage.db import backend, db, read_rows
from .enums import ClockTimeout, EndReason, MatchStatus
from .models import ChatLine, ChatSettings, CreateKey, IdempotencyKey, Match, MoveRecord, Seat
from .rows import STAND_IN, ChatLineRow, GameFacts, Lag, LogEntry, MatchRow, SeatRow
from .seats import NewSeat

_M = Match.__table__
_S = Seat.__table__
_ROW = (_M.c.pk, _M.c.id, _M.c.tenant_pk, _M.c.variant, _M.c.rules_hash, _M.c.status,
        _M.c.version, _M.c.seed, _M.c.commitment, _M.c.explicit_decks, _M.c.created_at,
        _M.c.updated_at, _M.c.finished_at, _M.c.scores, _M.c.winner, _M.c.draw,
        _M.c.end_reason, _M.c.rounds, _M.c.turn, _M.c.rated, _M.c.rating_changes,
        _M.c.quick, _M.c.tournament_game, _M.c.rematch_id, _M.c.clock_seconds,
        _M.c.clock_timeout, _M.c.deadline, _M.c.timeouts, _M.c.voided_at, _M.c.void_reason,
        _M.c.stand_in, _M.c.dropped, _M.c.spectator_delay, _M.c.sealed)
"""The columns of a :class:`MatchRow`, in its fields' order (its seats apart)."""
_SEAT = (_S.c.seat, _S.c.name, _S.c.player_id, _S.c.bot, _S.c.token_hash, _S.c.vouched)
_READ = (*_ROW, _M.c.rules, _M.c.snapshot, *_SEAT)


def _moment(value: datetime | None) -> datetime | None:
    return None if value is None else as_utc(value)


def _row(r: Sequence[Any], seats: tuple[SeatRow, ...]) -> MatchRow:
    """A row of :data:`_ROW` columns as a :class:`MatchRow`."""
    changes = r[20]
    return MatchRow(
        r[0], r[1], r[2], r[3], r[4], MatchStatus(r[5]), r[6], bytes(r[7]), r[8], r[9],
        as_utc(r[10]), as_utc(r[11]), _moment(r[12]), tuple(r[13]), r[14], r[15],
        EndReason(r[16]) if r[16] else None, r[17], r[18], r[19],
        tuple(changes) if changes is not None else None, r[21], r[22], r[23], r[24],
        ClockTimeout(r[25]) if r[25] else None, _moment(r[26]), tuple(r[27] or ()), seats,
        _moment(r[28]), r[29], r[30] or STAND_IN, tuple(r[31] or ()), r[32], bool(r[33]))


def _found(rows: Sequence[Sequence[Any]]) -> tuple[MatchRow, State]:
    """The match (and its state) of rows of :data:`_READ`, one per seat."""
    first = rows[0]
    seats = tuple(SeatRow(*r[len(_ROW) + 2:]) for r in rows)
    row = _row(first, seats)
    rules = rules_from_json(first[len(_ROW)], row.rules_hash)
    return row, state_from_dict(first[len(_ROW) + 1], rules)


@lru_cache(maxsize=4)
def _by_id(lock: bool) -> Any:
    # built once: neither built nor keyed for the compiled-statement cache on every read
    stmt = select(*_READ).join(_S, _S.c.match_pk == _M.c.pk).where(
        _M.c.id == bindparam("match_id"), _M.c.tenant_pk == bindparam("tenant")
    ).order_by(_S.c.seat)
    return stmt.with_for_update(of=_M) if lock else stmt


def read(match_id: str, tenant: int, *, lock: bool = False) -> tuple[MatchRow, State]:
    """A tenant's match and its state by public id (another tenant's is not found);
    ``lock``: its row locked until the transaction ends (FOR UPDATE on PostgreSQL;
    SQLite's writer already holds the database)."""
    rows = db.session.execute(_by_id(lock), {"match_id": match_id, "tenant": tenant}).all()
    if not rows:
        raise MatchNotFound(f"no match with id {match_id!r}")
    return _found(rows)


@lru_cache(maxsize=1)
def _due() -> Any:
    return select(*_READ).join(_S, _S.c.match_pk == _M.c.pk).where(
        _M.c.id == bindparam("match_id"), _M.c.status == MatchStatus.ACTIVE,
        _M.c.deadline <= bindparam("now"),
    ).order_by(_S.c.seat).with_for_update(of=_M, skip_locked=True)


def read_due(match_id: str, now: datetime) -> tuple[MatchRow, State] | None:
    """The match, locked, if its deadline has passed; None if it has not, or if another
    worker holds it (SKIP LOCKED on PostgreSQL: it is applying that timeout)."""
    rows = db.session.execute(_due(), {"match_id": match_id, "now": now}).all()
    return _found(rows) if rows else None


@lru_cache(maxsize=1)
def _version_by_id() -> Any:
    return select(_M.c.version).where(
        _M.c.id == bindparam("match_id"), _M.c.tenant_pk == bindparam("tenant"))


@lru_cache(maxsize=1)
def _version_by_id_text() -> str:
    """:func:`_version_by_id` as PostgreSQL text, for a psycopg connection of its own."""
    return str(_version_by_id().compile(dialect=postgresql.psycopg.dialect()))


def version_of(match_id: str, tenant: int,
               alone: psycopg.Connection[Any] | None = None) -> int | None:
    """A tenant's match's version (None: no such match), without loading it: on ``alone``
    (from :func:`~service.storage.db.statement_connection`), else on the session's
    connection."""
    params = {"match_id": match_id, "tenant": tenant}
    if alone is not None:
        row = alone.execute(_version_by_id_text(), params).fetchone()
    else:
        row = db.session.execute(_version_by_id(), params).first()
    return None if row is None else int(row[0])


@lru_cache(maxsize=1)
def _facts() -> Any:
    return select(_M.c.version, _M.c.status, _M.c.turn, _M.c.deadline, _M.c.tenant_pk,
                  _M.c.sealed, _M.c.spectator_delay,
                  _S.c.seat, _S.c.token_hash, _S.c.player_id, _S.c.vouched
                  ).join(_S, _S.c.match_pk == _M.c.pk).where(_M.c.id == bindparam("match_id"))


@dataclass(frozen=True)
class Facts:
    """What a poll needs of a match, read without loading it."""

    tenant: int
    version: int
    status: MatchStatus
    turn: int | None
    deadline: datetime | None
    seats: tuple[tuple[int, str, str | None], ...]
    """(seat, token hash, vouched player) of the taken seats."""
    lags: Lag = (False, 0)
    """(sealed, spectator delay)."""


def facts(match_id: str) -> Facts:
    """A match's version, status, turn, deadline and seat keys (any tenant's)."""
    rows = read_rows(_facts(), {"match_id": match_id})
    if not rows:
        raise MatchNotFound(f"no match with id {match_id!r}")
    version, status, turn, deadline, tenant, sealed, delay = rows[0][:7]
    return Facts(tenant, version, MatchStatus(status), turn, _moment(deadline),
                 tuple((r[7], r[8], r[9] if r[10] else None) for r in rows if r[8] is not None),
                 (bool(sealed), int(delay or 0)))


# --- saving a change ------------------------------------------------------------------

_SAVED = ("snapshot", "version", "status", "end_reason", "rounds", "turn", "scores",
          "winner", "draw", "updated_at", "finished_at", "deadline", "timeouts",
          "rating_changes", "rematch_id", "voided_at", "void_reason", "dropped")
"""The columns a change sets."""


@lru_cache(maxsize=2)
def _guard(keyed: bool) -> Any:
    """The UPDATE that saves a change only if the match is still at the version read
    (and, ``keyed``, the seat has not used the move's Idempotency-Key since it expired)."""
    stmt = _M.update().where(_M.c.pk == bindparam("match_pk"),
                             _M.c.version == bindparam("read"))
    if keyed:
        keys = IdempotencyKey.__table__
        stmt = stmt.where(~exists().where(
            keys.c.match_pk == bindparam("match_pk"), keys.c.seat == bindparam("key_seat"),
            keys.c.key == bindparam("key"), keys.c.created_at >= bindparam("key_since")))
    return stmt.values({name: bindparam(f"new_{name}") for name in _SAVED})


@dataclass(frozen=True)
class KeyRecord:
    """An Idempotency-Key to remember with a move: the seat's key and the request's
    fingerprint; a record of the key made at or after ``since`` (not expired) stops the
    save."""

    seat: int
    key: str
    fingerprint: str
    since: datetime


def _listed(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def write(new: MatchRow, state: State, read: int, entries: Sequence[LogEntry],
         parts: Sequence[writes.Rows], *, seats_changed: bool = False,
         key: KeyRecord | None = None, notices: Sequence[str] = (), channel: str = "",
         alone: psycopg.Connection[Any] | None = None) -> bool:
    """Save ``new`` (the match in ``state``) with its log ``entries``, its changed seats,
    ``key``'s record and the other domains' ``parts``, only if the stored match is still
    at version ``read`` (and the seat has not used ``key``); whether it did. The entries
    are numbered from ``read + 1``; ``notices`` go out on ``channel`` when it commits.
    One statement on PostgreSQL, on ``alone`` if given (see :func:`writes.save_if`)."""
    values = {f"new_{name}": _listed(getattr(new, name)) for name in _SAVED[1:]}
    params = {"new_snapshot": state_to_dict(state), **values, "match_pk": new.pk, "read": read}
    mine = [_log(new.pk, read, entries, new.updated_at)]
    if seats_changed:
        mine.append(writes.Rows(_S, tuple(
            {"match_pk": new.pk, "seat": s.seat, "name": s.name, "player_id": s.player_id,
             "token_hash": s.token_hash, "vouched": s.vouched} for s in new.seats),
            key=("match_pk", "seat")))
    if key is not None:
        params.update(key_seat=key.seat, key=key.key, key_since=key.since)
        mine.append(writes.Rows(IdempotencyKey.__table__, ({
            "match_pk": new.pk, "seat": key.seat, "key": key.key,
            "fingerprint": key.fingerprint, "first_seq": read + 1, "version": new.version,
            "created_at": new.updated_at},), upsert=True))
    return writes.save_if(_guard(key is not None), params, [*mine, *parts], notices,
                          channel, alone)


def _log(match_pk: int, read: int, entries: Sequence[LogEntry], now: datetime) -> writes.Rows:
    """Move-log rows of ``entries``, numbered from ``read + 1``."""
    return writes.Rows(MoveRecord.__table__, tuple(
        {"match_pk": match_pk, "seq": read + i, "kind": e.kind, "round": e.round,
         "seat": e.seat, "card": str(e.play.card) if e.play else None,
         "captured": [str(c) for c in e.play.captured] if e.play else None,
         "basra": e.play.basra if e.play else None, "timeout": e.timeout,
         "stand_in": e.stand_in, "created_at": now}
        for i, e in enumerate(entries, start=1)))


def create(match_id: str, tenant: int, variant: str, state: State, seats: Sequence[NewSeat],
           commitment: str, explicit_decks: bool, *, status: MatchStatus, quick: bool,
           clock: tuple[int, ClockTimeout] | None, rated: bool,
           tournament_game: bool = False, stand_in: str | None = None,
           spectator_delay: int = 0, sealed: bool = False) -> MatchRow:
    """Insert a tenant's match at version 0, its seats and its starting snapshot."""
    now = utcnow()
    seconds, timeout = clock if clock else (None, None)
    stand_in = stand_in or STAND_IN
    fixed = {"id": match_id, "tenant_pk": tenant, "variant": variant,
             "rules": state.rules.to_dict(), "rules_hash": state.rules.content_hash,
             "seed": state.seed, "commitment": commitment, "explicit_decks": explicit_decks,
             "created_at": now, "quick": quick, "tournament_game": tournament_game,
             "rated": rated, "clock_seconds": seconds,
             "clock_timeout": timeout, "stand_in": stand_in,
             "spectator_delay": spectator_delay, "sealed": sealed}
    row = MatchRow(
        0, match_id, tenant, variant, state.rules.content_hash, status, 0, state.seed,
        commitment, explicit_decks, now, now, None, (), None, False, None, 1, None, rated,
        None, quick, tournament_game, None, seconds, timeout, None, (0,) * len(seats),
        tuple(SeatRow(i, s.name, s.player_id, s.bot, s.token_hash, s.vouched)
              for i, s in enumerate(seats)),
        stand_in=stand_in, spectator_delay=spectator_delay, sealed=sealed,
    ).after(state, 0, now, status=status)
    saved = {name: _listed(getattr(row, name)) for name in _SAVED[1:]}
    pk = db.session.execute(insert(_M).returning(_M.c.pk), {
        **fixed, **saved, "snapshot": state_to_dict(state)}).scalar_one()
    db.session.execute(insert(_S), [
        {"match_pk": pk, "seat": s.seat, "name": s.name, "player_id": s.player_id, "bot": s.bot,
         "token_hash": s.token_hash, "vouched": s.vouched} for s in row.seats])
    return dataclasses.replace(row, pk=pk)


# --- the worker's and the lobby's look-ups -------------------------------------------------


def due_matches(now: datetime, limit: int = 50) -> list[str]:
    """Ids of active matches whose deadline has passed, the most overdue first."""
    stmt = select(_M.c.id).where(_M.c.status == MatchStatus.ACTIVE, _M.c.deadline <= now) \
        .order_by(_M.c.deadline).limit(limit)
    return list(db.session.execute(stmt).scalars())


def unfilled_tables(before: datetime, limit: int = 50) -> list[tuple[str, int]]:
    """(id, tenant) of matches still waiting for players that were made before ``before``."""
    stmt = select(_M.c.id, _M.c.tenant_pk).where(
        _M.c.status == MatchStatus.WAITING, _M.c.created_at < before
    ).order_by(_M.c.pk).limit(limit)
    return [(row[0], row[1]) for row in db.session.execute(stmt)]


def quick_tables(tenant: int, rules_hash: str, since: datetime, rated: bool = False,
                 limit: int = 1) -> list[tuple[MatchRow, State]]:
    """The oldest ``limit`` waiting quick-play matches of a tenant with these rules (rated
    or not) made after ``since`` (older ones have expired), locked."""
    locked = db.session.execute(select(_M.c.pk).where(
        _M.c.tenant_pk == tenant, _M.c.status == MatchStatus.WAITING, _M.c.quick.is_(True),
        _M.c.rules_hash == rules_hash, _M.c.created_at >= since, _M.c.rated.is_(rated),
    ).order_by(_M.c.pk).limit(limit).with_for_update(of=_M)).scalars().all()
    return _read_locked(locked)


def quick_tables_of(tenant: int, player_id: str, since: datetime, variant: str | None = None,
                    limit: int = 20) -> list[tuple[MatchRow, State]]:
    """The waiting quick-play matches of a tenant (of ``variant``, or every one) where
    the vouched player ``player_id`` holds a seat, made after ``since``, locked."""
    mine = select(_S.c.match_pk).where(_S.c.player_id == player_id, _S.c.vouched.is_(True))
    query = select(_M.c.pk).where(
        _M.c.tenant_pk == tenant, _M.c.status == MatchStatus.WAITING, _M.c.quick.is_(True),
        _M.c.created_at >= since, _M.c.pk.in_(mine))
    if variant is not None:
        query = query.where(_M.c.variant == variant)
    locked = db.session.execute(
        query.order_by(_M.c.pk).limit(limit).with_for_update(of=_M)).scalars().all()
    return _read_locked(locked)


def matches_of(tenant: int, player_id: str, statuses: Sequence[MatchStatus],
               limit: int = 100) -> list[str]:
    """Ids of a tenant's matches in ``statuses`` where the vouched player holds a seat,
    oldest first."""
    mine = select(_S.c.match_pk).where(_S.c.player_id == player_id, _S.c.vouched.is_(True))
    return list(db.session.execute(select(_M.c.id).where(
        _M.c.tenant_pk == tenant, _M.c.status.in_(list(statuses)), _M.c.pk.in_(mine)
    ).order_by(_M.c.pk).limit(limit)).scalars())


@dataclass(frozen=True)
class Pseudonymized:
    """What replacing a player's id changed: the seats (match id, seat) they held, and
    each match's new version with the facts its NOTIFY carries."""

    seats: frozenset[tuple[str, int]]
    versions: tuple[tuple[str, int, MatchStatus, int | None, datetime | None], ...]


def pseudonymize(tenant: int, player_id: str, pseudonym: str, name: str,
                 creator: str, words: str) -> Pseudonymized:
    """Replace a player's id (and name) in every seat of the tenant's matches (the seat
    vouched for no more) and in their rating changes by ``pseudonym``, the texts they
    said at a table by ``words``, each match a version on, and forget the creates they
    made (``creator``: their create keys' caller), in the caller's write
    transaction."""
    held = db.session.execute(select(_M.c.pk, _M.c.id, _S.c.seat, _M.c.rating_changes)
                              .join(_S, _S.c.match_pk == _M.c.pk)
                              .where(_M.c.tenant_pk == tenant, _S.c.player_id == player_id)
                              .with_for_update(of=_M)).all()
    pks = sorted({pk for pk, _, _, _ in held})
    for pk, _, _, changes in {r[0]: r for r in held}.values():
        if changes and any(c.get("player_id") == player_id for c in changes):
            db.session.execute(_M.update().where(_M.c.pk == pk).values(rating_changes=[
                {**c, "player_id": pseudonym} if c.get("player_id") == player_id else c
                for c in changes]))
    db.session.execute(delete(CreateKey).where(CreateKey.tenant_pk == tenant,
                                               CreateKey.caller == creator))
    db.session.execute(update(ChatLine).where(
        ChatLine.player_id == player_id,
        ChatLine.match_pk.in_(select(_M.c.pk).where(_M.c.tenant_pk == tenant))
    ).values(player_id=pseudonym, name=name,
             text=case((ChatLine.text.is_(None), None), else_=words)))
    if not pks:
        return Pseudonymized(frozenset(), ())
    # nobody vouches for a pseudonym: its seat counts in no record or rating again
    db.session.execute(_S.update().where(_S.c.match_pk.in_(pks), _S.c.player_id == player_id)
                       .values(player_id=pseudonym, name=name, vouched=False))
    # a new version: every process's views of the old one (and clients' ETags) lapse
    versions = db.session.execute(_M.update().where(_M.c.pk.in_(pks))
                                  .values(version=_M.c.version + 1)
                                  .returning(_M.c.id, _M.c.version, _M.c.status, _M.c.turn,
                                             _M.c.deadline)).all()
    return Pseudonymized(frozenset((match_id, seat) for _, match_id, seat, _ in held),
                         tuple((i, v, MatchStatus(st), t, _moment(d))
                               for i, v, st, t, d in versions))


def _read_locked(locked: Sequence[int]) -> list[tuple[MatchRow, State]]:
    """The matches (and states) of these locked primary keys, in their order."""
    if not locked:
        return []
    by_match: dict[int, list[Any]] = {}
    for r in db.session.execute(select(*_READ).join(_S, _S.c.match_pk == _M.c.pk)
                                .where(_M.c.pk.in_(locked)).order_by(_M.c.pk, _S.c.seat)):
        by_match.setdefault(r[0], []).append(r)
    return [_found(rows) for rows in by_match.values()]


def lock_quick_play(tenant: int, rules_hash: str) -> None:
    """Serialise quick-play callers of one tenant and rule set until the transaction ends
    (a PostgreSQL advisory lock; SQLite's writer already holds the database)."""
    if backend() == "postgresql":
        key = int.from_bytes(hashlib.sha256(f"{tenant}:{rules_hash}".encode()).digest()[:8],
                             "big", signed=True)
        db.session.execute(select(func.pg_advisory_xact_lock(key)))


# --- the move log and idempotency keys ----------------------------------------------------


def move_log(match_pk: int, first: int = 1, last: int | None = None) -> list[MoveRecord]:
    """The match's log entries ``first`` to ``last`` (default: all), in order."""
    stmt = select(MoveRecord).where(MoveRecord.match_pk == match_pk, MoveRecord.seq >= first)
    if last is not None:
        stmt = stmt.where(MoveRecord.seq <= last)
    return list(db.session.execute(stmt.order_by(MoveRecord.seq)).scalars())


def moves_between(match_id: str, tenant: int, after: int, last: int) -> list[MoveRecord]:
    """A tenant's match's log entries ``after`` (excluded) to ``last``, in order, in one
    statement."""
    pk = select(_M.c.pk).where(_M.c.id == match_id, _M.c.tenant_pk == tenant)
    stmt = select(MoveRecord).where(MoveRecord.match_pk == pk.scalar_subquery(),
                                    MoveRecord.seq > after, MoveRecord.seq <= last)
    return list(db.session.execute(stmt.order_by(MoveRecord.seq)).scalars())


_BASRAS_MADE = (select(MoveRecord.seat, MoveRecord.basra, func.count())
                .where(MoveRecord.match_pk == bindparam("match"), MoveRecord.basra.is_not(None))
                .group_by(MoveRecord.seat, MoveRecord.basra))


def basras_made(match_pk: int) -> Mapping[tuple[int, str], int]:
    """(seat, basra kind) -> how many the seat made, as logged so far."""
    return {(seat, kind): n for seat, kind, n in read_rows(_BASRAS_MADE, {"match": match_pk})}


def find_idempotent(match_pk: int, seat: int, key: str, since: datetime) -> IdempotencyKey | None:
    """The record of this seat's Idempotency-Key if it was used at or after ``since``
    (older keys have expired)."""
    found = db.session.get(IdempotencyKey, (match_pk, seat, key))
    if found is None or as_utc(found.created_at) < since:
        return None
    return found


def purge_idempotency(before: datetime, limit: int = 10_000) -> int:
    """Delete up to ``limit`` idempotency records (of moves, and of creates) made before
    ``before``; how many."""
    purged = 0
    for table, columns in (
            (IdempotencyKey, (IdempotencyKey.match_pk, IdempotencyKey.seat, IdempotencyKey.key)),
            (CreateKey, (CreateKey.tenant_pk, CreateKey.caller, CreateKey.key))):
        old = select(*columns).where(table.created_at < before).limit(limit)
        result = db.session.execute(delete(table).where(tuple_(*columns).in_(old)))
        purged += int(result.rowcount or 0)  # type: ignore[attr-defined]
    return purged


@dataclass(frozen=True)
class CreateRecord:
    """A create's Idempotency-Key as stored: the body's fingerprint, the match it made
    and what its seat tokens were derived from."""

    fingerprint: str
    match_id: str
    salt: str
    token_check: str


def find_create(tenant: int, caller: str, key: str, since: datetime) -> CreateRecord | None:
    """The record of a caller's create Idempotency-Key if it was used at or after
    ``since`` (older keys have expired)."""
    row = db.session.execute(
        select(CreateKey.fingerprint, Match.id, CreateKey.salt, CreateKey.token_check,
               CreateKey.created_at).join(Match, Match.pk == CreateKey.match_pk)
        .where(CreateKey.tenant_pk == tenant, CreateKey.caller == caller,
               CreateKey.key == key)).first()
    if row is None or as_utc(row[4]) < since:
        return None
    return CreateRecord(*row[:4])


def remember_create(tenant: int, caller: str, key: str, record: CreateRecord, match_pk: int,
                    since: datetime) -> bool:
    """Record a create's Idempotency-Key with the match it made (an expired record of the
    key is replaced); False if a record made at or after ``since`` holds it already (a
    concurrent create with the key made its match first)."""
    mine = (CreateKey.tenant_pk == tenant, CreateKey.caller == caller, CreateKey.key == key)
    db.session.execute(delete(CreateKey).where(*mine, CreateKey.created_at < since))
    dialect = postgresql if backend() == "postgresql" else sqlite
    stmt = dialect.insert(CreateKey).values(
        tenant_pk=tenant, caller=caller, key=key, fingerprint=record.fingerprint,
        match_pk=match_pk, salt=record.salt, token_check=record.token_check,
        created_at=utcnow()).on_conflict_do_nothing()
    return bool(db.session.execute(stmt).rowcount)  # type: ignore[attr-defined]


# --- table chat ---------------------------------------------------------------------


def _chat_wake(columns: Any) -> Any:
    """A chat line's NOTIFY payload: its match's chat key and its number (as
    :func:`~.rows.chat_key` makes the key)."""
    colon = literal_column("':'")
    return func.concat(literal_column("'c'"), cast(columns.match_pk, Text), colon,
                       columns.pk)


def chat_line(match_pk: int, seat: int | None, player_id: str | None, name: str,
              phrase: str | None, text: str | None, filtered: bool) -> writes.Rows:
    """A line to write (caller's write transaction); on PostgreSQL it wakes the
    match's chat readers when it commits."""
    return writes.Rows(ChatLine.__table__, ({
        "match_pk": match_pk, "seat": seat, "player_id": player_id, "name": name,
        "phrase": phrase, "text": text, "filtered": filtered, "created_at": utcnow()},),
        wake=_chat_wake)


def chat_lines(match_pk: int, after: int, limit: int) -> list[ChatLineRow]:
    """A match's lines after ``after``, oldest first (caller's transaction)."""
    found = db.session.execute(select(
        ChatLine.pk, ChatLine.seat, ChatLine.player_id, ChatLine.name, ChatLine.phrase,
        ChatLine.text, ChatLine.filtered, ChatLine.created_at)
        .where(ChatLine.match_pk == match_pk, ChatLine.pk > after)
        .order_by(ChatLine.pk).limit(limit)).all()
    return [ChatLineRow(pk, seat, player, name, phrase, text, filtered, as_utc(at))
            for pk, seat, player, name, phrase, text, filtered, at in found]


def chat_said_by(tenant: int, player_id: str, limit: int) -> list[tuple[str, ChatLineRow]]:
    """The lines a player said at the tenant's tables, oldest first, each with its match's
    id (at most ``limit``)."""
    found = db.session.execute(select(
        _M.c.id, ChatLine.pk, ChatLine.seat, ChatLine.player_id, ChatLine.name,
        ChatLine.phrase, ChatLine.text, ChatLine.filtered, ChatLine.created_at)
        .join(_M, _M.c.pk == ChatLine.match_pk)
        .where(_M.c.tenant_pk == tenant, ChatLine.player_id == player_id)
        .order_by(ChatLine.pk).limit(limit)).all()
    return [(match_id, ChatLineRow(pk, seat, player, name, phrase, text, filtered, as_utc(at)))
            for match_id, pk, seat, player, name, phrase, text, filtered, at in found]


def newest_chat_line(match_pk: int) -> int:
    """The number of a match's newest line (0: none) (caller's transaction)."""
    return int(db.session.execute(select(func.max(ChatLine.pk)).where(
        ChatLine.match_pk == match_pk)).scalar_one_or_none() or 0)


def chat_said(match_pk: int, player_id: str | None, seat: int | None,
              since: datetime) -> tuple[int, int]:
    """(lines the speaker said at the match since ``since``, lines said there in all)."""
    mine = ChatLine.player_id == player_id if player_id is not None else and_(
        ChatLine.player_id.is_(None), ChatLine.seat == seat)
    recent, total = db.session.execute(select(
        func.count().filter(and_(mine, ChatLine.created_at >= since)), func.count())
        .where(ChatLine.match_pk == match_pk)).one()
    return int(recent), int(total)


def chat_settings(tenant: int) -> ChatSettings | None:
    """The front end's chat settings as kept (None: the defaults)."""
    return db.session.get(ChatSettings, tenant)


def keep_chat_settings(tenant: int, mode: str, spectators: bool, words: list[str]) -> None:
    """Keep the front end's chat settings (caller's write transaction)."""
    kept = db.session.get(ChatSettings, tenant)
    if kept is None:
        kept = ChatSettings(tenant_pk=tenant)
        db.session.add(kept)
    kept.mode, kept.spectators, kept.words, kept.updated_at = mode, spectators, words, utcnow()


def read_sealed(match_pks: Sequence[int]) -> list[tuple[MatchRow, State]]:
    """Those of these matches still sealed, each locked, in pk order (caller's write
    transaction)."""
    found = []
    for match_id, tenant in db.session.execute(
            select(_M.c.id, _M.c.tenant_pk).where(_M.c.pk.in_(list(match_pks)),
                                                  _M.c.sealed.is_(True)).order_by(_M.c.pk)):
        found.append(read(match_id, tenant, lock=True))
    return found


def unseal(match_pks: Sequence[int]) -> None:
    """Make these matches' seeds and plays public (their duplicate round is over)."""
    if match_pks:
        db.session.execute(update(_M).where(_M.c.pk.in_(list(match_pks))).values(sealed=False))


def keep_rating_changes(match_pk: int, changes: Sequence[dict[str, Any]]) -> None:
    """Keep a match's rating changes, rated after it finished (an unsealed table)."""
    db.session.execute(update(_M).where(_M.c.pk == match_pk).values(
        rating_changes=list(changes)))


def ids_of(match_pks: Iterable[int]) -> dict[int, str]:
    """The ids of these matches, by key (caller's transaction)."""
    wanted = set(match_pks)
    return dict(db.session.execute(select(Match.pk, Match.id).where(
        Match.pk.in_(wanted))).all()) if wanted else {}


def pk_of(tenant: int, match_id: str) -> int | None:
    """The key of the front end's match ``match_id`` (caller's transaction)."""
    return db.session.execute(select(Match.pk).where(
        Match.id == match_id, Match.tenant_pk == tenant)).scalar_one_or_none()


def games_of(match_pks: Iterable[int]) -> dict[int, GameFacts]:
    """What a tournament's games show of their matches, by key (caller's transaction)."""
    wanted = set(match_pks)
    rows = db.session.execute(select(
        Match.pk, Match.id, Match.status, Match.winner, Match.draw, Match.commitment,
        Match.sealed, Match.spectator_delay).where(Match.pk.in_(wanted))).all() \
        if wanted else []
    return {pk: GameFacts(*facts) for pk, *facts in rows}


def states_of(match_pks: Iterable[int]) -> dict[int, State]:
    """The engine states of these matches, by key (caller's transaction)."""
    wanted = set(match_pks)
    rows = db.session.execute(select(Match.pk, Match.rules, Match.rules_hash, Match.snapshot)
                              .where(Match.pk.in_(wanted))).all() if wanted else []
    return {pk: state_from_dict(snapshot, rules_from_json(rules, rules_hash))
            for pk, rules, rules_hash, snapshot in rows}
