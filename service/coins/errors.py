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
