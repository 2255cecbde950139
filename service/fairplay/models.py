"""Tables of fair play: each rated match's signals seat by seat, and the flags filed."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from ..storage.base import PK
from ..storage.db import db


class FairPlaySeat(db.Model):  # type: ignore[name-defined,misc]
    """A player's seat in a graded match: its signals (``signals.SeatSignals``), the
    match's pool and when it finished (a player's picture is over their recent ones)."""

    __tablename__ = "fair_play_seats"

    match_pk: Mapped[int] = mapped_column(
        ForeignKey("matches.pk", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    tenant_pk: Mapped[int] = mapped_column(ForeignKey("tenants.pk", ondelete="CASCADE"),
                                           nullable=False)
    match_id: Mapped[str] = mapped_column(String(36), nullable=False)
    player_id: Mapped[str] = mapped_column(String(128), nullable=False)
    pool: Mapped[str] = mapped_column(String(64), nullable=False)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    signals: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    coins: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    """Coins the seat won (negative: lost) where the match was staked."""

    __table_args__ = (
        Index("ix_fair_play_seats_player", "tenant_pk", "player_id", "finished_at"),
        Index("ix_fair_play_seats_pool", "tenant_pk", "pool", "finished_at"),
    )


class FairPlayFlag(db.Model):  # type: ignore[name-defined,misc]
    """A player or a pair flagged, once: the report filed with its evidence."""

    __tablename__ = "fair_play_flags"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    tenant_pk: Mapped[int] = mapped_column(ForeignKey("tenants.pk", ondelete="CASCADE"),
                                           nullable=False)
    kind: Mapped[str] = mapped_column(String(8), nullable=False)
    """``player`` (assisted play) or ``pair`` (points or coins passed)."""
    subject: Mapped[str] = mapped_column(String(260), nullable=False)
    """The player's id, or the pair's ids ``winner|loser``."""
    report_id: Mapped[str] = mapped_column(String(36), nullable=False)
    flagged_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    evidence: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)

    __table_args__ = (
        Index("ix_fair_play_flags_once", "tenant_pk", "kind", "subject", unique=True),
    )


class FairPlayProgress(db.Model):  # type: ignore[name-defined,misc]
    """How far the chore looked: every match with a key below ``next_pk`` had ended when
    it looked, and the rated ones among them were graded (one row)."""

    __tablename__ = "fair_play_progress"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    next_pk: Mapped[int] = mapped_column(PK, nullable=False)
