"""What this process keeps of the players domain: each front end's secret for signing
its players' tokens, read once, and the players signed out everywhere lately, read at
most once a second. :func:`reset` forgets both (``create_app`` calls it)."""

from __future__ import annotations

import threading
import time

_lock = threading.Lock()
_secrets: dict[int, str] = {}


def secret(tenant: int) -> str | None:
    """The front end's signing secret, if this process read it already."""
    with _lock:
        return _secrets.get(tenant)


def keep_secret(tenant: int, value: str) -> None:
    """Keep a front end's signing secret as read from the database."""
    with _lock:
        _secrets[tenant] = value


def reset() -> None:
    """Read every secret, and every sign-out, from the database again."""
    with _lock:
        _secrets.clear()
        _sign_outs.clear()
        _sign_outs_read.clear()


_sign_outs: dict[tuple[int, str], float] = {}
"""Sign-outs read lately (those of the last day: older tokens have expired anyway)."""
_sign_outs_read: list[float] = []
"""When this process last read them (monotonic), and up to when (epoch seconds)."""


def sign_outs(max_age: float) -> dict[tuple[int, str], float] | None:
    """Every sign-out read, unless the last read is older than ``max_age`` seconds
    (None: read what is new)."""
    with _lock:
        if not _sign_outs_read or time.monotonic() - _sign_outs_read[0] >= max_age:
            return None
        return _sign_outs


def read_sign_outs_since() -> float | None:
    """Up to when (epoch seconds) the last read went; None before the first."""
    with _lock:
        return _sign_outs_read[1] if _sign_outs_read else None


def keep_sign_outs(found: dict[tuple[int, str], float], upto: float,
                   forget_before: float) -> dict[tuple[int, str], float]:
    """Add the sign-outs just read (up to ``upto``), forget those before
    ``forget_before``; every sign-out kept."""
    with _lock:
        for place, at in list(_sign_outs.items()):
            if at < forget_before:
                del _sign_outs[place]
        _sign_outs.update(found)
        _sign_outs_read[:] = [time.monotonic(), upto]
        return _sign_outs


def forget_sign_outs() -> None:
    """Read the sign-outs again at the next check (this process signed a player out)."""
    with _lock:
        if _sign_outs_read:
            _sign_outs_read[0] = float("-inf")
