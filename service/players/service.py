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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
from sqlalchemy import delete, select, update

from ..events import publish
from ..storage import writes
from ..storage.base import as_utc, utcnow
from ..storage.db import after_commit, db, read_apart, transaction
from ..tenants import audit
from ..tenants import service as tenants
from . import cache, totals
from .errors import (
    InvalidPlayerToken,
    PlayerNotFound,
    PlayerSuspended,
    SuspensionEnded,
    TokenRevoked,
)
from .models import Player, PlayerEvent, Rating, RatingChange

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


SECRETS_SECONDS = 1.0
"""How long a process trusts what it read of a front end's secrets: a rotation, or a
secret retired with the front end's last key, holds everywhere within this."""
MAX_GRACE_SECONDS = MAX_TTL_SECONDS
"""A rotated secret's tokens are accepted at most this long (no token lives longer)."""


def signing_secrets(tenant: int) -> cache.Secrets:
    """The front end's secrets for signing its players' tokens (the current one made on
    first use, shown to its operator by ``basra keys secret NAME``), as read within
    :data:`SECRETS_SECONDS`."""
    known = cache.secrets(tenant, SECRETS_SECONDS)
    if known is not None:
        return known
    with transaction(one_statement=True):
        current, previous, until = tenants.player_secrets(tenant)
    if current is None:
        current = tenants.make_player_secret(tenant)
    found = cache.Secrets(current, previous, until.timestamp() if until else 0.0)
    cache.keep_secrets(tenant, found)
    return found


def player_secret(tenant: int) -> str:
    """The front end's current signing secret (made on first use)."""
    return signing_secrets(tenant).current


def rotate_secret(tenant: int, grace_seconds: int, actor: str) -> str:
    """Sign new tokens with a new secret; the old one's tokens are accepted
    ``grace_seconds`` more (0: refused at once, as once every process has read the
    change, within :data:`SECRETS_SECONDS`). The new secret."""
    if not 0 <= grace_seconds <= MAX_GRACE_SECONDS:
        raise ValueError(f"the grace is 0 to {MAX_GRACE_SECONDS} s")
    new = secrets.token_hex(32)
    with transaction(write=True):
        tenants.rotate_player_secret(tenant, new, grace_seconds)
        audit.record(tenant, actor, "secret.rotated", "keys", grace_seconds=grace_seconds)
    cache.forget_secrets()
    return new


KNOWN = Player.erased_at.is_(None)
"""A player the front end vouched for, not an erased one's tombstone (which only refuses
their old tokens): every lookup of a player by id goes through it."""


def find(tenant: int, player_id: str) -> Player | None:
    """The front end's player ``player_id``, if it vouched for them and they were not
    erased since (caller's transaction)."""
    return db.session.execute(select(Player).where(  # type: ignore[no-any-return]
        Player.tenant_pk == tenant, Player.player_id == player_id, KNOWN)
    ).scalar_one_or_none()


@dataclass(frozen=True)
class PlayerFound:
    """A player as a search lists them."""

    player_id: str
    name: str | None
    created_at: datetime
    matches: int
    suspended: bool
    erased: bool
    """An erased player's tombstone (then ``created_at`` is the erasure's time)."""


def search(tenant: int, prefix: str, after: str | None, limit: int
           ) -> tuple[list[PlayerFound], str | None]:
    """The front end's players whose id starts ``prefix``, in id order after ``after``
    (by the players' index): a page, and the next page's ``after``."""
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    query = (select(Player).where(Player.tenant_pk == tenant,
                                  Player.player_id.like(escaped + "%", escape="\\"))
             .order_by(Player.player_id).limit(limit + 1))
    if after is not None:
        query = query.where(Player.player_id > after)
    elif prefix:
        query = query.where(Player.player_id >= prefix)
    now = utcnow()
    with transaction():
        rows = db.session.scalars(query).all()
        found = [PlayerFound(r.player_id, r.name, as_utc(r.created_at), r.matches,
                             _suspended_now(r, now), r.erased_at is not None)
                 for r in rows[:limit]]
    return found, found[-1].player_id if len(rows) > limit else None


def vouched_player(tenant: int, player_id: str) -> Player:
    """:func:`find`, or :class:`PlayerNotFound` (another front end's players too)."""
    found = find(tenant, player_id)
    if found is None:
        raise PlayerNotFound(f"no player {player_id!r}")
    return found


def lock_players(tenant: int, player_ids: list[str]) -> None:
    """Lock the rows of vouched players, in id order (two requests between the same
    players queue, and never deadlock), in the caller's write transaction;
    :class:`PlayerNotFound` for one not vouched for."""
    wanted = sorted(set(player_ids))
    found = db.session.execute(select(Player.player_id).where(
        Player.tenant_pk == tenant, Player.player_id.in_(wanted), KNOWN)
        .order_by(Player.player_id).with_for_update()).scalars().all()
    missing = [p for p in wanted if p not in set(found)]
    if missing:
        raise PlayerNotFound(f"no player {missing[0]!r}")


def vouched_player_now(tenant: int, player_id: str) -> None:
    """:class:`PlayerNotFound` unless the front end vouched for the player."""
    with transaction():
        vouched_player(tenant, player_id)


NewPlayer = Callable[[int, str], None]
"""Told of a player new to their front end (tenant, player id), in the write
transaction that records them."""
_on_new: list[NewPlayer] = []


def wire_new(*hooks: NewPlayer) -> None:
    """Who hears of each new player (the coins' starting grant), wired by the
    composition root."""
    _on_new[:] = hooks


def remember(tenant: int, player_id: str, name: str | None, *, revive: bool = True) -> None:
    """Record a vouched player in the caller's write transaction (its display name kept
    up to date). An erased id vouched for again is a new player (``revive`` False: it
    stays erased); its row keeps the erasure's sign-out, so the old tokens stay refused.
    A new player is told to the hooks :func:`wire_new` was given (in this transaction)."""
    found = db.session.execute(select(Player).where(
        Player.tenant_pk == tenant, Player.player_id == player_id)).scalar_one_or_none()
    if found is None:
        db.session.add(Player(tenant_pk=tenant, player_id=player_id, name=name,
                              created_at=utcnow()))
        db.session.flush()
    elif found.erased_at is not None:
        if not revive:
            return
        found.erased_at, found.name, found.created_at = None, name, utcnow()
    else:
        if name and found.name != name:
            found.name = name
        return
    for hook in _on_new:
        hook(tenant, player_id)


def mint(tenant: int, audience: str, player_id: str, name: str | None,
         ttl_seconds: int) -> MintedToken:
    """A token of ``player_id`` for ``ttl_seconds``, signed with the front end's secret;
    the player is recorded. None for a suspended player (:class:`PlayerSuspended`)."""
    secret = player_secret(tenant)
    with transaction(write=True):
        remember(tenant, player_id, name)
        held = suspension_of(vouched_player(tenant, player_id))
    if held is not None:
        raise PlayerSuspended(f"player {player_id!r} is suspended: no token is minted for "
                              "them")
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
    known = signing_secrets(tenant)
    try:
        claims = _decode(token, known.current, audience)
    except jwt.InvalidSignatureError as error:
        if known.previous is None or time.time() >= known.previous_until:
            raise InvalidPlayerToken(f"the player token is not valid here: {error}") from error
        try:  # signed before a rotation, within its grace
            claims = _decode(token, known.previous, audience)
        except jwt.InvalidSignatureError as again:
            raise InvalidPlayerToken(f"the player token is not valid here: {again}") from again
    player_id, name = claims["sub"], claims.get("name")
    if not (isinstance(player_id, str) and PLAYER_ID.fullmatch(player_id)):
        raise InvalidPlayerToken("the player token's sub is not a player id")
    if not isinstance(claims["exp"], int | float) or not isinstance(claims["iat"], int | float) \
            or claims["exp"] - claims["iat"] > MAX_TTL_SECONDS:
        raise InvalidPlayerToken(f"a player token lives at most {MAX_TTL_SECONDS} s")
    proof = PlayerProof(player_id, name if isinstance(name, str) and name else None,
                        float(claims["iat"]), float(claims["exp"]))
    check_access(tenant, proof)
    return proof


def _decode(token: str, secret: str, audience: str) -> dict[str, Any]:
    try:
        return jwt.decode(token, secret, algorithms=[ALGORITHM], audience=audience,
                          issuer=ISSUER, leeway=LEEWAY_SECONDS,
                          options={"require": ["iss", "aud", "sub", "iat", "exp"]})
    except jwt.InvalidSignatureError:
        raise
    except jwt.InvalidTokenError as error:
        raise InvalidPlayerToken(f"the player token is not valid here: {error}") from error


ACCESS_SECONDS = 1.0
"""How long a process trusts what it read of sign-outs and suspensions: one is refused
on every instance within this (and a read's time)."""
_OVERLAP = 10.0
"""Each read looks this far back past the last one: a change stamped just before a read
but committed after it is still seen."""


def _stamp(moment: datetime | None) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment is not None else None


def sign_out(tenant: int, player_id: str, actor: str, *, tell: bool = True) -> datetime:
    """Sign the player out everywhere: every token of theirs issued before now is
    refused (:class:`TokenRevoked`), on every instance within :data:`ACCESS_SECONDS`;
    the moment. ``tell`` False: no ``player.signed_out`` (an erasure's first step: its
    own notice is the one it sends)."""
    now = utcnow()
    with transaction(write=True):
        remember(tenant, player_id, None, revive=False)  # an erased id stays erased
        db.session.execute(update(Player).where(Player.tenant_pk == tenant,
                                                Player.player_id == player_id)
                           .values(signed_out_at=now, access_changed_at=now))
        audit.record(tenant, actor, "player.signed_out", f"player:{player_id}")
        if tell:
            publish(tenant, "player.signed_out", {"player_id": player_id, "at": _stamp(now)})
    cache.forget_access()
    return now


@dataclass(frozen=True)
class Suspension:
    """A player's suspension: since when, until when (None: for good), why."""

    player_id: str
    since: datetime
    until: datetime | None
    reason: str


def suspend(tenant: int, player_id: str, until: datetime | None, reason: str,
            actor: str, forfeit: bool = False, *, tell: bool = True) -> Suspension:
    """Suspend a vouched player until ``until`` (None: for good): their tokens are refused
    (:class:`PlayerSuspended`) on every instance within :data:`ACCESS_SECONDS`, and no
    token is minted for them. Suspending again changes the end and the reason. The
    front end's webhooks hear ``player.suspended`` (``forfeit``: their active matches
    are lost, as the caller does; ``tell`` False: not, as an erasure's hold)."""
    now = utcnow()
    until = until.astimezone(UTC) if until is not None else None
    if until is not None and until <= now:
        raise SuspensionEnded("the suspension would have ended already", field="until",
                              problem="must be in the future")
    with transaction(write=True):
        player = vouched_player(tenant, player_id)
        since = as_utc(player.suspended_at) if player.suspended_at and \
            _suspended_now(player, now) else now
        player.suspended_at, player.suspended_until = since, until
        player.suspension_reason, player.access_changed_at = reason, now
        audit.record(tenant, actor, "player.suspended", f"player:{player_id}",
                     until=until.isoformat() if until else None, reason=reason)
        if tell:
            publish(tenant, "player.suspended", {"player_id": player_id, "since": _stamp(since),
                                                 "until": _stamp(until), "reason": reason,
                                                 "forfeit": forfeit})
    cache.forget_access()
    return Suspension(player_id, since, until, reason)


def lift_suspension(tenant: int, player_id: str, actor: str) -> bool:
    """End a player's suspension at once; whether they were suspended."""
    now = utcnow()
    with transaction(write=True):
        player = vouched_player(tenant, player_id)
        was = _suspended_now(player, now)
        if player.suspended_at is not None:
            player.suspended_at = player.suspended_until = player.suspension_reason = None
            player.access_changed_at = now
        if was:
            audit.record(tenant, actor, "player.suspension_lifted", f"player:{player_id}")
            publish(tenant, "player.suspension_lifted", {"player_id": player_id})
    cache.forget_access()
    return was


def suspension_of(player: Player, now: datetime | None = None) -> Suspension | None:
    """The player's suspension, if it holds now."""
    if not _suspended_now(player, now or utcnow()):
        return None
    assert player.suspended_at is not None
    return Suspension(player.player_id, as_utc(player.suspended_at),
                      as_utc(player.suspended_until) if player.suspended_until else None,
                      player.suspension_reason or "")


def _suspended_now(player: Player, now: datetime) -> bool:
    return player.suspended_at is not None and (
        player.suspended_until is None or as_utc(player.suspended_until) > now)


def check_access(tenant: int, proof: PlayerProof) -> None:
    """A verified token that no longer holds: expired (:class:`InvalidPlayerToken`),
    issued before its player's last sign-out (:class:`TokenRevoked`), or its player
    suspended (:class:`PlayerSuspended`), as this process read them within
    :data:`ACCESS_SECONDS`."""
    now = time.time()
    if now >= proof.expires_at:
        raise InvalidPlayerToken("the player token has expired")
    check_player(tenant, proof.player_id, proof.issued_at, now)


def check_player(tenant: int, player_id: str, issued_at: float | None = None,
                 now: float | None = None) -> None:
    """:func:`check_access` of a player (without a token: only a suspension), also for a
    server key acting for them (seating them, minting their token)."""
    found = _access().get((tenant, player_id))
    if found is None:
        return
    now = time.time() if now is None else now
    if found.suspended_until is not None and now < found.suspended_until:
        until = found.suspended_until
        raise PlayerSuspended(
            f"player {player_id!r} is suspended " + ("for good" if until == math.inf else
            f"until {datetime.fromtimestamp(until, UTC).isoformat().replace('+00:00', 'Z')}"))
    if issued_at is not None and found.signed_out is not None and issued_at < found.signed_out:
        raise TokenRevoked("this player was signed out everywhere after the token was "
                           "issued: mint a new one")


def still_valid(tenant: int, proof: PlayerProof) -> bool:
    """Whether a verified token still holds (:func:`check_access`)."""
    try:
        check_access(tenant, proof)
    except (InvalidPlayerToken, TokenRevoked, PlayerSuspended):
        return False
    return True


def _access() -> dict[tuple[int, str], cache.Access]:
    """The access changes that hold, by front end and player: what is new read at most
    once an :data:`ACCESS_SECONDS` per process (one query, whatever the players), on a
    connection of its own (a check inside a write transaction keeps its locks)."""
    known = cache.access(ACCESS_SECONDS)
    if known is not None:
        return known
    now = time.time()
    since = cache.access_read_since()
    first = since is None
    since = now - MAX_TTL_SECONDS if since is None else since - _OVERLAP
    changed = Player.access_changed_at > datetime.fromtimestamp(since, UTC)
    if first:  # every suspension that holds, however old
        changed = changed | Player.suspended_at.is_not(None)
    rows = read_apart(select(Player.tenant_pk, Player.player_id, Player.signed_out_at,
                             Player.suspended_at, Player.suspended_until).where(changed))
    found = {(tenant, player): cache.Access(
                 as_utc(signed_out).timestamp() if signed_out else None,
                 (as_utc(until).timestamp() if until else math.inf) if suspended else None)
             for tenant, player, signed_out, suspended, until in rows}
    return cache.keep_access(found, now, now - MAX_TTL_SECONDS)


def erase(tenant: int, player_id: str, rewrite: Callable[[str, Any], Any],
          needles: Sequence[str] = ()) -> None:
    """Erase what the players domain holds of a player (caller's write transaction, their
    row locked): their ratings, rating charts, totals, name, suspension and stream
    events, and in other players' events (those holding their id or any of ``needles``)
    what ``rewrite(kind, data)`` replaces. Their row stays, holding only their id, a
    sign-out now, so every token issued before is refused, and the erasure's time, so
    their id answers as an unknown one (:data:`KNOWN`) until a server key vouches for it
    again: then it is a new player (:func:`remember`)."""
    player = db.session.execute(select(Player).where(
        Player.tenant_pk == tenant, Player.player_id == player_id).with_for_update()).scalar_one()
    writes.rewrite_json_text(PlayerEvent.body, PlayerEvent.type, PlayerEvent.tenant_pk == tenant,
                             [player_id, *needles], rewrite)
    db.session.execute(delete(RatingChange).where(RatingChange.player_pk == player.pk))
    db.session.execute(delete(Rating).where(Rating.player_pk == player.pk))
    db.session.execute(delete(PlayerEvent).where(PlayerEvent.tenant_pk == tenant,
                                                 PlayerEvent.player_id == player_id))
    now = utcnow()
    db.session.execute(update(Player).where(Player.pk == player.pk).values(
        name=None, created_at=now, signed_out_at=now, access_changed_at=now, erased_at=now,
        suspended_at=None, suspended_until=None, suspension_reason=None,
        **{total: 0 for total in totals.TOTALS}))
    after_commit(cache.forget_access)

