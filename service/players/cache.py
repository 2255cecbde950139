"""What this process keeps of the players domain: each front end's secret for signing
its players' tokens, read once. :func:`reset` forgets it (``create_app`` calls it)."""

from __future__ import annotations

import threading

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
    """Read every secret from the database again."""
    with _lock:
        _secrets.clear()
