"""Errors of front ends' keys."""

from __future__ import annotations

from ..errors import ServiceError


class MissingApiKey(ServiceError):
    """No X-API-Key where the deployment requires one."""

    reason = "missing_api_key"


class InvalidApiKey(ServiceError):
    """An X-API-Key that is unknown or revoked."""

    reason = "invalid_api_key"


class Throttled(ServiceError):
    """A budget of the caller's is spent: try again in ``retry_after`` seconds."""

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class TooManyFailedKeys(Throttled):
    """The client's address presented too many unknown or revoked keys lately."""

    reason = "too_many_failed_keys"


class BudgetSpent(Throttled):
    """The front end spent the budget this request needs (searching bots' replies
    spend ``expensive``)."""

    reason = "rate_limited"


class OriginNotAllowed(ServiceError):
    """A browser origin the key's tenant did not allow."""

    reason = "origin_not_allowed"


class TenantNameTaken(ServiceError):
    """``local`` is the built-in tenant of keyless requests."""

    reason = "tenant_name_taken"


class TenantNotFound(ServiceError, LookupError):
    """No front end of that name (``basra keys``)."""

    reason = "tenant_not_found"
