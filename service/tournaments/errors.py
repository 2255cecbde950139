"""Errors of tournaments."""

from __future__ import annotations

from ..errors import ServiceError


class TournamentNotFound(ServiceError, LookupError):
    """No tournament of that id at this front end."""

    reason = "tournament_not_found"
    status = 404


class EntryClosed(ServiceError):
    """The tournament takes no more entries (a Swiss that started, an event that is over,
    or one that is full)."""

    reason = "entry_closed"
    status = 409


class NotEntered(ServiceError):
    """The player is not (or no longer) in the tournament."""

    reason = "not_entered"
    status = 409


class TooManyTournaments(ServiceError):
    """The front end holds as many tournaments scheduled or running as it may."""

    reason = "too_many_tournaments"
    status = 409


class TwoPlayersOnly(ServiceError):
    """Tournament matches are two-player: the variant with these rules is not."""

    reason = "two_players_only"
    status = 422
