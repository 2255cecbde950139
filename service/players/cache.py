"""What this process keeps of the players domain: each front end's secrets for signing
its players' tokens, and the players whose access changed lately (signed out
everywhere, suspended), each read again at most once a second. :func:`reset` forgets
both (``create_app`` calls it)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

_lock = threading.Lock()


@dataclass(frozen=True)
class Secrets:
    """A front end's signing secrets: the current one, and during a rotation's grace
    the one before it with the moment (epoch seconds) it stops being accepted."""

    current: str
    previous: str | None = None
    previous_until: float = 0.0


_secrets: dict[int, tuple[float, Secrets]] = {}


def secrets(tenant: int, max_age: float) -> Secrets | None:
    """The front end's secrets, if this process read them within ``max_age`` seconds."""
    with _lock:
        kept = _secrets.get(tenant)
    if kept is None or time.monotonic() - kept[0] >= max_age:
        return None
    return kept[1]


def keep_secrets(tenant: int, value: Secrets) -> None:
    """Keep a front end's secrets as just read from the database."""
    with _lock:
        _secrets[tenant] = (time.monotonic(), value)


def forget_secrets() -> None:
    """Read the secrets again at their next use (this process changed one)."""
    with _lock:
        _secrets.clear()


@dataclass(frozen=True)
class Access:
    """What limits a player's tokens: a sign-out (epoch seconds: tokens issued before it
    are refused) and a suspension (its end, ``inf`` for good)."""

    signed_out: float | None = None
    suspended_until: float | None = None


def reset() -> None:
    """Read every secret, and every access change, from the database again."""
    with _lock:
        _secrets.clear()
        _access.clear()
        _access_read.clear()


_access: dict[tuple[int, str], Access] = {}
"""Access changes read lately: sign-outs of the last day (older tokens have expired
anyway) and suspensions until they end."""
_access_read: list[float] = []
"""When this process last read them (monotonic), and up to when (epoch seconds)."""


def access(max_age: float) -> dict[tuple[int, str], Access] | None:
    """Every access change read, unless the last read is older than ``max_age`` seconds
    (None: read what is new)."""
    with _lock:
        if not _access_read or time.monotonic() - _access_read[0] >= max_age:
            return None
        return _access


def access_read_since() -> float | None:
    """Up to when (epoch seconds) the last read went; None before the first."""
    with _lock:
        return _access_read[1] if _access_read else None


def keep_access(found: dict[tuple[int, str], Access], upto: float,
                sign_outs_after: float) -> dict[tuple[int, str], Access]:
    """Add the access changes just read (up to ``upto``), forget sign-outs before
    ``sign_outs_after`` and suspensions over; every change kept."""
    now = time.time()
    with _lock:
        _access.update(found)
        for place, kept in list(_access.items()):
            signed_out = kept.signed_out if kept.signed_out and \
                kept.signed_out >= sign_outs_after else None
            suspended = kept.suspended_until if kept.suspended_until and \
                kept.suspended_until > now else None
            if signed_out is None and suspended is None:
                del _access[place]
            elif (signed_out, suspended) != (kept.signed_out, kept.suspended_until):
                _access[place] = Access(signed_out, suspended)
        _access_read[:] = [time.monotonic(), upto]
        return _access


def forget_access() -> None:
    """Read the access changes again at the next check (this process changed one)."""
    with _lock:
        if _access_read:
            _access_read[0] = float("-inf")
