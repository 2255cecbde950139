"""Tables of the front ends: tenants, their API keys, their staff's keys and console
sessions, the audit log, each front end's settings."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, DateTime, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from ..storage.base import PK, utcnow
from ..storage.db import db

LOCAL_TENANT = 1
"""The built-in tenant of requests without an API key (``BASRA_API_KEYS=optional``)."""


class Tenant(db.Model):  # type: ignore[name-defined,misc]
    """A front end: it owns the matches created with its API keys."""

    __tablename__ = "tenants"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    origins: Mapped[list[str]] = mapped_column(JSON, nullable=False, default=list)
    """Unused since each key has its own origins (kept for older instances)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    player_secret: Mapped[str | None] = mapped_column(String(64))
    """Signs its players' tokens (HS256); made on first use."""
    previous_player_secret: Mapped[str | None] = mapped_column(String(64))
    """The secret before the last rotation: its tokens still accepted until
    ``previous_secret_until``."""
    previous_secret_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ApiKey(db.Model):  # type: ignore[name-defined,misc]
    """An API key of a tenant, stored only as its SHA-256."""

    __tablename__ = "api_keys"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    key_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    prefix: Mapped[str] = mapped_column(String(16), nullable=False)
    """The key's first characters, to tell keys apart in listings."""
    origins: Mapped[list[str]] = mapped_column(JSON, nullable=False, default=list)
    """Browser origins the key may be used from; empty: a server key (any caller, and
    it may vouch for players)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class StaffKey(db.Model):  # type: ignore[name-defined,misc]
    """A key of one of a front end's staff, stored only as its SHA-256: exchanged at sign-in
    for a session of the console, and no API key for anything else."""

    __tablename__ = "staff_keys"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    name: Mapped[str] = mapped_column(String(64), nullable=False)
    """Who holds it, as the audit log names what they do (``staff:<name>``)."""
    role: Mapped[str] = mapped_column(String(16), nullable=False)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    prefix: Mapped[str] = mapped_column(String(16), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_staff_keys_tenant_pk", "tenant_pk"),)


class StaffSession(db.Model):  # type: ignore[name-defined,misc]
    """A signed-in console: its cookie's token and its CSRF token, both only as SHA-256."""

    __tablename__ = "staff_sessions"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    staff_key_pk: Mapped[int] = mapped_column(
        ForeignKey("staff_keys.pk", ondelete="CASCADE"), nullable=False
    )
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    csrf_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """Signed out."""

    __table_args__ = (Index("ix_staff_sessions_staff_key_pk", "staff_key_pk"),)


class AuditEntry(db.Model):  # type: ignore[name-defined,misc]
    """What was done to a front end's players, matches and reports, by whom (a key's
    prefix, a player, the command line) and when."""

    __tablename__ = "audit_log"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    actor: Mapped[str] = mapped_column(String(160), nullable=False)
    action: Mapped[str] = mapped_column(String(32), nullable=False)
    subject: Mapped[str] = mapped_column(String(200), nullable=False)
    """What it was done to: ``player:<id>``, ``match:<id>``, ``report:<id>``, ``keys``."""
    details: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)

    __table_args__ = (Index("ix_audit_log_tenant", "tenant_pk", "pk"),)



class FrontEndSettings(db.Model):  # type: ignore[name-defined,misc]
    """A front end's own settings (``/v1/settings``): its economy (the rake, the starting
    grant) and fair play's thresholds; no row: every default."""

    __tablename__ = "front_end_settings"

    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), primary_key=True
    )
    rake_share_bp: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    """The house's share of a pot, in basis points (0-5000: up to half)."""
    rake_cap: Mapped[int | None] = mapped_column(BigInteger)
    """The most a pot's rake may be (null: no cap)."""
    starting_grant: Mapped[dict[str, int]] = mapped_column(JSON, nullable=False, default=dict)
    """What a new player is paid once, by currency code."""
    fair_play: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    """Fair play's thresholds (issue 58), kept as given."""
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
