"""Errors of matches: ids, seat tokens, versions, bodies the rules refuse."""

from __future__ import annotations

from ..errors import ServiceError
from ..tenants.errors import Throttled


class VersionMismatch(ServiceError):
    """The match moved on since the version the client named (If-Match)."""

    reason = "version_mismatch"
    status = 412


class ClockRanOut(ServiceError):
    """A move came after its seat's turn deadline: it is not played (the clock plays for
    the seat, or ends the match, within a pass of ``basra worker``)."""

    reason = "clock_ran_out"
    status = 409


class WrongPlayerCount(ServiceError):
    """The players listed do not fit the rules' number of seats."""

    reason = "wrong_player_count"
    status = 422


class NoHumanSeat(ServiceError):
    """Every seat would be a bot."""

    reason = "no_human_seat"
    status = 422


class IdempotencyKeyReused(ServiceError):
    """An Idempotency-Key sent again with a different request."""

    reason = "idempotency_key_reused"
    status = 422


class InvalidCursor(ServiceError):
    """A history cursor this service did not issue."""

    reason = "invalid_cursor"
    status = 422


class MatchNotStarted(ServiceError):
    """A move in a match still waiting for players."""

    reason = "match_not_started"
    status = 409


class ClaimTooEarly(ServiceError):
    """A win claimed from a seat that has not been silent for long enough (or whose
    team is the claimer's)."""

    reason = "claim_too_early"
    status = 409


class RatedNeedsShuffle(ServiceError):
    """A rated match asked with explicit decks: its creator would know every card."""

    reason = "rated_needs_shuffle"
    status = 422


class RatedNeedsPlayers(ServiceError):
    """A rated match's seat that is a bot, anonymous, or a player seated twice."""

    reason = "rated_needs_players"
    status = 422


class StakeNeedsPlayers(ServiceError):
    """A staked table's seat that is a bot, anonymous, or a player seated twice: a staked
    table seats distinct players vouched for, each holding the stake."""

    reason = "stake_needs_players"
    status = 422


class MatchNotFinished(ServiceError):
    """Only a finished match's result can be voided (not one waiting, playing or
    aborted)."""

    reason = "match_not_finished"
    status = 409


class MatchVoided(ServiceError):
    """The match's result was voided already: it is voided once."""

    reason = "match_voided"
    status = 409


class ChatOff(ServiceError):
    """The front end turned table chat off."""

    reason = "chat_off"
    status = 409


class ChatTextOff(ServiceError):
    """A text line where the front end's tables take the fixed phrases only."""

    reason = "chat_text_off"
    status = 409


class NotAtTable(ServiceError):
    """Chat from someone neither seated nor (where the front end allows it) a player
    watching."""

    reason = "not_at_table"
    status = 403


class ChatClosed(ServiceError):
    """A line at a match that is over."""

    reason = "chat_closed"
    status = 409


class ChatFull(ServiceError):
    """The match holds as many lines as a match may."""

    reason = "chat_full"
    status = 409


class UnknownPhrase(ServiceError):
    """A phrase id not in the list (``GET /v1/chat/phrases``)."""

    reason = "unknown_phrase"
    status = 422


class ChatTooFast(Throttled):
    """The speaker said as many lines as a minute allows."""

    reason = "chat_too_fast"
    status = 429


class CannotDrop(ServiceError):
    """A seat the stand-in cannot keep: a bot's, an open one, or the last human seat
    still played by its player (the clock decides then)."""

    reason = "cannot_drop"
    status = 409


class StandInTooStrong(ServiceError):
    """A rated match naming a stand-in stronger than greedy: leaving a seat would play
    it better than its player."""

    reason = "stand_in_too_strong"
    status = 422
