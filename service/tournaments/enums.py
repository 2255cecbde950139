"""The tournaments tables' enumerated values, as ``StrEnum``s: each compares equal to the text
stored, so rows read back as plain strings still compare."""

from __future__ import annotations

from enum import StrEnum


class TournamentStatus(StrEnum):
    SCHEDULED = "scheduled"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"
    """Fewer entrants than its minimum at the start."""


class TournamentSystem(StrEnum):
    SWISS = "swiss"
    ARENA = "arena"
    DUPLICATE = "duplicate"
    """Every table of a round deals the same cards; each deal scored against the others
    who held the same seat's cards (matchpoints)."""


class PairingStatus(StrEnum):
    """A tournament game."""

    PLAYING = "playing"
    FINISHED = "finished"
    """Its result counts (a bye too)."""
    VOID = "void"
    """Not counted: its match was aborted, or still unfinished when an arena ended."""

