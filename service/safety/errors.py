"""Errors of trust and safety."""

from __future__ import annotations

from ..errors import ServiceError


class ReportNotFound(ServiceError, LookupError):
    """No report of that id at this front end."""

    reason = "report_not_found"
    status = 404


class NotReportable(ServiceError):
    """A report by someone who did not sit in the match, or about someone who did not (or
    about oneself)."""

    reason = "not_reportable"
    status = 422


class AlreadyReported(ServiceError):
    """The reporter already reported that player in that match."""

    reason = "already_reported"
    status = 409


class ReportResolved(ServiceError):
    """A report already resolved (it is resolved once)."""

    reason = "report_resolved"
    status = 409


class BadCursor(ServiceError):
    """A cursor (of the audit log, of reports) this service did not issue."""

    reason = "invalid_cursor"
    status = 422
