"""Tables of the webhooks: a front end's endpoints, the outbox of messages and each delivery try."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    SmallInteger,
    String,
    Text,
    false,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from ..storage.base import PK, utcnow
from ..storage.db import db
from .enums import MessageStatus


class Webhook(db.Model):  # type: ignore[name-defined,misc]
    """A tenant's endpoint for signed event callbacks (Standard Webhooks)."""

    __tablename__ = "webhooks"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(36), unique=True, nullable=False)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    url: Mapped[str] = mapped_column(String(2048), nullable=False)
    events: Mapped[list[str]] = mapped_column(JSON, nullable=False)
    secret: Mapped[str] = mapped_column(String(64), nullable=False)
    """``whsec_`` + base64 of 32 random bytes: the signing key, so it is kept as is."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    failed_in_a_row: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    """Messages in a row that ran out of retries (any delivery resets it)."""
    disabled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    paused_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """Paused by the front end: its messages are written and wait for it to resume."""

    __table_args__ = (Index("ix_webhooks_tenant_pk", "tenant_pk"),)


class WebhookMessage(db.Model):  # type: ignore[name-defined,misc]
    """One event for one webhook: written in the transaction of the change that caused
    it (an outbox), delivered by ``basra worker`` with the same ``msg_id`` every try. On
    PostgreSQL partitioned by the day of ``created_at``: a day is dropped whole after the
    retention, its messages still pending kept (so ``msg_id``, random, is unique with its
    ``created_at``: a partitioned table's unique keys hold its partition's column)."""

    __tablename__ = "webhook_messages"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    webhook_pk: Mapped[int] = mapped_column(
        ForeignKey("webhooks.pk", ondelete="CASCADE"), nullable=False
    )
    msg_id: Mapped[str] = mapped_column(String(40), nullable=False)
    type: Mapped[str] = mapped_column(String(32), nullable=False)
    body: Mapped[str] = mapped_column(Text, nullable=False)
    """The payload as sent: serialised once, so every retry sends the same bytes."""
    status: Mapped[str] = mapped_column(String(10), nullable=False,
                                        default=MessageStatus.PENDING)
    """pending, delivered or failed (out of retries)."""
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    """When a worker may try it (also a claim's lease: a killed worker's try is retried)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True,
                                                 default=utcnow)
    lane: Mapped[str | None] = mapped_column(String(40))
    """The match (or tournament) whose messages go out in order; none for a finish."""
    holds_lane: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False,
                                             server_default=false())
    """Untried or in its first try: later messages of its lane wait for it."""
    priority: Mapped[int] = mapped_column(SmallInteger, nullable=False, default=1,
                                          server_default=text("1"))
    """0 for a finish (claimed before anything else due), 1 for the rest."""

    __table_args__ = (
        Index("ix_webhook_messages_due", "priority", "next_attempt_at", "pk",
              postgresql_where=text("status = 'pending'"),
              sqlite_where=text("status = 'pending'")),
        Index("ix_webhook_messages_webhook", "webhook_pk", "pk"),
        Index("ix_webhook_messages_created_at", "created_at"),
        Index("ix_webhook_messages_lane", "webhook_pk", "lane", "pk",
              postgresql_where=text("holds_lane"), sqlite_where=text("holds_lane")),
        Index("ix_webhook_messages_msg_id", "msg_id", "created_at", unique=True),
        {"postgresql_partition_by": "RANGE (created_at)"},
    )


class WebhookAttempt(db.Model):  # type: ignore[name-defined,misc]
    """One try at delivering a message: what the receiver answered, or the error. On
    PostgreSQL partitioned by the day of ``at``, dropped whole after the retention; no
    foreign key names its message (it would need the message's day, and a try and its
    message go with different days: a try is read only through its message)."""

    __tablename__ = "webhook_attempts"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    message_pk: Mapped[int] = mapped_column(PK, nullable=False)
    webhook_pk: Mapped[int] = mapped_column(
        ForeignKey("webhooks.pk", ondelete="CASCADE"), nullable=False
    )
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True,
                                         default=utcnow)
    status_code: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(String(300))
    duration_ms: Mapped[int] = mapped_column(Integer, nullable=False)

    __table_args__ = (
        Index("ix_webhook_attempts_webhook", "webhook_pk", "pk"),
        Index("ix_webhook_attempts_at", "at"),
        {"postgresql_partition_by": "RANGE (at)"},
    )

