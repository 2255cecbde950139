"""Errors of coins: currencies, balances and transfers."""

from __future__ import annotations

from ..errors import ServiceError


class InsufficientFunds(ServiceError):
    """A transfer or a hold would take a player's (or an escrow's, or the house's) balance
    below zero."""

    reason = "insufficient_funds"
    status = 409


class InDebt(ServiceError):
    """A player whose balance is below zero (a voided win they had spent) cannot stake
    until it is repaid."""

    reason = "in_debt"
    status = 409


class UnknownCurrency(ServiceError, LookupError):
    """No currency of that code at this front end."""

    reason = "unknown_currency"
    status = 422


class IdempotencyKeyRequired(ServiceError):
    """A transfer is asked without an ``Idempotency-Key`` header (a retry must never pay
    twice)."""

    reason = "idempotency_key_required"
    status = 400


class IdempotencyKeyReused(ServiceError):
    """An Idempotency-Key sent again with a different transfer."""

    reason = "idempotency_key_reused"
    status = 422


class InvalidCursor(ServiceError):
    """A ledger cursor this service did not issue."""

    reason = "invalid_cursor"
    status = 422
