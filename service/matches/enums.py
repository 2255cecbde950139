"""The matches tables' enumerated values, as ``StrEnum``s: each compares equal to the text
stored, so rows read back as plain strings still compare."""

from __future__ import annotations

from enum import StrEnum


class MatchStatus(StrEnum):
    """Where a match stands."""

    WAITING = "waiting"
    """A seat waits for a player; nobody sees a card."""
    ACTIVE = "active"
    FINISHED = "finished"
    """Won (or drawn): by the target score, a resignation or a clock."""
    ABORTED = "aborted"
    """Ended with no result: aborted by a seat that had not played, or a table nobody
    filled in time."""

    @property
    def over(self) -> bool:
        """Nothing can change it any more (but a rematch's pointer)."""
        return self in (MatchStatus.FINISHED, MatchStatus.ABORTED)


class EndReason(StrEnum):
    """Why a match ended."""

    TARGET_SCORE = "target_score"
    DEALS = "deals"
    """It played its set number of deals (``max_rounds``: a duplicate event's table)."""
    RESIGNED = "resigned"
    TIMEOUT = "timeout"
    """A seat's clock ran out for good (a forfeit)."""
    ABORTED = "aborted"
    CLAIMED = "claimed"
    """The team to play had been silent past BASRA_CLAIM_AFTER_SECONDS: an opponent
    claimed the win."""
    SUSPENDED = "suspended"
    """A seat's player was suspended by the front end, which forfeited their matches."""


class MoveKind(StrEnum):
    """An entry of a match's move log."""

    PLAY = "play"
    RESIGN = "resign"
    JOIN = "join"
    LEAVE = "leave"
    ABORT = "abort"
    FORFEIT = "forfeit"
    """A seat's clock ran out for good."""
    REMATCH = "rematch"
    DROP = "drop"
    """The seat's player dropped: a stand-in bot keeps the seat."""
    BACK = "back"
    """The seat's player came back and plays again."""


class ClockTimeout(StrEnum):
    """What a passed turn deadline does."""

    AUTOPLAY = "autoplay"
    """The greedy bot plays for the seat (the third time in a row forfeits)."""
    FORFEIT = "forfeit"
    BOT = "bot"
    """The seat is dropped: the match's stand-in bot keeps it until its player comes
    back (the last seat its player still plays is autoplayed instead)."""


class ChatMode(StrEnum):
    """What a front end's players may say at a table: nothing, the phrases, or text."""

    OFF = "off"
    PHRASES = "phrases"
    TEXT = "text"

