"""Errors of front ends' keys."""

from __future__ import annotations

from ..errors import ServiceError


class MissingApiKey(ServiceError):
    """No X-API-Key where the deployment requires one."""

    reason = "missing_api_key"
    status = 401


class InvalidApiKey(ServiceError):
    """An X-API-Key that is unknown or revoked, or (``malformed``) that could be no key
    of this service."""

    reason = "invalid_api_key"
    status = 401

    def __init__(self, message: str, *, malformed: bool = False) -> None:
        super().__init__(message)
        self.malformed = malformed


class Throttled(ServiceError):
    """A budget of the caller's is spent: try again in ``retry_after`` seconds."""

    reason = "rate_limited"
    status = 429

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


class ServerKeyRequired(ServiceError):
    """A route that administers the front end (minting, webhooks, tournaments' creation
    and cancel) asked with a browser key: it takes the server key."""

    reason = "server_key_required"
    status = 403


class OriginNotAllowed(ServiceError):
    """A browser origin the key's tenant did not allow."""

    reason = "origin_not_allowed"
    status = 403


class TenantNameTaken(ServiceError):
    """``local`` is the built-in tenant of keyless requests."""

    reason = "tenant_name_taken"
    status = 409


class TenantNotFound(ServiceError, LookupError):
    """No front end of that name (``basra keys``)."""

    reason = "tenant_not_found"
    status = 404


class KeyPrefixAmbiguous(ServiceError):
    """``basra keys revoke --key`` named a prefix several keys share."""

    reason = "key_prefix_ambiguous"
    status = 409


class InvalidStaffKey(ServiceError):
    """A staff key that is unknown or revoked at sign-in (``malformed``: no staff key at
    all, refused without a look-up)."""

    reason = "invalid_staff_key"
    status = 401

    def __init__(self, message: str, *, malformed: bool = False) -> None:
        super().__init__(message)
        self.malformed = malformed


class StaffSessionInvalid(ServiceError):
    """A console request whose session cookie expired, was signed out, or whose staff
    key was revoked: sign in again."""

    reason = "staff_session_invalid"
    status = 401


class StaffRoleTooLow(ServiceError):
    """A staff member whose role may not do this (a viewer acting, a moderator
    administering)."""

    reason = "staff_role_too_low"
    status = 403


class CsrfRefused(ServiceError):
    """A change asked with a console session but without its CSRF token, or from
    another site."""

    reason = "csrf_refused"
    status = 403


class SettingsRefused(ServiceError):
    """Front-end settings that cannot be: a starting grant in a currency not named."""

    reason = "settings_refused"
    status = 422
