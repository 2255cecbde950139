"""The webhooks tables' enumerated values, as ``StrEnum``s: each compares equal to the text
stored, so rows read back as plain strings still compare."""

from __future__ import annotations

from enum import StrEnum


class MessageStatus(StrEnum):
    """A webhook message in the outbox."""

    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"
    """Out of retries."""

