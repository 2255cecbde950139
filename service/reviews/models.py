"""Tables of the reviews: a finished match's review, play by play."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, Float, ForeignKey, Index, Integer, String, text
from sqlalchemy.orm import Mapped, mapped_column

from ..storage.db import db


class Review(db.Model):  # type: ignore[name-defined,misc]
    """A finished match's review, every play scored against the expert's choice: asked
    for (``pending``), then made by the worker (``ready``, its plays kept)."""

    __tablename__ = "reviews"

    match_pk: Mapped[int] = mapped_column(
        ForeignKey("matches.pk", ondelete="CASCADE"), primary_key=True
    )
    tenant_pk: Mapped[int] = mapped_column(ForeignKey("tenants.pk"), nullable=False)
    status: Mapped[str] = mapped_column(String(8), nullable=False)
    asked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """When a worker took it (another takes it over once it has been at it too long)."""
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0,
                                          server_default=text("0"))
    """How often a worker took it: after a few, it is ``failed``."""
    ready_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    plays: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON)
    cpu_ms: Mapped[float | None] = mapped_column(Float)
    """CPU the review took, all plays together."""

    __table_args__ = (Index("ix_reviews_status_asked", "status", "asked_at"),)

