"""Rows kept for a retention: on PostgreSQL a table partitioned by day, whose old days are
dropped whole; on SQLite the same rows deleted.

A partitioned table (``PARTITION BY RANGE`` on a time column, plain declarative
partitions: no extension, no superuser, no background worker of the database's own) has a
partition per UTC day, made :data:`DAYS_AHEAD` ahead by :func:`make_ahead`, and a default
partition that takes any row no day holds: rows written while nobody made their day, and
the rows a retention holds. :func:`expire` drops every day wholly older than the retention,
first moving the rows its ``hold`` condition keeps (a reported match's moves, a webhook
message still to deliver) into the default partition, then deletes from the default
partition what is no longer held. Each runs in one transaction under the table's advisory
lock (a second worker skips the pass) with a short lock timeout (a busy table is tried
again at the next pass), and does nothing when there is nothing to do.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
from sqlalchemy import text

from .base import utcnow
from .db import backend, db, transaction
from .errors import DatabaseUnavailable

log = logging.getLogger(__name__)

DAYS_AHEAD = 7
"""Days made ahead of today: the worker may stop this long before rows fall to the default."""

LOCK_TIMEOUT = "2s"
"""How long a partition's DDL waits for a table's lock before it leaves it to a later pass."""

_BOUND = re.compile(r"FROM \((?:'([^']*)'|MINVALUE)\) TO \((?:'([^']*)'|MAXVALUE)\)")


@dataclass(frozen=True)
class Partition:
    """One partition of a table: its name and the times it holds, ``low`` to ``high``
    (None: no bound); the default partition has neither."""

    name: str
    low: datetime | None
    high: datetime | None
    default: bool = False

    def holds(self, moment: datetime) -> bool:
        """Whether a row at ``moment`` belongs here (the default partition aside)."""
        return (not self.default and (self.low is None or self.low <= moment)
                and (self.high is None or moment < self.high))


@dataclass(frozen=True)
class Expired:
    """What :func:`expire` removed: whole partitions, and rows deleted one by one (SQLite's,
    or the default partition's on PostgreSQL)."""

    partitions: int = 0
    rows: int = 0


def day_of(moment: datetime) -> datetime:
    """The UTC midnight that starts ``moment``'s day."""
    return moment.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def default_name(table: str) -> str:
    """The name of ``table``'s default partition."""
    return f"{table}_default"


def partitions(table: str) -> list[Partition]:
    """``table``'s partitions, the default last (none if it is not partitioned); in the
    caller's transaction."""
    db.session.execute(text("SET LOCAL TimeZone = 'UTC'"))  # bounds rendered as +00
    rows = db.session.execute(text(
        "SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i "
        "JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = CAST(:table AS regclass) "
        "ORDER BY c.relname"), {"table": table}).all()
    found = []
    for name, bound in rows:
        if bound == "DEFAULT":
            found.append(Partition(name, None, None, default=True))
            continue
        match = _BOUND.search(bound)
        if match is None:  # not a range by time: not one of ours to manage
            continue
        low, high = (datetime.fromisoformat(b) if b else None for b in match.groups())
        found.append(Partition(name, low, high))
    return sorted(found, key=lambda p: (p.default, p.low or datetime.min.replace(tzinfo=UTC)))


def make_ahead(table: str, column: str, now: datetime | None = None,
               days: int = DAYS_AHEAD) -> list[str]:
    """Make ``table``'s partition of each day from today to ``days`` ahead that no
    partition holds yet (PostgreSQL; nothing on SQLite); the names made."""
    if backend() != "postgresql":
        return []
    today = day_of(now or utcnow())
    made: list[str] = []
    with _managing(table) as managing:
        if not managing:
            return made
        present = partitions(table)
        for ahead in range(days + 1):
            low = today + timedelta(days=ahead)
            if any(p.holds(low) for p in present):
                continue
            made.append(_make_day(table, column, low, any(p.default for p in present)))
    if made:
        log.info("partitions made", extra={"table": table, "partitions": made})
    return made


def _make_day(table: str, column: str, low: datetime, has_default: bool) -> str:
    """Make the partition of the day from ``low``; rows the default partition took for it
    (nobody made the day in time) are moved into it first, as PostgreSQL requires."""
    name = f"{table}_p{low:%Y%m%d}"
    bounds = {"low": low, "high": low + timedelta(days=1)}
    span = f"FROM ('{low.isoformat()}') TO ('{bounds['high'].isoformat()}')"
    default = default_name(table)
    strays = has_default and db.session.execute(text(
        f"SELECT 1 FROM {default} WHERE {column} >= :low AND {column} < :high LIMIT 1"),
        bounds).first() is not None
    if not strays:
        db.session.execute(text(f"CREATE TABLE {name} PARTITION OF {table} FOR VALUES {span}"))
        return name
    db.session.execute(text(f"CREATE TABLE {name} (LIKE {table} INCLUDING DEFAULTS)"))
    db.session.execute(text(
        f"WITH moved AS (DELETE FROM {default} WHERE {column} >= :low AND {column} < :high "
        f"RETURNING *) INSERT INTO {name} SELECT * FROM moved"), bounds)
    db.session.execute(text(f"ALTER TABLE {table} ATTACH PARTITION {name} FOR VALUES {span}"))
    return name


def expire(table: str, column: str, before: datetime, hold: str = "false",
           params: dict[str, Any] | None = None) -> Expired:
    """Remove ``table``'s rows older than ``before`` but those ``hold`` (SQL over the
    table's columns, with ``params`` and ``:before``) keeps: on PostgreSQL every partition
    wholly older dropped, its held rows moved into the default partition first, and the
    old rows no longer held deleted from the default partition and from the partition of
    the rows from before partitioning; on SQLite the rows deleted."""
    bound = {**(params or {}), "before": before}
    if backend() != "postgresql":
        with transaction(write=True):
            deleted = db.session.execute(text(
                f"DELETE FROM {table} WHERE {column} < :before AND NOT ({hold})"), bound)
            return Expired(rows=deleted.rowcount or 0)  # type: ignore[attr-defined]
    dropped = 0
    with _managing(table) as managing:
        if not managing:
            return Expired()
        present = partitions(table)
        default = next((p for p in present if p.default), None)
        for old in present:
            if old.default or old.high is None or old.high > before:
                continue
            db.session.execute(text(f"ALTER TABLE {table} DETACH PARTITION {old.name}"))
            if default is not None:  # no partition holds these times now: the default does
                db.session.execute(text(
                    f"INSERT INTO {table} SELECT * FROM {old.name} WHERE {hold}"), bound)
            db.session.execute(text(f"DROP TABLE {old.name}"))
            dropped += 1
        deleted = 0
        # the default partition, and the one that took the rows from before partitioning
        # (no low bound) while it still reaches past ``before``, lose their old rows one by one
        straddling = [p for p in present if p.default or (p.low is None and p.high is not None
                                                            and p.high > before)]
        for partition in straddling:
            deleted += db.session.execute(text(
                f"DELETE FROM {partition.name} WHERE {column} < :before AND NOT ({hold})"),
                bound).rowcount or 0  # type: ignore[attr-defined]
    if dropped:
        log.info("partitions dropped", extra={"table": table, "partitions": dropped})
    return Expired(dropped, deleted)


def hold_off(table: str) -> None:
    """Let no :func:`expire` of ``table`` run until the caller's transaction ends (one
    about to keep rows of it: a report's match): a shared advisory lock on PostgreSQL,
    nothing on SQLite (one writer at a time)."""
    if backend() == "postgresql":
        db.session.execute(text("SELECT pg_advisory_xact_lock_shared(hashtext(:key))"),
                           {"key": _lock_key(table)})


def _lock_key(table: str) -> str:
    return f"basra.partitions.{table}"


@contextmanager
def _managing(table: str) -> Iterator[bool]:
    """A write transaction holding ``table``'s advisory lock (``True``), or nothing done
    (``False``) when another worker holds it; a table lock not had in
    :data:`LOCK_TIMEOUT` rolls it back, left to a later pass."""
    try:
        with transaction(write=True):
            db.session.execute(text(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'"))
            yield bool(db.session.execute(
                text("SELECT pg_try_advisory_xact_lock(hashtext(:key))"),
                {"key": _lock_key(table)}).scalar())
    except DatabaseUnavailable as error:
        if not _lock_timed_out(error):
            raise
        log.warning("table busy; partitions left to the next pass", extra={"table": table})


def _lock_timed_out(error: BaseException | None) -> bool:
    """Whether ``error`` (or what caused it) is PostgreSQL's lock timeout."""
    while error is not None:
        if isinstance(error, psycopg.errors.LockNotAvailable):
            return True
        error = error.__cause__
    return False


_PARTITION_NAME = re.compile(r"^(.+)_(?:default|history|p\d{8})$")


def is_partition(name: str, tables: Collection[str]) -> bool:
    """Whether table ``name`` is a partition of one of ``tables`` (by the names given
    here): what Alembic compares is the partitioned table, not its days."""
    found = _PARTITION_NAME.match(name)
    return found is not None and found.group(1) in tables


def include_name(name: str | None, kind: str, parents: Mapping[str, str | None]) -> bool:
    """Alembic's ``include_name``: every name but a partition of the models' tables."""
    return kind != "table" or name is None or not is_partition(name, db.metadata.tables)
