"""Typed errors of the match service (beside the engine's rule errors), each with a reason.

The store and the use cases raise these; ``resources/errors.py`` alone maps
them, and the engine's errors, onto HTTP statuses.
"""

from __future__ import annotations

from .engine.errors import BasraError


class ServiceError(BasraError):
    """An error of the service layer; ``field`` names the request field at fault, if any."""

    def __init__(self, message: str, *, field: str | None = None, problem: str = "") -> None:
        super().__init__(message)
        self.field = field
        self.problem = problem or message
        """What is wrong with ``field``, in a few words."""


class MatchNotFound(ServiceError, LookupError):
    """No match with that id."""

    reason = "match_not_found"


class MissingToken(ServiceError):
    """A seat token is needed and none (or no Bearer one) was sent."""

    reason = "missing_token"


class InvalidToken(ServiceError):
    """The token belongs to no seat of this match."""

    reason = "invalid_token"


class VersionMismatch(ServiceError):
    """The match moved on since the version the client named (If-Match)."""

    reason = "version_mismatch"


class WrongPlayerCount(ServiceError):
    """The players listed do not fit the rules' number of seats."""

    reason = "wrong_player_count"


class NoHumanSeat(ServiceError):
    """Every seat would be a bot."""

    reason = "no_human_seat"


class IdempotencyKeyReused(ServiceError):
    """An Idempotency-Key sent again with a different request."""

    reason = "idempotency_key_reused"


class InvalidCursor(ServiceError):
    """A history cursor this service did not issue."""

    reason = "invalid_cursor"


class DatabaseUnavailable(ServiceError):
    """The database did not answer (down, restarting, or locked too long)."""

    reason = "database_unavailable"

    def __init__(self, message: str = "the database is unavailable; retry shortly") -> None:
        super().__init__(message)


class MissingApiKey(ServiceError):
    """No X-API-Key where the deployment requires one."""

    reason = "missing_api_key"


class InvalidApiKey(ServiceError):
    """An X-API-Key that is unknown or revoked."""

    reason = "invalid_api_key"


class OriginNotAllowed(ServiceError):
    """A browser origin the key's tenant did not allow."""

    reason = "origin_not_allowed"


class TenantNameTaken(ServiceError):
    """``local`` is the built-in tenant of keyless requests."""

    reason = "tenant_name_taken"


class NoOpenSeat(ServiceError):
    """Every seat of the match is taken (or it no longer waits for players)."""

    reason = "no_open_seat"


class WrongMatchStatus(ServiceError):
    """The request fits a match in another state (leave a waiting match, abort before
    playing, rematch a finished one)."""

    reason = "wrong_match_status"


class MatchNotStarted(ServiceError):
    """A move in a match still waiting for players."""

    reason = "match_not_started"


class WebhookNotFound(ServiceError, LookupError):
    """No webhook with that id (for this front end)."""

    reason = "webhook_not_found"


class WebhookUrlNotAllowed(ServiceError):
    """A webhook URL the service will not call: not http(s), or an address that is
    loopback, private, link-local or otherwise not public."""

    reason = "webhook_url_not_allowed"


class TooManyWaiters(ServiceError):
    """No parking place left for a long poll or an event stream (this process's or this
    client's share is taken)."""

    reason = "too_many_waiters"
