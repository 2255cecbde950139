"""Seats: who sits where (a player, a bot, an open seat) and their tokens, minted at
creation and stored only as SHA-256 hashes (checked in constant time by
:func:`service.live.versions.require_seat`, which polls share)."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from ..live.versions import SeatKey, hash_token
from ..storage.models import Seat


def mint_token() -> tuple[str, str]:
    """A new seat token and its hash."""
    token = secrets.token_urlsafe(32)
    return token, hash_token(token)


def seat_hashes(rows: Sequence[Seat]) -> list[SeatKey]:
    """(seat, token hash, vouched player) of a match's taken seats."""
    return [(s.seat, s.token_hash, s.player_id if s.vouched else None)
            for s in rows if s.token_hash is not None]


@dataclass(frozen=True)
class PlayerSpec:
    """A seat requested at creation: a human's name (and front-end id), a bot level, or
    an open seat that a player joins later."""

    name: str | None = None
    player_id: str | None = None
    bot: str | None = None
    open: bool = False
    vouched: bool = False
    """The front end proved ``player_id`` (a player token, or a server key)."""


@dataclass(frozen=True)
class SeatToken:
    """A seat's token, shown once (None for a bot or an open seat)."""

    seat: int
    name: str | None
    token: str | None
    open: bool = False


@dataclass(frozen=True)
class NewSeat:
    """A seat to create: who sits there and the hash of its token (all None: an open
    seat)."""

    name: str | None
    player_id: str | None
    bot: str | None
    token_hash: str | None
    vouched: bool = False


def new_seats(players: Sequence[PlayerSpec]) -> tuple[list[NewSeat], list[SeatToken]]:
    """The seat rows to store and the tokens to show once, for the requested players."""
    seats: list[NewSeat] = []
    tokens: list[SeatToken] = []
    for i, p in enumerate(players):
        if p.open:
            seats.append(NewSeat(None, None, None, None))
            tokens.append(SeatToken(i, None, None, open=True))
            continue
        token, token_hash = mint_token()
        name = p.name or (f"{p.bot} bot" if p.bot else f"seat {i}")
        seats.append(NewSeat(name, p.player_id, p.bot, None if p.bot else token_hash,
                             p.vouched and p.player_id is not None))
        tokens.append(SeatToken(i, name, None if p.bot else token))
    return seats, tokens


def bot_levels(rows: Sequence[Seat]) -> dict[int, str]:
    """seat -> bot level of a match's bot seats."""
    return {s.seat: s.bot for s in rows if s.bot}
