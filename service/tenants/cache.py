"""What this process keeps of the front ends' API keys (:data:`keys`); :func:`reset`
forgets it (``create_app`` calls it)."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from .models import LOCAL_TENANT


@dataclass(frozen=True)
class Caller:
    """Who a request speaks for: a tenant, and the browser origins its key may be used
    from (none: a server key, which may vouch for the front end's players)."""

    tenant: int
    name: str
    origins: tuple[str, ...] = ()
    by_token: bool = False
    """Known by a player token alone (no key sent): a browser key's rights."""
    key: str | None = None
    """The key's first characters (as ``basra keys list`` shows them), for the audit
    log; None without a key."""

    @property
    def server(self) -> bool:
        """A key not limited to browser origins (and the keyless local front end of a
        development server): it may vouch for players and mint their tokens."""
        return not self.origins and not self.by_token


LOCAL = Caller(LOCAL_TENANT, "local")


class KeyCache:
    """What this process learnt of API keys lately, by digest: callers of valid keys, and
    apart from them (so a flood of made-up keys cannot push a valid one out) the keys
    found unknown or revoked. Each side is bounded, oldest forgotten first."""

    def __init__(self, size: int = 10_000) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._valid: OrderedDict[str, tuple[float, Caller]] = OrderedDict()
        self._unknown: OrderedDict[str, float] = OrderedDict()

    def get(self, digest: str, cache_seconds: float) -> tuple[bool, Caller | None]:
        """(whether the key's digest is known lately, its caller: None if unknown)."""
        now = time.monotonic()
        with self._lock:
            valid = self._valid.get(digest)
            if valid is not None and now - valid[0] < cache_seconds:
                return True, valid[1]
            unknown = self._unknown.get(digest)
            if unknown is not None and now - unknown < cache_seconds:
                return True, None
        return False, None

    def put(self, digest: str, caller: Caller | None) -> None:
        """Keep what a look-up found of a digest (None: unknown or revoked)."""
        now = time.monotonic()
        with self._lock:
            self._valid.pop(digest, None)
            self._unknown.pop(digest, None)
            if caller is None:
                self._unknown[digest] = now
                side: OrderedDict[str, Any] = self._unknown
            else:
                self._valid[digest] = (now, caller)
                side = self._valid
            if len(side) > self.size:
                side.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._valid.clear()
            self._unknown.clear()


keys = KeyCache()
names = KeyCache()
"""Front ends by name, for requests known by a player token alone (its audience)."""
numbers = KeyCache()
"""Front ends by number, for requests known by a seat token alone (its match's)."""


def reset() -> None:
    """Forget every key and name learnt (a key revoked through this process is refused
    at once)."""
    keys.clear()
    names.clear()
    numbers.clear()
