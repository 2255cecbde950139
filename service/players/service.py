"""Players and their tokens: a player is (front end, ``player_id``), the front end's own
id for its user. The front end vouches for them, with a server key or with a player
token: a JWT (HS256) signed with the front end's own secret, which its server may
also sign itself.

Claims: ``iss`` ``"basra"``, ``aud`` the front end's name (as ``basra keys`` knows it),
``sub`` the player id, ``name`` (optional, the display name), ``iat`` and ``exp``: a
token lives at most :data:`MAX_TTL_SECONDS`.
"""

from __future__ import annotations

import math
import re
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import jwt
from sqlalchemy import select, update

from ..storage.db import db, transaction
from ..storage.models import Player, Tenant, as_utc, utcnow
from . import cache
from .errors import InvalidPlayerToken, PlayerNotFound, TokenRevoked

ISSUER = "basra"
ALGORITHM = "HS256"
MIN_TTL_SECONDS = 60
MAX_TTL_SECONDS = 86_400
LEEWAY_SECONDS = 30
"""Clock skew allowed between the front end's server and this one."""
PLAYER_ID = re.compile(r"(?!\.\.?\Z)[A-Za-z0-9._:@-]{1,128}")
"""What a player id may be: 1-128 of ``A-Z a-z 0-9 . _ : @ -``, but not ``.`` or ``..``
(a URL path cannot carry them: browsers resolve them away)."""


@dataclass(frozen=True)
class PlayerProof:
    """A verified player token: the front end vouches that the bearer is ``player_id``."""

    player_id: str
    name: str | None = None
    issued_at: float = 0.0
    expires_at: float = float("inf")


Credential = str | PlayerProof
"""What a bearer shows: a seat token, or a player's proof."""


@dataclass(frozen=True)
class MintedToken:
    """A player token and what it says."""

    player_id: str
    name: str | None
    token: str
    expires_at: datetime


def player_secret(tenant: int) -> str:
    """The front end's secret for signing its players' tokens, made on first use (shown to
    its operator by ``basra keys secret NAME``)."""
    known = cache.secret(tenant)
    if known is not None:
        return known
    with transaction(write=True):
        row = db.session.get(Tenant, tenant)
        assert row is not None, f"tenant {tenant} exists"
        if row.player_secret is None:
            row.player_secret = secrets.token_hex(32)
        secret = row.player_secret
    cache.keep_secret(tenant, secret)
    return secret


def find(tenant: int, player_id: str) -> Player | None:
    """The front end's player ``player_id``, if it vouched for them (caller's transaction)."""
    return db.session.execute(select(Player).where(  # type: ignore[no-any-return]
        Player.tenant_pk == tenant, Player.player_id == player_id)).scalar_one_or_none()


def vouched_player(tenant: int, player_id: str) -> Player:
    """:func:`find`, or :class:`PlayerNotFound` (another front end's players too)."""
    found = find(tenant, player_id)
    if found is None:
        raise PlayerNotFound(f"no player {player_id!r}")
    return found


def remember(tenant: int, player_id: str, name: str | None) -> None:
    """Record a vouched player in the caller's write transaction (its display name kept
    up to date)."""
    found = find(tenant, player_id)
    if found is None:
        db.session.add(Player(tenant_pk=tenant, player_id=player_id, name=name,
                              created_at=utcnow()))
        db.session.flush()
    elif name and found.name != name:
        found.name = name


def mint(tenant: int, audience: str, player_id: str, name: str | None,
         ttl_seconds: int) -> MintedToken:
    """A token of ``player_id`` for ``ttl_seconds``, signed with the front end's secret;
    the player is recorded."""
    secret = player_secret(tenant)
    with transaction(write=True):
        remember(tenant, player_id, name)
    issued = math.ceil(time.time() * 1000) / 1000  # to the millisecond: a sign-out's
    now = int(issued)                                # tokens are those issued before it
    claims: dict[str, object] = {"iss": ISSUER, "aud": audience, "sub": player_id,
                                 "iat": issued, "exp": now + ttl_seconds}
    if name:
        claims["name"] = name
    token = jwt.encode(claims, secret, algorithm=ALGORITHM)
    return MintedToken(player_id, name, token,
                       datetime.fromtimestamp(now, UTC) + timedelta(seconds=ttl_seconds))


def audience_of(token: str) -> str:
    """The front end a player token names (its ``aud``), read before its signature is
    checked (to know whose secret checks it): :class:`InvalidPlayerToken` if none."""
    try:
        claims = jwt.decode(token, options={"verify_signature": False})
    except jwt.InvalidTokenError as error:
        raise InvalidPlayerToken(f"the player token is not valid here: {error}") from error
    audience = claims.get("aud")
    if not isinstance(audience, str) or not audience:
        raise InvalidPlayerToken("the player token names no front end (aud)")
    return audience


def verify(tenant: int, audience: str, token: str) -> PlayerProof:
    """The player a token proves, or :class:`InvalidPlayerToken`."""
    secret = player_secret(tenant)
    try:
        claims = jwt.decode(token, secret, algorithms=[ALGORITHM], audience=audience,
                            issuer=ISSUER, leeway=LEEWAY_SECONDS,
                            options={"require": ["iss", "aud", "sub", "iat", "exp"]})
    except jwt.InvalidTokenError as error:
        raise InvalidPlayerToken(f"the player token is not valid here: {error}") from error
    player_id, name = claims["sub"], claims.get("name")
    if not (isinstance(player_id, str) and PLAYER_ID.fullmatch(player_id)):
        raise InvalidPlayerToken("the player token's sub is not a player id")
    if not isinstance(claims["exp"], int | float) or not isinstance(claims["iat"], int | float) \
            or claims["exp"] - claims["iat"] > MAX_TTL_SECONDS:
        raise InvalidPlayerToken(f"a player token lives at most {MAX_TTL_SECONDS} s")
    proof = PlayerProof(player_id, name if isinstance(name, str) and name else None,
                        float(claims["iat"]), float(claims["exp"]))
    if not still_valid(tenant, proof):
        raise TokenRevoked("this player was signed out everywhere after the token was "
                           "issued: mint a new one")
    return proof


SIGN_OUTS_SECONDS = 1.0
"""How long a process trusts what it read of sign-outs: a sign-out is refused on every
instance within this (and a read's time)."""
_OVERLAP = 10.0
"""Each read looks this far back past the last one: a sign-out stamped just before a
read but committed after it is still seen."""


def sign_out(tenant: int, player_id: str) -> datetime:
    """Sign the player out everywhere: every token of theirs issued before now is
    refused (:class:`TokenRevoked`), on every instance within
    :data:`SIGN_OUTS_SECONDS`; the moment."""
    now = utcnow()
    with transaction(write=True):
        remember(tenant, player_id, None)
        db.session.execute(update(Player).where(Player.tenant_pk == tenant,
                                                Player.player_id == player_id)
                           .values(signed_out_at=now))
    cache.forget_sign_outs()
    return now


def still_valid(tenant: int, proof: PlayerProof) -> bool:
    """Whether a verified token still holds: not expired, and issued after its player's
    last sign-out (as this process read them within :data:`SIGN_OUTS_SECONDS`)."""
    if time.time() >= proof.expires_at:
        return False
    signed_out = _sign_outs().get((tenant, proof.player_id))
    return signed_out is None or proof.issued_at >= signed_out


def _sign_outs() -> dict[tuple[int, str], float]:
    """The sign-outs of the last day, by front end and player: what is new read at most
    once a :data:`SIGN_OUTS_SECONDS` per process (one query, whatever the players)."""
    known = cache.sign_outs(SIGN_OUTS_SECONDS)
    if known is not None:
        return known
    now = time.time()
    since = cache.read_sign_outs_since()
    since = now - MAX_TTL_SECONDS if since is None else since - _OVERLAP
    with transaction(one_statement=True):
        found = {(tenant, player): as_utc(at).timestamp()
                 for tenant, player, at in db.session.execute(
                     select(Player.tenant_pk, Player.player_id, Player.signed_out_at)
                     .where(Player.signed_out_at > datetime.fromtimestamp(since, UTC)))
                 if at is not None}
    return cache.keep_sign_outs(found, now, now - MAX_TTL_SECONDS)
