"""The tenants tables' enumerated values, as ``StrEnum``s: each compares equal to the text
stored, so rows read back as plain strings still compare."""

from __future__ import annotations

from enum import StrEnum


class StaffRole(StrEnum):
    """What a front end's staff key may do, each role all the one before it may."""

    VIEWER = "viewer"
    """Read: players, matches, reports, tournaments, webhooks, the audit log."""
    MODERATOR = "moderator"
    """Suspend and lift, sign a player out everywhere, void, resolve reports."""
    ADMIN = "admin"
    """Webhooks, tournaments, chat settings, a player's export and erasure."""

    @property
    def rank(self) -> int:
        return list(StaffRole).index(self)

