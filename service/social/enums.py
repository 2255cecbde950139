"""The social tables' enumerated values, as ``StrEnum``s: each compares equal to the text
stored, so rows read back as plain strings still compare."""

from __future__ import annotations

from enum import StrEnum


class FriendStatus(StrEnum):
    REQUESTED = "requested"
    FRIENDS = "friends"


class ChallengeStatus(StrEnum):
    """Where a challenge stands (one left open past its time has expired)."""

    OPEN = "open"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    """Not answered in time (an open one past its ``expires_at`` reads so already)."""


class PartyMemberStatus(StrEnum):
    INVITED = "invited"
    JOINED = "joined"

