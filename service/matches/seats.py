"""Seats: who sits where (a player, a bot, an open seat) and their tokens, minted at
creation and stored only as SHA-256 hashes, checked in constant time; a seat whose
player the front end vouched for also answers that player's tokens (checked by the
players domain first, as a :class:`~service.players.service.PlayerProof`)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..errors import InvalidToken, MissingToken
from ..players import service as players
from ..players.service import Credential, PlayerProof
from .rows import MatchRow, SeatKey


def hash_token(token: str) -> str:
    """SHA-256 of a seat token: only this is stored."""
    return hashlib.sha256(token.encode()).hexdigest()


def mint_token() -> tuple[str, str]:
    """A new seat token and its hash."""
    token = secrets.token_urlsafe(32)
    return token, hash_token(token)


Minter = Callable[[int], tuple[str, str]]
"""A seat's new token and its hash, by seat number."""


def _mint_any(_seat: int) -> tuple[str, str]:
    return mint_token()


def derived_minter(secret: bytes, salt: str) -> Minter:
    """The tokens of a create made with an Idempotency-Key: derived from the service's
    secret key and the create's random ``salt``, so a retry can show them again though
    only their hashes are stored (and the database alone does not give them)."""
    def mint(seat: int) -> tuple[str, str]:
        digest = hmac.new(secret, f"seat-token:{salt}:{seat}".encode(), hashlib.sha256)
        token = base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()
        return token, hash_token(token)
    return mint


def token_check(secret: bytes, salt: str) -> str:
    """What tells, at a retry, whether the secret key is still the one that derived a
    create's tokens (:func:`derived_minter`)."""
    return hmac.new(secret, f"token-check:{salt}".encode(), hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Viewer:
    """Who a match's facts are shown to, where they leave the service (a view, a listing,
    a record, a standing)."""

    server: bool = False
    """The front end's server (its server key, its webhooks): it runs the event and sees
    every match as it is."""
    player_id: str | None = None
    """The player a token proves: the matches they sit at are theirs to see as they are."""


PUBLIC = Viewer()
"""Anyone: a browser key, a player at another table, and what every caller reads alike
(records, totals, ratings, leaderboards, tournament standings)."""
SERVER = Viewer(server=True)


def spectates(delays_spectators: bool, players: Iterable[str | None], viewer: Viewer) -> bool:
    """THE sealing rule, used wherever a match's facts leave: whether ``viewer`` is shown
    the match as its spectators see it (no score, winner, end, version or rating change
    of a sealed table; a delayed match some plays back) rather than as it is. A match
    that delays its spectators (sealed, or in play with a spectator delay) is shown as
    it is only to the front end's server and the players seated at it."""
    return delays_spectators and not viewer.server and (
        viewer.player_id is None or viewer.player_id not in players)


def placed(keys: Sequence[SeatKey], token: Credential | None, delays_spectators: bool,
           viewer: Viewer) -> tuple[int | None, bool]:
    """The bearer's seat (:func:`seat_of`), and whether ``viewer`` is shown the match late,
    sealed or delayed (:func:`spectates`, as the match's facts tell without a query)."""
    seat = seat_of(keys, token)
    return seat, seat is None and spectates(delays_spectators, (), viewer)


def seat_of(keys: Sequence[SeatKey], token: Credential | None) -> int | None:
    """The seat a bearer belongs to, or None without a token (a spectator)."""
    return require_seat(keys, token) if token else None


def require_seat(keys: Sequence[SeatKey], token: Credential | None) -> int:
    """The seat of a credential that must be sent: a seat token's (every seat is
    compared, no early exit, so timing tells nothing about the hashes), or the seat of
    the vouched player a player token proves."""
    if not token:
        raise MissingToken("send the seat token as 'Authorization: Bearer <token>'")
    if isinstance(token, PlayerProof):
        found = next((seat for seat, _, player in keys if player == token.player_id), None)
        if found is None:
            raise InvalidToken("this player holds no seat of this match")
        return found
    digest = hash_token(token)
    mine = None
    for seat, token_hash, _ in keys:
        if hmac.compare_digest(token_hash, digest):
            mine = seat
    if mine is None:
        raise InvalidToken("this token is not a seat of this match")
    return mine


def acting_seat(match: MatchRow, token: Credential | None) -> int:
    """:func:`require_seat` for a request that acts (a move, a resignation, leaving...):
    a seat whose vouched player is suspended acts no more, whatever its token
    (:class:`PlayerSuspended`); their turn clock plays on for them."""
    seat = require_seat(match.seat_keys, token)
    player = next((holder for mine, _, holder in match.seat_keys if mine == seat), None)
    if player is not None:
        players.check_player(match.tenant, player)
    return seat


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
    bot: str | None = None
    player_id: str | None = None
    """The player the front end vouched for in this seat (as a view shows it)."""


@dataclass(frozen=True)
class NewSeat:
    """A seat to create: who sits there and the hash of its token (all None: an open
    seat)."""

    name: str | None
    player_id: str | None
    bot: str | None
    token_hash: str | None
    vouched: bool = False


def new_seats(players: Sequence[PlayerSpec], mint: Minter = _mint_any
              ) -> tuple[list[NewSeat], list[SeatToken]]:
    """The seat rows to store and the tokens to show once, for the requested players
    (``mint``: how their tokens are made)."""
    seats: list[NewSeat] = []
    tokens: list[SeatToken] = []
    for i, p in enumerate(players):
        if p.open:
            seats.append(NewSeat(None, None, None, None))
            tokens.append(SeatToken(i, None, None, open=True))
            continue
        token, token_hash = mint(i)
        name = p.name or (f"{p.bot} bot" if p.bot else f"seat {i}")
        seats.append(NewSeat(name, p.player_id, p.bot, None if p.bot else token_hash,
                             p.vouched and p.player_id is not None))
        tokens.append(SeatToken(i, name, None if p.bot else token, bot=p.bot,
                                player_id=p.player_id))
    return seats, tokens


def distinct_vouched(who: PlayerSpec, seated: Sequence[str], table: str) -> str | None:
    """Why ``who`` cannot take a seat at ``table`` (a rated match, a staked table: each
    seats distinct players vouched for, no bot and no anonymous seat), or None."""
    if who.bot:
        return f"{table} seats no bots"
    if who.player_id is None or not who.vouched:
        return f"{table} seats players vouched for (a player_id with its proof)"
    if who.player_id in seated:
        return f"player {who.player_id!r} already has a seat"
    return None
