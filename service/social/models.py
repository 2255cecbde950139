"""Tables of the social side: friendships, challenges, parties and their members."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from ..storage.base import PK
from ..storage.db import db


class Friendship(db.Model):  # type: ignore[name-defined,misc]
    """``player_id`` asked ``friend_id`` to be friends (``requested``), or they are
    (``friends``: a row each way)."""

    __tablename__ = "friendships"

    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    friend_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    status: Mapped[str] = mapped_column(String(10), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    accepted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_friendships_friend", "tenant_pk", "friend_id"),)


class Challenge(db.Model):  # type: ignore[name-defined,misc]
    """A player's challenge to another to play a match (its settings), until it expires."""

    __tablename__ = "challenges"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(36), unique=True, nullable=False)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    challenger: Mapped[str] = mapped_column(String(128), nullable=False)
    challenged: Mapped[str] = mapped_column(String(128), nullable=False)
    variant: Mapped[str] = mapped_column(String(64), nullable=False)
    rules: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    """House-rule overrides, as asked."""
    rated: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    clock_seconds: Mapped[int | None] = mapped_column(Integer)
    clock_timeout: Mapped[str | None] = mapped_column(String(8))
    status: Mapped[str] = mapped_column(String(10), nullable=False)
    """open, accepted, declined, cancelled, expired (the worker marks it; an open one
    past its time reads as expired before)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    match_id: Mapped[str | None] = mapped_column(String(36))
    """The match an acceptance made."""
    stake_currency: Mapped[str | None] = mapped_column(String(16))
    """A staked match's currency (null: unstaked); each player holds ``stake_amount`` in
    its escrow as the acceptance seats them."""
    stake_amount: Mapped[int | None] = mapped_column(BigInteger)

    __table_args__ = (
        Index("ix_challenges_challenger", "tenant_pk", "challenger", "status"),
        Index("ix_challenges_challenged", "tenant_pk", "challenged", "status"),
        Index("ix_challenges_due", "status", "expires_at"),
    )


class Party(db.Model):  # type: ignore[name-defined,misc]
    """A leader and the players they invited, to be seated together as partners."""

    __tablename__ = "parties"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(36), unique=True, nullable=False)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    leader: Mapped[str] = mapped_column(String(128), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)


class PartyMember(db.Model):  # type: ignore[name-defined,misc]
    """A party's member (``joined``) or a player invited to it (``invited``); a player
    is joined to one party at most."""

    __tablename__ = "party_members"

    party_pk: Mapped[int] = mapped_column(
        ForeignKey("parties.pk", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    tenant_pk: Mapped[int] = mapped_column(PK, nullable=False)
    status: Mapped[str] = mapped_column(String(8), nullable=False)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)

    __table_args__ = (
        Index("ix_party_members_one_party", "tenant_pk", "player_id", unique=True,
              postgresql_where=text("status = 'joined'"),
              sqlite_where=text("status = 'joined'")),
    )

