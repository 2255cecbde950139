"""Tables of trust and safety: a player's report of another."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from ..storage.base import PK
from ..storage.db import db


class Report(db.Model):  # type: ignore[name-defined,misc]
    """A seated player's report of another seat of the same match."""

    __tablename__ = "reports"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(36), unique=True, nullable=False)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    match_pk: Mapped[int] = mapped_column(
        ForeignKey("matches.pk", ondelete="CASCADE"), nullable=False
    )
    reporter: Mapped[str] = mapped_column(String(128), nullable=False)
    player_id: Mapped[str] = mapped_column(String(128), nullable=False)
    """The player reported."""
    reason: Mapped[str] = mapped_column(String(16), nullable=False)
    text: Mapped[str | None] = mapped_column(String(1000))
    status: Mapped[str] = mapped_column(String(10), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    resolved_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    resolution: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    """``{"action", "note"?, "by"}`` once resolved."""
    details: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    """What the service filed with a report of its own (fair play's evidence)."""

    __table_args__ = (
        Index("ix_reports_once", "tenant_pk", "match_pk", "reporter", "player_id",
              unique=True),
        Index("ix_reports_queue", "tenant_pk", "status", "pk"),
        Index("ix_reports_player", "tenant_pk", "player_id"),
    )

