"""Seat tokens: minted at creation, stored only as SHA-256 hashes, checked in constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence

from .errors import InvalidToken, MissingToken
from .models import Seat

SeatHashes = Sequence[tuple[int, str]]
"""(seat, token hash) for every seat of a match."""


def hash_token(token: str) -> str:
    """SHA-256 of a seat token: only this is stored."""
    return hashlib.sha256(token.encode()).hexdigest()


def mint_token() -> tuple[str, str]:
    """A new seat token and its hash."""
    token = secrets.token_urlsafe(32)
    return token, hash_token(token)


def seat_of(seats: SeatHashes, token: str | None) -> int | None:
    """The seat a bearer token belongs to, or None without a token (a spectator)."""
    return require_seat(seats, token) if token else None


def require_seat(seats: SeatHashes, token: str | None) -> int:
    """The seat of a token that must be sent.

    Every seat is compared (no early exit), so timing tells nothing about the hashes.
    """
    if not token:
        raise MissingToken("send the seat token as 'Authorization: Bearer <token>'")
    digest = hash_token(token)
    found = None
    for seat, token_hash in seats:
        if hmac.compare_digest(token_hash, digest):
            found = seat
    if found is None:
        raise InvalidToken("this token is not a seat of this match")
    return found


def seat_hashes(rows: Sequence[Seat]) -> list[tuple[int, str]]:
    """(seat, token hash) pairs of a match's taken seats."""
    return [(s.seat, s.token_hash) for s in rows if s.token_hash is not None]
