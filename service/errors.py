"""The base of the service's typed errors (beside the engine's rule errors): each domain's
``errors.py`` subclasses it, and :mod:`service.problems` alone maps them, and the
engine's errors, onto HTTP statuses."""

from __future__ import annotations

from .engine.errors import BasraError


class ServiceError(BasraError):
    """An error of the service layer; ``field`` names the request field at fault, if any."""

    def __init__(self, message: str, *, field: str | None = None, problem: str = "") -> None:
        super().__init__(message)
        self.field = field
        self.problem = problem or message
        """What is wrong with ``field``, in a few words."""
