"""One read for a crowd: the requests of this process that need the same thing from the
database at the same moment (the spectators a move wakes together, or that connect to a
match at once) share the first one's read (Go's singleflight)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, TypeVar, cast

PATIENCE = 5.0
"""The longest the others wait for the first read, seconds; then they read themselves."""
T = TypeVar("T")


class SingleFlight:
    """The keys being read right now, each by its first asker."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reading: dict[Hashable, tuple[threading.Event, list[Any]]] = {}

    def do(self, key: Hashable, read: Callable[[], T]) -> T:
        """``read()``'s result for ``key``: the first to ask runs it; those that ask while
        it runs wait for it and get the same result. If it raised, or took longer than
        :data:`PATIENCE`, each of them reads for itself."""
        with self._lock:
            reading = self._reading.get(key)
            if reading is None:
                reading = self._reading[key] = (threading.Event(), [])
                mine = True
            else:
                mine = False
        done, result = reading
        if not mine:
            if done.wait(PATIENCE) and result:
                return cast(T, result[0])
            return read()
        try:
            value = read()
            result.append(value)
            return value
        finally:
            with self._lock:
                del self._reading[key]
            done.set()
