"""The reviews tables' enumerated values, as ``StrEnum``s: each compares equal to the text
stored, so rows read back as plain strings still compare."""

from __future__ import annotations

from enum import StrEnum


class ReviewStatus(StrEnum):
    """A match's review."""

    PENDING = "pending"
    """Asked for; the worker makes it."""
    READY = "ready"
    FAILED = "failed"
    """The worker could not make it, time after time."""

