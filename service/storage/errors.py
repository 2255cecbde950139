"""Errors of the database layer."""

from __future__ import annotations

from ..errors import ServiceError


class DatabaseUnavailable(ServiceError):
    """The database did not answer (down, restarting, or locked too long)."""

    reason = "database_unavailable"
    status = 503

    def __init__(self, message: str = "the database is unavailable; retry shortly") -> None:
        super().__init__(message)
