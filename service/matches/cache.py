"""What this process keeps of matches, all immutable values, each map bounded (oldest
forgotten first); :func:`reset` forgets it all (``create_app`` calls it).

* the matches it wrote last, with their state: the next move on one (a keep-alive
  client comes back to the same process) needs no read; its conditional save finds out
  if another process moved meanwhile;
* views it read lately: a view never changes once made (every change is a new version),
  so the waiters one move wakes read the database once;
* each started match's tenant and seat keys, which never change once it has started:
  a poll finds its seat with no query;
* stretches of log entries its streams read lately: the streams one move wakes read
  them once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

from ..engine import State
from .results import LoggedMove, MatchView
from .rows import Lag, MatchRow, SeatKey

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Kept(Generic[K, V]):
    """A bounded map, safe across threads and greenlets."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        with self._lock:
            return self._items.get(key)

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            if len(self._items) > self.size:
                self._items.popitem(last=False)

    def drop(self, key: K) -> None:
        with self._lock:
            self._items.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


written: Kept[tuple[int, str], tuple[MatchRow, State]] = Kept(2048)
"""(tenant, match id) -> the match as this process last saved it."""
views: Kept[tuple[int, str, int, int | None, bool], MatchView] = Kept(4096)
"""(tenant, match id, version, seat, the server's) -> that seat's view of that version
(seat None: a spectator's, or the front end's server's)."""
seats: Kept[str, tuple[int, tuple[SeatKey, ...], Lag]] = Kept(100_000)
"""match id -> (tenant, seat keys, (sealed, spectator delay)) of a started match (sealed
as it was read: a round that ended since costs a spectator's poll a query)."""
moves: Kept[tuple[int, str, int, int], tuple[LoggedMove, ...]] = Kept(4096)
"""(tenant, match id, after, last) -> its log entries after ``after`` up to ``last``
(the log is append-only: they never change)."""


def reset() -> None:
    """Forget every match."""
    for kept in (written, views, seats, moves):
        kept.clear()
