"""Errors of tables between strangers."""

from __future__ import annotations

from ..errors import ServiceError


class NoOpenSeat(ServiceError):
    """Every seat of the match is taken (or it no longer waits for players)."""

    reason = "no_open_seat"
    status = 409


class WrongMatchStatus(ServiceError):
    """The request fits a match in another state (leave a waiting match, abort before
    playing, rematch a finished one)."""

    reason = "wrong_match_status"
    status = 409
