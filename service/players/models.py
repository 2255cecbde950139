"""Tables of the players: who a front end vouched for, their ratings and rating changes,
blocks, presence (stream leases and what friends were told) and each player's events."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Float, ForeignKey, Index, Integer, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from ..storage.base import PK, utcnow
from ..storage.db import db


class Player(db.Model):  # type: ignore[name-defined,misc]
    """A front end's user, as its front end vouched for them: (tenant, player_id)."""

    __tablename__ = "players"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    player_id: Mapped[str] = mapped_column(String(128), nullable=False)
    """The front end's own id for its user."""
    name: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    signed_out_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """Signed out everywhere then: the player's tokens issued before it are refused."""
    suspended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """Suspended since then (null: not suspended)."""
    suspended_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """The suspension's end (null while suspended: for good)."""
    suspension_reason: Mapped[str | None] = mapped_column(String(500))
    erased_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """Erased then (null: not erased): the row only refuses their old tokens, and the id
    answers as an unknown one until a server key vouches for it again."""
    access_changed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """When a sign-out or a suspension last changed: what every process reads anew."""
    # the record's totals over finished matches, counted as each one finishes
    matches: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    wins: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    losses: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    draws: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    resigned: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    """Lost by their side's resignation."""
    timed_out: Mapped[int] = mapped_column(Integer, nullable=False, default=0,
                                           server_default="0")
    """Lost by their side's clock (a forfeit)."""
    basras: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    """Basras they made themselves (jack basras not included)."""
    jack_basras: Mapped[int] = mapped_column(Integer, nullable=False, default=0,
                                             server_default="0")
    points: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    """Their side's final score, summed."""

    __table_args__ = (
        Index("ix_players_tenant_player", "tenant_pk", "player_id", unique=True),
        Index("ix_players_access_changed_at", "access_changed_at",
              postgresql_where=text("access_changed_at IS NOT NULL"),
              sqlite_where=text("access_changed_at IS NOT NULL")),
        Index("ix_players_suspended", "tenant_pk", "player_id",
              postgresql_where=text("suspended_at IS NOT NULL"),
              sqlite_where=text("suspended_at IS NOT NULL")),
    )


class Rating(db.Model):  # type: ignore[name-defined,misc]
    """A player's rating in one pool (a variant): openskill's mu and sigma."""

    __tablename__ = "ratings"

    player_pk: Mapped[int] = mapped_column(
        ForeignKey("players.pk", ondelete="CASCADE"), primary_key=True
    )
    pool: Mapped[str] = mapped_column(String(64), primary_key=True)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    """The player's front end (a leaderboard is one front end's pool)."""
    mu: Mapped[float] = mapped_column(Float, nullable=False)
    sigma: Mapped[float] = mapped_column(Float, nullable=False)
    ordinal: Mapped[float] = mapped_column(Float, nullable=False)
    """mu - 3 sigma: what leaderboards sort by."""
    games: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    rated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """When its last rated match finished."""
    rank: Mapped[int | None] = mapped_column(Integer)
    """The place on the pool's leaderboard at the last ranking (``basra worker``)."""

    # only the listed: a page, a place and the count of the listed read no unlisted row
    __table_args__ = (Index("ix_ratings_board", "tenant_pk", "pool", "rank",
                            postgresql_where=text("rank IS NOT NULL"),
                            sqlite_where=text("rank IS NOT NULL")),)


class RatingChange(db.Model):  # type: ignore[name-defined,misc]
    """A player's rating after one rated match (for the rating chart)."""

    __tablename__ = "rating_changes"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    player_pk: Mapped[int] = mapped_column(
        ForeignKey("players.pk", ondelete="CASCADE"), nullable=False
    )
    pool: Mapped[str] = mapped_column(String(64), nullable=False)
    match_pk: Mapped[int] = mapped_column(
        ForeignKey("matches.pk", ondelete="CASCADE"), nullable=False
    )
    mu: Mapped[float] = mapped_column(Float, nullable=False)
    sigma: Mapped[float] = mapped_column(Float, nullable=False)
    ordinal: Mapped[float] = mapped_column(Float, nullable=False)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)

    __table_args__ = (Index("ix_rating_changes_player", "player_pk", "pool", "pk"),)


class Block(db.Model):  # type: ignore[name-defined,misc]
    """A player blocked another of their front end: never seated together by quick
    play, no invitations between them."""

    __tablename__ = "player_blocks"

    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    blocked_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)

    __table_args__ = (Index("ix_player_blocks_blocked", "tenant_pk", "blocked_id"),)


class PresenceLease(db.Model):  # type: ignore[name-defined,misc]
    """A process (``holder``) holds a stream of the player open until ``expires_at``
    (renewed while it does; after the last stream closes, a few seconds of grace)."""

    __tablename__ = "presence_leases"

    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    holder: Mapped[str] = mapped_column(String(64), primary_key=True)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)

    __table_args__ = (Index("ix_presence_leases_expires_at", "expires_at"),)


class Presence(db.Model):  # type: ignore[name-defined,misc]
    """The presence a player's friends were last told (none: ``offline``)."""

    __tablename__ = "presences"

    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    status: Mapped[str] = mapped_column(String(8), nullable=False)
    match_id: Mapped[str | None] = mapped_column(String(36))
    changed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)

    __table_args__ = (
        Index("ix_presences_online", "tenant_pk", "player_id",
              postgresql_where=text("status = 'online'"),
              sqlite_where=text("status = 'online'")),
    )


class PlayerEvent(db.Model):  # type: ignore[name-defined,misc]
    """One event of a player's stream (``GET /v1/players/{id}/events``), written in the
    transaction of the change that caused it; its pk is the stream's event id. On
    PostgreSQL partitioned by the day of ``created_at``, dropped whole after the retention."""

    __tablename__ = "player_events"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    player_id: Mapped[str] = mapped_column(String(128), nullable=False)
    type: Mapped[str] = mapped_column(String(32), nullable=False)
    body: Mapped[str] = mapped_column(Text, nullable=False)
    """The event's data, serialised once."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True,
                                                 default=utcnow)

    __table_args__ = (
        Index("ix_player_events_player", "tenant_pk", "player_id", "pk"),
        Index("ix_player_events_created_at", "created_at"),
        {"postgresql_partition_by": "RANGE (created_at)"},
    )

