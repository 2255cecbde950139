"""The players tables' enumerated values, as ``StrEnum``s: each compares equal to the text
stored, so rows read back as plain strings still compare."""

from __future__ import annotations

from enum import StrEnum


class PresenceStatus(StrEnum):
    """What a player's friends see of them: a player stream open, seated in an active
    match, or neither."""

    ONLINE = "online"
    PLAYING = "playing"
    OFFLINE = "offline"

