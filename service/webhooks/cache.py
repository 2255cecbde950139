"""What this process keeps of the front ends' webhooks: which events each enabled
webhook asked for, read at most once a :data:`SUBSCRIPTIONS_SECONDS` per front end (a
move need not pay a query for them), and the worker's list of enabled endpoints, read as
often (a claim need not pay for it). :func:`reset` forgets both (``create_app`` calls
it).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

SUBSCRIPTIONS_SECONDS = 1.0
"""How long a process trusts what it read of a front end's webhooks: a webhook made (or
deleted) through another process applies to changes from at most this much later."""
SIZE = 10_000
"""Front ends kept; past it, all are read again."""

Subscriptions = tuple[tuple[int, tuple[str, ...]], ...]
"""(webhook pk, the events it asked for) of a front end's enabled webhooks."""


@dataclass(frozen=True)
class Endpoint:
    """An enabled webhook as its deliveries need it."""

    tenant: int
    url: str
    secret: str


_lock = threading.Lock()
_subscriptions: dict[int, tuple[float, Subscriptions]] = {}
_endpoints: list[tuple[float, dict[int, Endpoint]]] = []


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


def endpoints() -> dict[int, Endpoint] | None:
    """Every enabled webhook by pk, as read lately (None: read them)."""
    with _lock:
        kept = _endpoints[0] if _endpoints else None
    if kept is None or time.monotonic() - kept[0] >= SUBSCRIPTIONS_SECONDS:
        return None
    return kept[1]


def keep_endpoints(found: dict[int, Endpoint]) -> None:
    """Keep the enabled webhooks as just read."""
    with _lock:
        _endpoints[:] = [(time.monotonic(), found)]


def forget(tenant: int | None = None) -> None:
    """This process changed the webhooks of ``tenant`` (None: of some front end): read
    them again next time."""
    with _lock:
        _endpoints.clear()
        if tenant is None:
            _subscriptions.clear()
        else:
            _subscriptions.pop(tenant, None)


def reset() -> None:
    """Forget every front end's subscriptions."""
    forget()
