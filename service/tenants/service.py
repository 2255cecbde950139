"""Tenants (front ends) and their API keys: minting, hashing, checking, revoking.

A request's key is looked up once per ``BASRA_KEY_CACHE_SECONDS`` per process,
so checking it costs no query on the hot path; a revoked key stops working
within that time everywhere.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from dataclasses import dataclass

from sqlalchemy import select, update

from ..storage.db import db, transaction
from ..storage.models import LOCAL_TENANT, ApiKey, Tenant, utcnow
from .errors import (
    InvalidApiKey,
    MissingApiKey,
    OriginNotAllowed,
    TenantNameTaken,
    TenantNotFound,
)

KEY_PREFIX = "bk_"


@dataclass(frozen=True)
class Caller:
    """Who a request speaks for: a tenant, and the browser origins its key may be used
    from (none: a server key, which may vouch for the front end's players)."""

    tenant: int
    name: str
    origins: tuple[str, ...] = ()

    @property
    def server(self) -> bool:
        """A key not limited to browser origins (and the keyless local front end of a
        development server): it may vouch for players and mint their tokens."""
        return not self.origins


LOCAL = Caller(LOCAL_TENANT, "local")


def hash_key(key: str) -> str:
    """SHA-256 of an API key: only this is stored."""
    return hashlib.sha256(key.encode()).hexdigest()


_cache: dict[str, tuple[float, Caller | None]] = {}
_cache_lock = threading.Lock()
_lookup_lock = threading.Lock()


def caller_for(key: str | None, *, required: bool, origin: str | None,
               cache_seconds: float) -> Caller:
    """The tenant a request's X-API-Key belongs to; without a key, the local tenant
    unless keys are ``required``. A browser ``origin`` must be one the tenant allows."""
    if not key:
        if required:
            raise MissingApiKey("send your front end's API key as 'X-API-Key: <key>'")
        return LOCAL
    digest = hash_key(key)
    fresh, caller = _cached(digest, cache_seconds)
    if not fresh:
        # one lookup at a time: the requests that find the entry expired together (a
        # move wakes hundreds of long polls of one front end) wait for it, not query
        with _lookup_lock:
            fresh, caller = _cached(digest, cache_seconds)
            if not fresh:
                caller = _lookup(digest)
                with _cache_lock:
                    if len(_cache) > 10_000:
                        _cache.clear()
                    _cache[digest] = (time.monotonic(), caller)
    if caller is None:
        raise InvalidApiKey("this API key is unknown or revoked")
    if origin and caller.origins and origin not in caller.origins:
        raise OriginNotAllowed(f"the origin {origin!r} may not use this API key")
    return caller


def _cached(digest: str, cache_seconds: float) -> tuple[bool, Caller | None]:
    """(whether the cache knows the key digest lately, its caller: None if unknown)."""
    with _cache_lock:
        cached = _cache.get(digest)
    if cached is not None and time.monotonic() - cached[0] < cache_seconds:
        return True, cached[1]
    return False, None


def _lookup(digest: str) -> Caller | None:
    with transaction(one_statement=True):
        row = db.session.execute(
            select(Tenant.pk, Tenant.name, ApiKey.origins)
            .join(ApiKey, ApiKey.tenant_pk == Tenant.pk)
            .where(ApiKey.key_hash == digest, ApiKey.revoked_at.is_(None))
        ).first()
    return None if row is None else Caller(row[0], row[1], tuple(row[2] or ()))


# --- the `basra keys` command -------------------------------------------------------


def create_key(name: str, origins: list[str]) -> str:
    """A new key for tenant ``name`` (made if new): a browser key limited to ``origins``,
    or without them a server key."""
    if name == LOCAL.name:
        raise TenantNameTaken("'local' is the built-in tenant of requests without a key")
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    with transaction(write=True):
        tenant = db.session.execute(select(Tenant).where(Tenant.name == name)).scalar()
        if tenant is None:
            tenant = Tenant(name=name, origins=[], created_at=utcnow())
            db.session.add(tenant)
            db.session.flush()
        db.session.add(ApiKey(tenant_pk=tenant.pk, key_hash=hash_key(key), prefix=key[:10],
                              origins=origins, created_at=utcnow()))
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


def list_keys() -> list[TenantKeys]:
    """Every tenant but the local one, with its keys."""
    with transaction():
        tenants = db.session.execute(
            select(Tenant).where(Tenant.pk != LOCAL_TENANT).order_by(Tenant.name)
        ).scalars().all()
        keys = db.session.execute(select(ApiKey).order_by(ApiKey.pk)).scalars().all()
    out = []
    for t in tenants:
        mine = [k for k in keys if k.tenant_pk == t.pk]
        out.append(TenantKeys(
            t.name, tuple((k.prefix, tuple(k.origins or ())) for k in mine
                          if k.revoked_at is None),
            sum(1 for k in mine if k.revoked_at is not None),
        ))
    return out


def revoke_keys(name: str) -> int:
    """Revoke every key of tenant ``name``; how many were revoked."""
    with transaction(write=True):
        tenant = db.session.execute(select(Tenant.pk).where(Tenant.name == name)).scalar()
        if tenant is None:
            return 0
        result = db.session.execute(
            update(ApiKey).where(ApiKey.tenant_pk == tenant, ApiKey.revoked_at.is_(None))
            .values(revoked_at=utcnow())
        )
    with _cache_lock:
        _cache.clear()
    return int(result.rowcount or 0)  # type: ignore[attr-defined]
