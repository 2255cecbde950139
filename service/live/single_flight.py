"""One read for a crowd: the requests of this process that need the same thing from the
database at the same moment (the spectators a move wakes together, or that connect to a
match at once) wait for the first one's read instead of each making their own."""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterator
from contextlib import contextmanager

PATIENCE = 5.0
"""The longest the others wait for the first read, seconds; then they read themselves."""


class SingleFlight:
    """The keys being read right now, each by its first asker."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reading: dict[Hashable, threading.Event] = {}

    @contextmanager
    def first(self, key: Hashable) -> Iterator[bool]:
        """True for the first to ask for ``key``: it reads inside the block, and the
        others go on when the block ends, however it ends. False for the others, once
        that read is over (or :data:`PATIENCE` has passed): they look where the first
        left what it read, and read themselves if it is not there."""
        with self._lock:
            reading = self._reading.get(key)
            mine = reading is None
            if reading is None:
                reading = self._reading[key] = threading.Event()
        if not mine:
            reading.wait(PATIENCE)
            yield False
            return
        try:
            yield True
        finally:
            with self._lock:
                del self._reading[key]
            reading.set()
