"""What this process keeps of the front ends' webhooks: which events each enabled
webhook asked for, read at most once a :data:`SUBSCRIPTIONS_SECONDS` per front end (a
move need not pay a query for them). :func:`reset` forgets it (``create_app`` calls it).
"""

from __future__ import annotations

import threading
import time

SUBSCRIPTIONS_SECONDS = 1.0
"""How long a process trusts what it read of a front end's webhooks: a webhook made (or
deleted) through another process applies to changes from at most this much later."""
SIZE = 10_000
"""Front ends kept; past it, all are read again."""

Subscriptions = tuple[tuple[int, tuple[str, ...]], ...]
"""(webhook pk, the events it asked for) of a front end's enabled webhooks."""

_lock = threading.Lock()
_subscriptions: dict[int, tuple[float, Subscriptions]] = {}


def subscriptions(tenant: int) -> Subscriptions | None:
    """The front end's subscriptions as read lately (None: read them)."""
    with _lock:
        kept = _subscriptions.get(tenant)
    if kept is None or time.monotonic() - kept[0] >= SUBSCRIPTIONS_SECONDS:
        return None
    return kept[1]


def keep(tenant: int, found: Subscriptions) -> None:
    """Keep a front end's subscriptions as just read."""
    with _lock:
        if len(_subscriptions) >= SIZE:
            _subscriptions.clear()
        _subscriptions[tenant] = (time.monotonic(), found)


def forget(tenant: int | None = None) -> None:
    """This process changed the webhooks of ``tenant`` (None: of some front end): read
    them again next time."""
    with _lock:
        if tenant is None:
            _subscriptions.clear()
        else:
            _subscriptions.pop(tenant, None)


def reset() -> None:
    """Forget every front end's subscriptions."""
    forget()
