"""A delivery thread's connections to the endpoints, each pinned to a checked address.

Each try connects to the address the URL's host resolved to and was checked against (so
DNS cannot point it elsewhere between check and call), follows no redirects, and keeps
the connection for the thread's next try there (up to ``KEEP_SECONDS``, then the host is
resolved and checked again).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from urllib3.connection import HTTPConnection, HTTPSConnection

from . import service as webhooks

KEEP_SECONDS = 30.0
"""How long a delivery thread keeps a connection to an endpoint open for its next
tries; after it the URL's host is resolved and checked again on a new one."""


@dataclass
class Open:
    """A delivery thread's open connection to one endpoint."""

    conn: Any
    host: str
    """The Host header: the URL's host (and port if not the scheme's)."""
    since: float


def connect(url: str, timeout: float, allow_private: bool) -> Open:
    """A new connection to the address the URL's host resolved to and was checked
    against (so DNS cannot point it elsewhere between check and call); no redirects are
    followed."""
    scheme, host, port, addresses = webhooks.resolve(url, allow_private)
    conn: Any
    if scheme == "https":
        conn = HTTPSConnection(addresses[0], port, timeout=timeout, server_hostname=host,
                               assert_hostname=host)
    else:
        conn = HTTPConnection(addresses[0], port, timeout=timeout)
    return Open(conn, host if port in (80, 443) else f"{host}:{port}", time.monotonic())


_local = threading.local()


def kept_here() -> dict[tuple[str, str], Open]:
    """This delivery thread's open connections, by the URL's scheme and host."""
    kept: dict[tuple[str, str], Open] | None = getattr(_local, "kept", None)
    if kept is None:
        kept = _local.kept = {}
    return kept


def keep(kept: dict[tuple[str, str], Open], place: tuple[str, str], known: Open) -> None:
    """Keep the connection for the thread's next try there, closing the one used least
    lately past :data:`KEPT_PER_THREAD`."""
    kept[place] = known
    if len(kept) > KEPT_PER_THREAD:
        kept.pop(next(iter(kept))).conn.close()


KEPT_PER_THREAD = 4
"""Connections a delivery thread keeps open (to as many endpoints)."""

