"""What every domain's tables are built from: the column types both backends share and
the clock of stored times. The tables themselves are in each domain's ``models.py``."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import JSON, BigInteger, Integer
from sqlalchemy.dialects.postgresql import JSONB

# JSON documents: JSONB on PostgreSQL, JSON text on SQLite
JSONDoc = JSON().with_variant(JSONB(), "postgresql")

PK = BigInteger().with_variant(Integer(), "sqlite")
"""BIGINT on PostgreSQL, INTEGER on SQLite (so it is the rowid and autoincrements)."""


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """A stored time, zone-aware (SQLite hands them back without their zone: UTC)."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
