"""Tenants (front ends) and their API keys: minting, hashing, checking, revoking.

A key is ``bk_``, 40 random base62 characters and a 6-character checksum (CRC32 of the
rest, base62, as GitHub's tokens carry): a string that is not one (a typo, a guess) is
refused before any look-up (:func:`well_formed`). Keys made before the checksum (``bk_``
and 43 URL-safe base64 characters) keep working. A request's key is looked up once per
``BASRA_KEY_CACHE_SECONDS`` per process, so checking it costs no query on the hot path;
a revoked key stops working within that time everywhere.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select, update

from ..live.single_flight import SingleFlight
from ..storage.base import as_utc, utcnow
from ..storage.db import db, read_fresh, transaction
from . import audit, cache
from .cache import LOCAL, Caller
from .errors import (
    InvalidApiKey,
    KeyPrefixAmbiguous,
    MissingApiKey,
    OriginNotAllowed,
    TenantNameTaken,
    TenantNotFound,
)
from .models import LOCAL_TENANT, ApiKey, StaffKey, Tenant

KEY_PREFIX = "bk_"
STAFF_KEY_PREFIX = "bs_"
_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_RANDOM_CHARS, _CHECK_CHARS = 40, 6
_LEGACY_KEY = re.compile(rf"{KEY_PREFIX}[A-Za-z0-9_-]{{43}}")
"""A key made before keys carried a checksum: 32 random bytes, URL-safe base64."""
KEY_PREFIX_CHARS = 10
"""A key's first characters, as kept and listed (``basra keys list``)."""


def _checksum(body: str) -> str:
    """CRC32 of a key's prefix and random part, as 6 base62 characters."""
    n, out = zlib.crc32(body.encode()), []
    for _ in range(_CHECK_CHARS):
        n, digit = divmod(n, 62)
        out.append(_BASE62[digit])
    return "".join(reversed(out))


def new_key(prefix: str = KEY_PREFIX) -> str:
    """A fresh key (an API key, or with :data:`STAFF_KEY_PREFIX` a staff key): prefix, 40
    random base62 characters (238 bits), checksum."""
    body = prefix + "".join(secrets.choice(_BASE62) for _ in range(_RANDOM_CHARS))
    return body + _checksum(body)


def checksum_holds(key: str, prefix: str = KEY_PREFIX) -> bool:
    """Whether ``key`` has the shape of a key made with ``prefix`` and its checksum."""
    return (key.startswith(prefix) and len(key) == len(prefix) + _RANDOM_CHARS + _CHECK_CHARS
            and key[len(prefix):].isascii() and key[len(prefix):].isalnum()
            and _checksum(key[:-_CHECK_CHARS]) == key[-_CHECK_CHARS:])


def well_formed(key: str) -> bool:
    """Whether ``key`` could be a key of this service (its checksum holds, or it has the
    shape of a key made before checksums): no look-up is spent on one that could not."""
    return checksum_holds(key) or _LEGACY_KEY.fullmatch(key) is not None


def sender_digest(who: str) -> str:
    """Who sent a request within its front end (``player:<id>``, ``key:<key>``...), as
    idempotency keys are kept by it: a digest, never the key."""
    return hashlib.sha256(who.encode()).hexdigest()


def hash_key(key: str) -> str:
    """SHA-256 of a key (or a session's token): only this is stored."""
    return hashlib.sha256(key.encode()).hexdigest()


# the requests that find one key's entry expired together (a move wakes hundreds of long
# polls of one front end) share one look-up; look-ups of different keys never wait on
# each other
_lookups = SingleFlight()


def caller_for(key: str | None, *, required: bool, origin: str | None,
               cache_seconds: float) -> Caller:
    """The tenant a request's X-API-Key belongs to; without a key, the local tenant
    unless keys are ``required``. A browser ``origin`` must be one the tenant allows."""
    if not key:
        if required:
            raise MissingApiKey("send your front end's API key as 'X-API-Key: <key>'")
        return LOCAL
    if key.startswith(STAFF_KEY_PREFIX):
        raise InvalidApiKey("a staff key is no API key: it signs in to the console "
                            "(POST /v1/staff/sessions)", malformed=True)
    if not well_formed(key):
        raise InvalidApiKey("this is not an API key of this service (a typo? keys are "
                            "'bk_' and 46 letters and digits)", malformed=True)
    digest = hash_key(key)
    fresh, caller = cache.keys.get(digest, cache_seconds)
    if not fresh:
        caller = _lookups.do(digest, lambda: _look_up_and_keep(digest))
    if caller is None:
        raise InvalidApiKey("this API key is unknown or revoked")
    if origin and caller.origins and origin not in caller.origins:
        raise OriginNotAllowed(f"the origin {origin!r} may not use this API key")
    return caller


def caller_named(name: str, cache_seconds: float, *, keys_required: bool) -> Caller | None:
    """The front end called ``name`` as the caller of a request that sent a player token
    and no key (browser-key rights: :attr:`Caller.by_token`); None if there is none. The
    keyless local front end is one only where keys are optional (as without a token)."""
    if name == LOCAL.name:
        return None if keys_required else LOCAL
    fresh, caller = cache.names.get(name, cache_seconds)
    if not fresh:
        caller = _lookups.do(f"name:{name}", lambda: _name_and_keep(name))
    return caller


def caller_numbered(tenant: int, cache_seconds: float, *, keys_required: bool) -> Caller | None:
    """The front end numbered ``tenant`` as the caller of a request that sent a seat token
    of one of its matches and no key (browser-key rights, as :func:`caller_named`); None
    if there is none, or it is the keyless local front end where keys are required."""
    if tenant == LOCAL.tenant:
        return None if keys_required else LOCAL
    fresh, caller = cache.numbers.get(str(tenant), cache_seconds)
    if not fresh:
        caller = _lookups.do(f"pk:{tenant}", lambda: _number_and_keep(tenant))
    return caller


def _number_and_keep(tenant: int) -> Caller | None:
    with transaction(one_statement=True):
        name = db.session.execute(select(Tenant.name).where(Tenant.pk == tenant)).scalar()
    caller = None if name is None else Caller(tenant, name, by_token=True)
    cache.numbers.put(str(tenant), caller)
    return caller


def _name_and_keep(name: str) -> Caller | None:
    with transaction(one_statement=True):
        pk = db.session.execute(select(Tenant.pk).where(Tenant.name == name)).scalar()
    caller = None if pk is None else Caller(int(pk), name, by_token=True)
    cache.names.put(name, caller)
    return caller


def _look_up_and_keep(digest: str) -> Caller | None:
    caller = _lookup(digest)
    cache.keys.put(digest, caller)
    return caller


def _lookup(digest: str) -> Caller | None:
    """The caller of a key: from a standby, or the primary for a key it does not know
    (made or revoked a moment ago, or not at all)."""
    return read_fresh(lambda: _lookup_now(digest), lambda caller: caller is not None)


def _lookup_now(digest: str) -> Caller | None:
    with transaction(one_statement=True):
        row = db.session.execute(
            select(Tenant.pk, Tenant.name, ApiKey.origins, ApiKey.prefix)
            .join(ApiKey, ApiKey.tenant_pk == Tenant.pk)
            .where(ApiKey.key_hash == digest, ApiKey.revoked_at.is_(None))
        ).first()
    return None if row is None else Caller(row[0], row[1], tuple(row[2] or ()), key=row[3])


# --- the `basra keys` command -------------------------------------------------------


def create_key(name: str, origins: list[str], actor: str = audit.COMMAND_LINE) -> str:
    """A new key for tenant ``name`` (made if new): a browser key limited to ``origins``,
    or without them a server key."""
    if name == LOCAL.name:
        raise TenantNameTaken("'local' is the built-in tenant of requests without a key")
    key = new_key()
    with transaction(write=True):
        tenant = db.session.execute(select(Tenant).where(Tenant.name == name)).scalar()
        if tenant is None:
            tenant = Tenant(name=name, origins=[], created_at=utcnow())
            db.session.add(tenant)
            db.session.flush()
        db.session.add(ApiKey(tenant_pk=tenant.pk, key_hash=hash_key(key),
                              prefix=key[:KEY_PREFIX_CHARS], origins=origins,
                              created_at=utcnow()))
        audit.record(tenant.pk, actor, "keys.created", "keys",
                     prefix=key[:KEY_PREFIX_CHARS], origins=origins)
    return key


def tenant_pk(name: str) -> int:
    """The tenant called ``name`` (:class:`TenantNotFound` if none)."""
    with transaction():
        pk = db.session.execute(select(Tenant.pk).where(Tenant.name == name)).scalar()
    if pk is None:
        raise TenantNotFound(f"no front end called {name!r}")
    return int(pk)


@dataclass(frozen=True)
class TenantKeys:
    """A tenant and its keys, as ``basra keys list`` shows them."""

    name: str
    active: tuple[tuple[str, tuple[str, ...]], ...]
    """(prefix, browser origins) of the keys not revoked; no origins: a server key."""
    revoked: int
    staff: tuple[tuple[str, str, str], ...] = ()
    """(prefix, name, role) of the staff keys not revoked."""


@dataclass(frozen=True)
class KeyInfo:
    """A key as its front end's admin sees it: never the key itself."""

    prefix: str
    origins: list[str]
    created_at: datetime
    name: str | None = None
    role: str | None = None


def keys_of(tenant: int) -> tuple[list[KeyInfo], list[KeyInfo]]:
    """The front end's API keys and staff keys not revoked, oldest first."""
    with transaction():
        api = db.session.scalars(select(ApiKey).where(
            ApiKey.tenant_pk == tenant, ApiKey.revoked_at.is_(None)).order_by(ApiKey.pk))
        keys = [KeyInfo(k.prefix, list(k.origins or ()), as_utc(k.created_at)) for k in api]
        staff = db.session.scalars(select(StaffKey).where(
            StaffKey.tenant_pk == tenant, StaffKey.revoked_at.is_(None)).order_by(StaffKey.pk))
        staffed = [KeyInfo(k.prefix, [], as_utc(k.created_at), k.name, k.role) for k in staff]
    return keys, staffed


def list_keys() -> list[TenantKeys]:
    """Every tenant but the local one, with its keys."""
    with transaction():
        tenants = db.session.execute(
            select(Tenant).where(Tenant.pk != LOCAL_TENANT).order_by(Tenant.name)
        ).scalars().all()
        keys = db.session.execute(select(ApiKey).order_by(ApiKey.pk)).scalars().all()
        staff = db.session.execute(select(StaffKey).where(StaffKey.revoked_at.is_(None))
                                   .order_by(StaffKey.pk)).scalars().all()
    out = []
    for t in tenants:
        mine = [k for k in keys if k.tenant_pk == t.pk]
        out.append(TenantKeys(
            t.name, tuple((k.prefix, tuple(k.origins or ())) for k in mine
                          if k.revoked_at is None),
            sum(1 for k in mine if k.revoked_at is not None),
            tuple((k.prefix, k.name, k.role) for k in staff if k.tenant_pk == t.pk),
        ))
    return out


def revoke_keys(name: str, prefix: str | None = None, actor: str = audit.COMMAND_LINE) -> int:
    """Revoke every key of tenant ``name``, its staff keys included (only the one whose
    listed prefix ``prefix`` starts with: the prefix, or the whole key; a staff key's
    starts ``bs_``; :class:`KeyPrefixAmbiguous` if several); how many were revoked. A
    staff key's sessions end with it. Revoking its last API key retires the front end's
    player-token secret: its players' tokens are refused everywhere within a second or
    two."""
    now = utcnow()
    with transaction(write=True):
        tenant = db.session.execute(select(Tenant).where(Tenant.name == name)).scalar()
        if tenant is None:
            return 0
        staff = _revoke(StaffKey, tenant, prefix, now) if prefix is None or \
            prefix.startswith(STAFF_KEY_PREFIX) else 0
        revoked = _revoke(ApiKey, tenant, prefix, now) if prefix is None or \
            not prefix.startswith(STAFF_KEY_PREFIX) else 0
        left = db.session.execute(select(ApiKey.pk).where(
            ApiKey.tenant_pk == tenant.pk, ApiKey.revoked_at.is_(None)).limit(1)).first()
        if revoked and left is None:
            tenant.player_secret = tenant.previous_player_secret = None
            tenant.previous_secret_until = None
        if revoked or staff:
            audit.record(tenant.pk, actor, "keys.revoked", "keys",
                         count=revoked, staff=staff, prefix=prefix,
                         secret_retired=bool(revoked) and left is None)
    cache.reset()
    return revoked + staff


def _revoke(table: type[ApiKey] | type[StaffKey], tenant: Tenant, prefix: str | None,
            now: datetime) -> int:
    which = [table.tenant_pk == tenant.pk, table.revoked_at.is_(None)]
    if prefix is not None:
        which.append(table.prefix == prefix[:KEY_PREFIX_CHARS])
        found = db.session.execute(select(func.count()).select_from(table)
                                   .where(*which)).scalar_one()
        if found > 1:
            raise KeyPrefixAmbiguous(f"{found} keys of {tenant.name} start "
                                     f"{prefix[:KEY_PREFIX_CHARS]}: give the whole key")
    result = db.session.execute(update(table).where(*which).values(revoked_at=now))
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


def player_secrets(tenant: int) -> tuple[str | None, str | None, datetime | None]:
    """The front end's secrets for its players' tokens as stored (caller's transaction):
    the current one (None before first use), the one before the last rotation and until
    when its tokens still count."""
    current, previous, until = db.session.execute(select(
        Tenant.player_secret, Tenant.previous_player_secret, Tenant.previous_secret_until
    ).where(Tenant.pk == tenant)).one()
    return current, previous, as_utc(until) if until else None


def make_player_secret(tenant: int) -> str:
    """The front end's current player secret, made now if it has none (its row locked:
    first uses racing on two processes agree)."""
    with transaction(write=True):
        row = db.session.execute(select(Tenant).where(Tenant.pk == tenant).with_for_update()
                                 .execution_options(populate_existing=True)).scalar_one()
        if row.player_secret is None:
            row.player_secret = secrets.token_hex(32)
        return row.player_secret


def rotate_player_secret(tenant: int, new: str, grace_seconds: int) -> None:
    """Make ``new`` the current player secret, the old one's tokens accepted
    ``grace_seconds`` more (caller's write transaction)."""
    row = db.session.get(Tenant, tenant, with_for_update=True)
    assert row is not None, f"tenant {tenant} exists"
    row.previous_player_secret = row.player_secret if grace_seconds else None
    row.previous_secret_until = utcnow() + timedelta(seconds=grace_seconds) \
        if grace_seconds else None
    row.player_secret = new


def queue_on(tenant: int) -> None:
    """Lock the front end's row FOR NO KEY UPDATE until the caller's write transaction
    ends: what its creates that count queue on (its inserts that name the row, with their
    FOR KEY SHARE, do not)."""
    db.session.execute(select(Tenant.pk).where(Tenant.pk == tenant)
                       .with_for_update(key_share=True))
