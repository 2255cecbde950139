"""A front end's staff: keys with a role (``basra keys create NAME --role ROLE``),
exchanged at sign-in for a short console session, so no server key sits in a browser.

A staff key is ``bs_`` and the same 46 characters as an API key (its own checksum); it
is no API key: ``X-API-Key`` refuses it. A session is a random token in an HttpOnly,
SameSite=Strict cookie, with a CSRF token the console sends back in a header on every
change; both are stored only as SHA-256, and each request reads its session (one
indexed query: staff traffic is small, and a revoked key or a sign-out then holds at
once, everywhere).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select, update

from ..storage.base import as_utc, utcnow
from ..storage.db import db, transaction
from . import audit
from .enums import StaffRole
from .errors import InvalidStaffKey, TenantNotFound
from .models import StaffKey, StaffSession, Tenant
from .service import KEY_PREFIX_CHARS, STAFF_KEY_PREFIX, checksum_holds, hash_key, new_key

SESSION_COOKIE = "basra_staff"
CSRF_HEADER = "X-CSRF-Token"


@dataclass(frozen=True)
class Staff:
    """A signed-in member of a front end's staff, as a request knows them."""

    tenant: int
    front_end: str
    name: str
    role: StaffRole
    session: int
    csrf_hash: str
    expires_at: datetime

    @property
    def actor(self) -> str:
        """How the audit log names what they do."""
        return f"staff:{self.name}"

    def may(self, needed: StaffRole) -> bool:
        return self.role.rank >= needed.rank

    def csrf_holds(self, token: str | None) -> bool:
        """Whether a request's CSRF token is this session's."""
        return token is not None and hmac.compare_digest(hash_key(token), self.csrf_hash)


@dataclass(frozen=True)
class SignedIn:
    """A new session: its cookie's token and its CSRF token (shown only now)."""

    token: str
    csrf_token: str
    staff: Staff


def csrf_of(token: str) -> str:
    """A session's CSRF token, derived from its cookie's token: the console asks for it
    again after a reload (GET /v1/staff/session), and no other site can read either."""
    return hmac.new(token.encode(), b"basra csrf", hashlib.sha256).hexdigest()


def create_staff_key(front_end: str, name: str, role: StaffRole,
                     actor: str = audit.COMMAND_LINE) -> str:
    """A new staff key of ``front_end`` (which must exist) for ``name`` (printed once)."""
    key = new_key(STAFF_KEY_PREFIX)
    with transaction(write=True):
        tenant = db.session.scalar(select(Tenant.pk).where(Tenant.name == front_end))
        if tenant is None:
            raise TenantNotFound(f"no front end {front_end!r}: make its first API key first")
        db.session.add(StaffKey(tenant_pk=tenant, name=name, role=role, key_hash=hash_key(key),
                                prefix=key[:KEY_PREFIX_CHARS], created_at=utcnow()))
        audit.record(tenant, actor, "staff_key.created", "keys", name=name,
                     role=role.value, prefix=key[:KEY_PREFIX_CHARS])
    return key


def sign_in(key: str, minutes: int) -> SignedIn:
    """Exchange a staff key for a session of ``minutes``; :class:`InvalidStaffKey` for
    one that is unknown or revoked."""
    if not checksum_holds(key, STAFF_KEY_PREFIX):
        raise InvalidStaffKey("this is not a staff key (they start 'bs_'; an API key signs "
                              "nobody in)", malformed=True)
    token = secrets.token_urlsafe(32)
    csrf = csrf_of(token)
    now = utcnow()
    with transaction(write=True):
        found = db.session.execute(
            select(StaffKey.pk, StaffKey.tenant_pk, Tenant.name, StaffKey.name, StaffKey.role)
            .join(Tenant, Tenant.pk == StaffKey.tenant_pk)
            .where(StaffKey.key_hash == hash_key(key), StaffKey.revoked_at.is_(None))).first()
        if found is None:
            raise InvalidStaffKey("this staff key is unknown or revoked")
        key_pk, tenant, front_end, name, role = found
        session = StaffSession(staff_key_pk=key_pk, token_hash=hash_key(token),
                               csrf_hash=hash_key(csrf), created_at=now,
                               expires_at=now + timedelta(minutes=minutes))
        db.session.add(session)
        db.session.flush()
        audit.record(tenant, f"staff:{name}", "staff.signed_in", f"staff:{name}",
                     role=role, minutes=minutes)
        staff = Staff(tenant, front_end, name, StaffRole(role), session.pk, hash_key(csrf),
                      session.expires_at)
    return SignedIn(token, csrf, staff)


def staff_for(token: str) -> Staff | None:
    """The staff member a session cookie's token belongs to; None once it expired, was
    signed out, or its key was revoked."""
    with transaction(one_statement=True):
        found = db.session.execute(
            select(StaffSession.pk, StaffSession.csrf_hash, StaffSession.expires_at,
                   StaffKey.tenant_pk, Tenant.name, StaffKey.name, StaffKey.role)
            .join(StaffKey, StaffKey.pk == StaffSession.staff_key_pk)
            .join(Tenant, Tenant.pk == StaffKey.tenant_pk)
            .where(StaffSession.token_hash == hash_key(token), StaffSession.ended_at.is_(None),
                   StaffSession.expires_at > utcnow(), StaffKey.revoked_at.is_(None))).first()
    if found is None:
        return None
    session, csrf_hash, expires_at, tenant, front_end, name, role = found
    return Staff(tenant, front_end, name, StaffRole(role), session, csrf_hash,
                 as_utc(expires_at))


def sign_out(staff: Staff) -> None:
    """End the session (its cookie is refused from now on)."""
    with transaction(write=True):
        db.session.execute(update(StaffSession).where(StaffSession.pk == staff.session)
                           .values(ended_at=utcnow()))
        audit.record(staff.tenant, staff.actor, "staff.signed_out", staff.actor)
