"""The values of the tables' enumerated columns, as ``StrEnum``s: each compares equal to
the text stored, so rows read back as plain strings still compare."""

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


class MessageStatus(StrEnum):
    """A webhook message in the outbox."""

    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"
    """Out of retries."""


class ReportReason(StrEnum):
    """What a player reports another for."""

    CHEATING = "cheating"
    ABUSE = "abuse"
    STALLING = "stalling"
    OTHER = "other"


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


class ChatMode(StrEnum):
    """What a front end's players may say at a table: nothing, the phrases, or text."""

    OFF = "off"
    PHRASES = "phrases"
    TEXT = "text"


class PresenceStatus(StrEnum):
    """What a player's friends see of them: a player stream open, seated in an active
    match, or neither."""

    ONLINE = "online"
    PLAYING = "playing"
    OFFLINE = "offline"


class PartyMemberStatus(StrEnum):
    INVITED = "invited"
    JOINED = "joined"


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


class ReviewStatus(StrEnum):
    """A match's review."""

    PENDING = "pending"
    """Asked for; the worker makes it."""
    READY = "ready"
    FAILED = "failed"
    """The worker could not make it, time after time."""
