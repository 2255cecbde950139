"""The base of the service's typed errors (beside the engine's rule errors): each domain's
``errors.py`` subclasses it, each kind with its ``reason`` and its HTTP ``status``;
:mod:`service.problems` maps them, and the engine's errors, onto responses."""

from __future__ import annotations

from .engine.errors import BasraError


class ServiceError(BasraError):
    """An error of the service layer; ``field`` names the request field at fault, if any.
    Each kind says its ``reason`` and, beside it, its HTTP ``status``
    (tests/web/test_problems.py fails for a kind without either)."""

    status: int
    """The HTTP status the kind answers with (:mod:`service.problems` reads it)."""

    def __init__(self, message: str, *, field: str | None = None, problem: str = "") -> None:
        super().__init__(message)
        self.field = field
        self.problem = problem or message
        """What is wrong with ``field``, in a few words."""


# The errors of naming a match and a seat: every layer that meets a match id or a seat
# token raises them (the live board, the matches, the lobby).


class MatchNotFound(ServiceError, LookupError):
    """No match with that id."""

    reason = "match_not_found"
    status = 404


class MissingToken(ServiceError):
    """A seat token is needed and none (or no Bearer one) was sent."""

    reason = "missing_token"
    status = 401


class InvalidToken(ServiceError):
    """The token belongs to no seat of this match."""

    reason = "invalid_token"
    status = 403
