"""How many requests may park at once in one process (long polls and event streams),
in all and per client, so parked requests never take the slots that moves and reads
need, and one client cannot take them all.

gunicorn's gevent worker serves ``worker_connections`` (6,000) requests at once;
at most ``BASRA_MAX_WAITERS`` (5,000) of them may be parked, and at most
``BASRA_MAX_WAITERS_PER_CLIENT`` (500) from one client (its front end and its
address). One more is refused at once (``429 too_many_waiters``, ``Retry-After``)
instead of waiting for a slot. One process alone can hold the 5,000 an instance is
meant to: the workers do not share the connections evenly (whichever is idle
accepts), and with 3,000 a process, one worker of two refused 157-717 of the
bench's 5,000 waiters in six runs of about fifty.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from ..settings import Settings
from .errors import TooManyWaiters

_lock = threading.Lock()
_parked: dict[str, int] = {}
_total = [0]


@contextmanager
def parked(client: str, settings: Settings) -> Iterator[None]:
    """Hold a parking place for ``client`` while the block runs; TooManyWaiters when the
    process or the client has none left (``settings``: how many each may hold)."""
    with _lock:
        mine = _parked.get(client, 0)
        if _total[0] >= settings.max_waiters:
            raise TooManyWaiters("this server holds as many waiting requests as it may; "
                                 "retry shortly")
        if mine >= settings.max_waiters_per_client:
            raise TooManyWaiters(f"at most {mine} waiting requests per client; close some "
                                 "or retry shortly")
        _parked[client] = mine + 1
        _total[0] += 1
    try:
        yield
    finally:
        with _lock:
            _total[0] -= 1
            left = _parked[client] - 1
            if left:
                _parked[client] = left
            else:
                del _parked[client]

