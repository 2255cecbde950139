"""Errors of players and their tokens."""

from __future__ import annotations

from ..errors import ServiceError


class PlayerUnverified(ServiceError):
    """A request named a ``player_id`` it did not prove: a browser key needs that
    player's token (a server key may name any of its front end's players)."""

    reason = "player_unverified"
    status = 403


class InvalidPlayerToken(ServiceError):
    """A player token that is expired, forged, too long-lived or another front end's."""

    reason = "invalid_player_token"
    status = 401


class TokenRevoked(ServiceError):
    """A player token issued before its player was signed out everywhere."""

    reason = "token_revoked"
    status = 401


class PlayerRequired(ServiceError):
    """A request for a vouched player's own (a tournament entry, their quick-play tables)
    without one: a player token, or a server key naming ``player_id``."""

    reason = "player_required"
    status = 401


class WrongFrontEnd(ServiceError):
    """A player token sent with the API key of another front end than its own."""

    reason = "wrong_front_end"
    status = 401


class PlayerNotFound(ServiceError, LookupError):
    """No player of that id at this front end (another front end's are not found)."""

    reason = "player_not_found"
    status = 404


class BadBoardCursor(ServiceError):
    """A leaderboard cursor this service did not issue."""

    reason = "invalid_cursor"
    status = 422


class NotThisPlayer(ServiceError):
    """A player's own resource (their event stream) asked for with another bearer than
    that player's token."""

    reason = "not_this_player"
    status = 403


class PlayerSuspended(ServiceError):
    """The player is suspended by their front end: their tokens are refused, none is
    minted, no seat is taken for them."""

    reason = "player_suspended"
    status = 403


class BlockedPlayer(ServiceError):
    """An action between two players one of whom blocked the other (seating them
    together, an invitation), or a block of oneself."""

    reason = "player_blocked"
    status = 409


class TooManyBlocks(ServiceError):
    """A player who already blocks as many players as they may."""

    reason = "too_many_blocks"
    status = 409


class SuspensionEnded(ServiceError):
    """A suspension asked to end at a moment already past."""

    reason = "validation_error"
    status = 422
