"""Errors of friends and challenges."""

from __future__ import annotations

from ..errors import ServiceError


class TooManyFriends(ServiceError):
    """A friend request past a cap: the player's (or the other's) friends or waiting
    requests."""

    reason = "too_many_friends"
    status = 409


class ChallengeNotFound(ServiceError, LookupError):
    """No challenge of that id at this front end (or not one the caller is part of)."""

    reason = "challenge_not_found"
    status = 404


class ChallengeClosed(ServiceError):
    """A challenge answered, cancelled or expired already."""

    reason = "challenge_closed"
    status = 409


class TooManyChallenges(ServiceError):
    """A player with as many open challenges as they may have."""

    reason = "too_many_challenges"
    status = 409


class NotYourChallenge(ServiceError):
    """Only the challenged player accepts or declines, only the challenger cancels."""

    reason = "not_your_challenge"
    status = 409


class PartyNotFound(ServiceError, LookupError):
    """No party of that id at this front end (or not one the caller is in or invited
    to)."""

    reason = "party_not_found"
    status = 404


class PartyRefused(ServiceError):
    """A party action that cannot be: not the leader, not invited, already in a party,
    the party full (or not full when quick play needs it)."""

    reason = "party_refused"
    status = 409
