"""Who has a player stream open, across instances: each process's leases.

A process holding a player's first stream writes a lease (its holder id, an expiry) and
renews the leases of every player it holds in one statement per 1,000 players, every
third of ``BASRA_PRESENCE_LEASE_SECONDS``, as its streams wake. When the last stream
closes the lease is cut to ``BASRA_PRESENCE_GRACE_SECONDS``: a player who reconnects
within it never looked gone. A process that dies leaves leases that expire on their own.
What a player's friends are told (online, playing, offline) is the social domain's,
told of each first stream through :func:`wire`.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta

from sqlalchemy import delete, exists, select, update
from sqlalchemy.dialects import postgresql, sqlite

from ..settings import Settings
from ..storage import writes
from ..storage.base import utcnow
from ..storage.db import backend, db, transaction
from .enums import PresenceStatus
from .models import Presence, PresenceLease

CHUNK = 1_000
"""Leases renewed by one statement at most."""
log = logging.getLogger(__name__)
Key = tuple[int, str]
"""(tenant, player id)."""


class _Held:
    """This process's open player streams, by player, and when their leases were last
    renewed."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.streams: dict[Key, int] = {}
        self.renewed = time.monotonic()
        self.holder = ""
        self.pid = 0

    def holder_id(self) -> str:
        """This process's name in the leases (new in a forked child)."""
        if self.pid != os.getpid():
            self.pid = os.getpid()
            self.holder = f"{socket.gethostname()[:40]}-{self.pid}-{secrets.token_hex(4)}"
        return self.holder


_HELD = _Held()


def _nobody(_tenant: int, _player: str) -> None:
    """Until the composition root wires presence, a first stream tells nobody."""


_first_stream: Callable[[int, str], None] = _nobody


def wire(first_stream: Callable[[int, str], None]) -> None:
    """Who hears that a player's first stream on this process opened (the composition
    root's to say): it works out what the player's friends are told."""
    global _first_stream
    _first_stream = first_stream


def lease_until(now: datetime, settings: Settings) -> datetime:
    """When a lease written or renewed at ``now`` runs out."""
    return now + timedelta(seconds=settings.presence_lease_seconds)


def renew_every(settings: Settings) -> float:
    """Seconds between renewals of this process's leases: a third of their time."""
    return settings.presence_lease_seconds / 3


def _upsert(keys: Iterable[Key], until: datetime) -> None:
    """Leases of this process on ``keys`` until ``until`` (caller's write transaction)."""
    holder = _HELD.holder_id()
    rows = [{"tenant_pk": t, "player_id": p, "holder": holder, "expires_at": until}
            for t, p in keys]
    dialect = postgresql if backend() == "postgresql" else sqlite
    for start in range(0, len(rows), CHUNK):
        stmt = dialect.insert(PresenceLease).values(rows[start:start + CHUNK])
        db.session.execute(stmt.on_conflict_do_update(
            index_elements=["tenant_pk", "player_id", "holder"],
            set_={"expires_at": stmt.excluded.expires_at}))


def opened(tenant: int, player_id: str, settings: Settings) -> None:
    """A stream of the player opened on this process: its first writes a lease and tells
    the wired listener."""
    if not settings.presence_on:
        return
    key = (tenant, player_id)
    with _HELD.lock:
        count = _HELD.streams[key] = _HELD.streams.get(key, 0) + 1
    if count == 1:
        with transaction(write=True):
            _upsert([key], lease_until(utcnow(), settings))
        _first_stream(tenant, player_id)


def closed(tenant: int, player_id: str, settings: Settings) -> None:
    """A stream of the player closed: after the last, the lease ends after the grace.
    Never raises (a lease not cut expires on its own)."""
    if not settings.presence_on:
        return
    key = (tenant, player_id)
    with _HELD.lock:
        count = _HELD.streams.get(key, 0) - 1
        if count > 0:
            _HELD.streams[key] = count
            return
        _HELD.streams.pop(key, None)
    grace = settings.presence_grace_seconds
    try:
        with transaction(write=True):
            db.session.execute(update(PresenceLease).where(
                PresenceLease.tenant_pk == tenant, PresenceLease.player_id == player_id,
                PresenceLease.holder == _HELD.holder_id()
            ).values(expires_at=utcnow() + timedelta(seconds=grace)))
        with _HELD.lock:
            back = key in _HELD.streams
        if back:  # a stream reopened while the lease was cut: lease it again
            with transaction(write=True):
                _upsert([key], lease_until(utcnow(), settings))
    except Exception:
        log.warning("presence lease not cut; it expires on its own", exc_info=True)


def renew_if_due(settings: Settings) -> None:
    """Renew every lease this process holds, once a third of the lease time has passed
    since the last renewal (one caller does it; the others go on). Never raises."""
    every = renew_every(settings)
    with _HELD.lock:
        if time.monotonic() - _HELD.renewed < every:
            return
        _HELD.renewed = time.monotonic()
        keys = list(_HELD.streams)
    if not keys:
        return
    try:
        with transaction(write=True):
            _upsert(keys, lease_until(utcnow(), settings))
    except Exception:
        log.warning("presence leases not renewed; next time", exc_info=True)


def held() -> int:
    """How many players this process holds a stream of."""
    return len(_HELD.streams)


def live_lease(tenant: int, player_id: str, now: datetime) -> bool:
    """Whether a process holds a lease on the player still running at ``now``."""
    return db.session.execute(select(exists().where(
        PresenceLease.tenant_pk == tenant, PresenceLease.player_id == player_id,
        PresenceLease.expires_at > now))).scalar_one()


Seen = tuple[PresenceStatus, str | None]
"""A presence as friends were told it: its status and, when playing, the match's id."""


def _seen(status: str | None, match_id: str | None) -> Seen:
    return (PresenceStatus(status), match_id) if status else (PresenceStatus.OFFLINE, None)


def told(tenant: int, player_id: str) -> Seen:
    """What the player's friends were last told (caller's transaction)."""
    known = db.session.get(Presence, (tenant, player_id))
    return _seen(known.status, known.match_id) if known else _seen(None, None)


def told_of(tenant: int, player_ids: Iterable[str]) -> dict[str, Seen]:
    """What friends were last told of each of these players (caller's transaction)."""
    wanted = set(player_ids)
    rows = db.session.execute(select(Presence.player_id, Presence.status, Presence.match_id)
                              .where(Presence.tenant_pk == tenant,
                                     Presence.player_id.in_(wanted))).all() if wanted else []
    found = {player_id: _seen(status, match_id) for player_id, status, match_id in rows}
    return {player_id: found.get(player_id, _seen(None, None)) for player_id in wanted}


def lock_told(tenant: int, player_id: str) -> Seen:
    """What friends were last told of the player, its row locked (made ``offline`` when
    missing) until the caller's write transaction ends: concurrent callers queue."""
    dialect = postgresql if backend() == "postgresql" else sqlite
    db.session.execute(dialect.insert(Presence).values(
        tenant_pk=tenant, player_id=player_id, status=PresenceStatus.OFFLINE,
        changed_at=utcnow()).on_conflict_do_nothing())
    known = db.session.execute(select(Presence).where(
        Presence.tenant_pk == tenant, Presence.player_id == player_id)
        .with_for_update()).scalar_one()
    return _seen(known.status, known.match_id)


def keep(tenant: int, player_id: str, seen: Seen) -> writes.Rows:
    """The row that keeps ``seen`` as what friends were told."""
    status, match_id = seen
    return writes.Rows(Presence.__table__, ({
        "tenant_pk": tenant, "player_id": player_id, "status": status, "match_id": match_id,
        "changed_at": utcnow()},), upsert=True)


def gone_online(limit: int) -> list[tuple[int, str, Seen]]:
    """Players told ``online`` whose every lease ran out, at most ``limit``, their rows
    locked until the caller's write transaction ends (rows others hold skipped)."""
    live = exists().where(PresenceLease.tenant_pk == Presence.tenant_pk,
                          PresenceLease.player_id == Presence.player_id,
                          PresenceLease.expires_at > utcnow())
    gone = db.session.execute(select(Presence).where(
        Presence.status == PresenceStatus.ONLINE, ~live).limit(limit)
        .with_for_update(skip_locked=True)).scalars().all()
    return [(known.tenant_pk, known.player_id, _seen(known.status, known.match_id))
            for known in gone]


def purge(before: datetime) -> int:
    """Remove leases that expired before ``before``; how many."""
    with transaction(write=True):
        return db.session.execute(delete(PresenceLease).where(
            PresenceLease.expires_at < before)).rowcount or 0  # type: ignore[attr-defined]


def forget(tenant: int, player_id: str) -> None:
    """Remove the player's leases and presence (caller's write transaction)."""
    for table in (PresenceLease, Presence):
        db.session.execute(delete(table).where(table.tenant_pk == tenant,
                                               table.player_id == player_id))


def reset() -> None:
    """Forget this process's streams (tests build apps on emptied databases)."""
    with _HELD.lock:
        _HELD.streams.clear()
        _HELD.renewed = time.monotonic()
