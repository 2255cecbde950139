"""Matches in the database, read: a match's row, seats and state (locked or not), its
version and what a poll needs without loading it, the worker's and the lobby's look-ups,
the move log, and what other domains ask of matches by key. Rows only: it reads
:class:`~.rows.MatchRow` values and the engine state; a change is saved by :mod:`.saves`,
Idempotency-Keys kept by :mod:`.idempotency`, table chat by :mod:`.chat_store`. It runs
inside the transaction its caller opened (:mod:`service.storage.db`); no rules here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

import psycopg
from sqlalchemy import (
    and_,
    bindparam,
    func,
    or_,
    select,
)
from sqlalchemy.dialects import postgresql

from ..engine import State, rules_from_json, state_from_dict
from ..errors import MatchNotFound
from ..storage.base import as_utc
from ..storage.db import backend, db, read_rows
from .enums import ClockTimeout, EndReason, MatchStatus
from .models import Match, MoveRecord, Seat
from .rows import STAND_IN, GameFacts, Lag, MatchRow, SeatRow, Stake

_M = Match.__table__
_S = Seat.__table__
_ROW = (_M.c.pk, _M.c.id, _M.c.tenant_pk, _M.c.variant, _M.c.rules_hash, _M.c.status,
        _M.c.version, _M.c.seed, _M.c.commitment, _M.c.explicit_decks, _M.c.created_at,
        _M.c.updated_at, _M.c.finished_at, _M.c.scores, _M.c.winner, _M.c.draw,
        _M.c.end_reason, _M.c.rounds, _M.c.turn, _M.c.rated, _M.c.rating_changes,
        _M.c.quick, _M.c.tournament_game, _M.c.rematch_id, _M.c.clock_seconds,
        _M.c.clock_timeout, _M.c.deadline, _M.c.timeouts, _M.c.voided_at, _M.c.void_reason,
        _M.c.stand_in, _M.c.dropped, _M.c.spectator_delay, _M.c.sealed,
        _M.c.stake_currency, _M.c.stake_amount, _M.c.rake_share_bp, _M.c.rake_cap)
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
        _moment(r[28]), r[29], r[30] or STAND_IN, tuple(r[31] or ()), r[32], bool(r[33]),
        None if r[34] is None else Stake(r[34], int(r[35]), r[36] or 0, r[37]))


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


# --- the worker's and the lobby's look-ups -------------------------------------------------


def due_matches(now: datetime, limit: int = 50) -> list[str]:
    """Ids of active matches whose deadline has passed, the most overdue first."""
    stmt = select(_M.c.id).where(_M.c.status == MatchStatus.ACTIVE, _M.c.deadline <= now) \
        .order_by(_M.c.deadline).limit(limit)
    return list(db.session.execute(stmt).scalars())


def open_from() -> int | None:
    """The smallest key of a match still waiting or in play (None: none is)."""
    return db.session.execute(select(func.min(_M.c.pk)).where(
        _M.c.status.in_((MatchStatus.WAITING, MatchStatus.ACTIVE)))).scalar()


def ended_rated_or_staked(first: int, below: int | None, limit: int) -> list[tuple[int, int]]:
    """(key, tenant) of the finished rated or staked matches with a key from ``first``
    (below ``below``), in key order."""
    stmt = select(_M.c.pk, _M.c.tenant_pk).where(
        _M.c.status == MatchStatus.FINISHED, _M.c.pk >= first,
        or_(_M.c.rated.is_(True), _M.c.stake_currency.is_not(None)), _M.c.voided_at.is_(None))
    if below is not None:
        stmt = stmt.where(_M.c.pk < below)
    return [(r[0], r[1]) for r in db.session.execute(stmt.order_by(_M.c.pk).limit(limit))]


def unfilled_tables(before: datetime, limit: int = 50) -> list[tuple[str, int]]:
    """(id, tenant) of matches still waiting for players that were made before ``before``."""
    stmt = select(_M.c.id, _M.c.tenant_pk).where(
        _M.c.status == MatchStatus.WAITING, _M.c.created_at < before
    ).order_by(_M.c.pk).limit(limit)
    return [(row[0], row[1]) for row in db.session.execute(stmt)]


def quick_tables(tenant: int, rules_hash: str, since: datetime, rated: bool = False,
                 limit: int = 1, stake: tuple[str, int] | None = None
                 ) -> list[tuple[MatchRow, State]]:
    """The oldest ``limit`` waiting quick-play matches of a tenant with these rules (rated
    or not) at this ``stake`` (currency, amount; None: unstaked) made after ``since``
    (older ones have expired), locked."""
    at_stake = _M.c.stake_currency.is_(None) if stake is None else and_(
        _M.c.stake_currency == stake[0], _M.c.stake_amount == stake[1])
    locked = db.session.execute(select(_M.c.pk).where(
        _M.c.tenant_pk == tenant, _M.c.status == MatchStatus.WAITING, _M.c.quick.is_(True),
        _M.c.rules_hash == rules_hash, _M.c.created_at >= since, _M.c.rated.is_(rated),
        at_stake,
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


# --- the move log ------------------------------------------------------------------------


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


def read_sealed(match_pks: Sequence[int]) -> list[tuple[MatchRow, State]]:
    """Those of these matches still sealed, each locked, in pk order (caller's write
    transaction)."""
    found = []
    for match_id, tenant in db.session.execute(
            select(_M.c.id, _M.c.tenant_pk).where(_M.c.pk.in_(list(match_pks)),
                                                  _M.c.sealed.is_(True)).order_by(_M.c.pk)):
        found.append(read(match_id, tenant, lock=True))
    return found



def ids_of(match_pks: Iterable[int]) -> dict[int, str]:
    """The ids of these matches, by key (caller's transaction)."""
    wanted = set(match_pks)
    return dict(db.session.execute(select(Match.pk, Match.id).where(
        Match.pk.in_(wanted))).all()) if wanted else {}


def pk_of(tenant: int, match_id: str) -> int | None:
    """The key of the front end's match ``match_id`` (caller's transaction)."""
    return db.session.execute(select(Match.pk).where(
        Match.id == match_id, Match.tenant_pk == tenant)).scalar_one_or_none()


def ended_of(match_pks: Iterable[int]) -> set[int]:
    """Of these keys, those of matches over (finished or aborted) or no longer stored
    (caller's transaction)."""
    wanted = set(match_pks)
    if not wanted:
        return set()
    live = set(db.session.execute(select(Match.pk).where(
        Match.pk.in_(wanted), Match.status.in_([MatchStatus.WAITING, MatchStatus.ACTIVE])
    )).scalars())
    return wanted - live


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
