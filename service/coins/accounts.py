"""Account ids: the only place they are made. An account is a string within a front end
and a currency: a player's, a table's or a tournament's escrow, the house, the mint."""

from __future__ import annotations

HOUSE = "house"
"""The front end's house: the rake, and what does not divide."""
MINT = "mint"
"""What the front end has issued: the one account below zero (its coins in circulation,
negated)."""

PLAYER = "player:"
TABLE = "table:"
TOURNAMENT = "tournament:"


def player(player_id: str) -> str:
    """A player's account."""
    return PLAYER + player_id


def table(match_id: str) -> str:
    """A match's escrow, where its seats' stakes are held."""
    return TABLE + match_id


def tournament(tournament_id: str) -> str:
    """A tournament's escrow, where its entry fees are held (its prize pool)."""
    return TOURNAMENT + tournament_id


def player_of(account: str) -> str | None:
    """The player whose account this is (None: not a player's)."""
    return account[len(PLAYER):] if account.startswith(PLAYER) else None


def is_escrow(account: str) -> bool:
    """A table's or a tournament's escrow."""
    return account.startswith((TABLE, TOURNAMENT))


def describe(account: str) -> dict[str, str]:
    """An account as the API and the events show it: its kind and, for a player's or an
    escrow, whose (a player's id in a field of its own, so an erasure finds it)."""
    kind, _, owner = account.partition(":")
    if not owner:
        return {"account": kind}
    field = {"player": "player_id", "table": "match_id", "tournament": "tournament_id"}[kind]
    return {"account": kind, field: owner}
