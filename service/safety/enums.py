"""The safety tables' enumerated values, as ``StrEnum``s: each compares equal to the text
stored, so rows read back as plain strings still compare."""

from __future__ import annotations

from enum import StrEnum


class ReportReason(StrEnum):
    """What a player reports another for."""

    CHEATING = "cheating"
    ABUSE = "abuse"
    STALLING = "stalling"
    OTHER = "other"
    FAIR_PLAY = "fair_play"
    """Filed by the service: fair play flagged the player (or a pair), evidence attached."""


class ReportStatus(StrEnum):
    OPEN = "open"
    RESOLVED = "resolved"


class ReportAction(StrEnum):
    """What the front end did about a report."""

    DISMISS = "dismiss"
    SUSPEND = "suspend"
    """The reported player suspended."""
    VOID = "void"
    """The match's result voided."""

