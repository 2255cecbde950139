"""The cyclic garbage collector's schedule in a web worker (``gunicorn_conf.py`` starts it).

A worker freezes what the app loaded (``gc.freeze``), raises the young generation's
threshold so request objects die young, and collects the two young generations itself
every :data:`YOUNG_EVERY` seconds: the young count is allocations less frees of any
age, so with thousands of long polls parked it stays under the threshold while the
young generation grows, and its collection, when it came, stopped a worker for
50-180 ms.

Each ``gc.collect(1)`` also sets the young count back to zero, so the automatic
collections, the only ones that ever look at the oldest generation, never run: an
object cycle that lives through a young collection (a long poll's or a stream's
request, anything alive for a tenth of a second) reached the oldest generation and
was never freed (4,339 objects after 10 minutes at 120 players; 12,590 in one minute of
overload; docs/performance.md). So every :data:`OLD_EVERY` seconds the worker also applies
CPython's own rule for the oldest generation: collect it once it holds more than
:data:`OLD_GROWTH` more objects than the last full collection left there, so a full
collection scans what is kept at most once for each quarter more arriving.

Every :data:`TRIM_EVERY` seconds it also hands the C allocator's free pages back to the
system (glibc's ``malloc_trim``): a burst (an instance's players moved here while it
restarts: each parked stream's greenlet keeps tens of kilobytes) leaves the heap's free
blocks pinned between a few live ones, so the worker's RSS stayed at the burst's height
for good (the soak's survivor grew 10 MB at each restart of the other, and never shrank).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import time

GC_THRESHOLDS = (50_000, 20, 10)
"""The collector's thresholds: request objects die young (Python's default promotes the
objects of requests in flight, and parked long polls then make full collections)."""
YOUNG_EVERY = 0.1
"""Seconds between collections of the young generations."""
OLD_EVERY = 5.0
"""Seconds between looks at the oldest generation's size."""
OLD_GROWTH = 0.25
"""A full collection once the oldest generation has grown by this share of what the last
one kept (CPython's ``long_lived_pending > long_lived_total / 4``)."""
OLD_FLOOR = 10_000
"""...and holds more than this many objects: a small one waits (a worker at rest)."""
TRIM_EVERY = 60.0
"""Seconds between hand-backs of the allocator's free pages."""


def _malloc_trim() -> ctypes._CFuncPtr | None:  # type: ignore[name-defined]
    """glibc's ``malloc_trim`` (None elsewhere: musl, macOS)."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_TRIM = _malloc_trim()


def trim() -> bool:
    """Hand the C allocator's free pages back to the system; whether it could."""
    if _TRIM is None:
        return False
    _TRIM(0)
    return True


class Collector:
    """Collects the young generations on each :meth:`tick`, and the oldest on every
    ``old_every``-th tick when it has grown by :data:`OLD_GROWTH` since it was last
    collected; hands free pages back on every ``trim_every``-th."""

    def __init__(self, old_every: int = round(OLD_EVERY / YOUNG_EVERY),
                 trim_every: int = round(TRIM_EVERY / YOUNG_EVERY)) -> None:
        self.old_every = old_every
        self.trim_every = trim_every
        self.ticks = 0
        self.kept = 0
        """Objects in the oldest generation after its last collection."""
        self.full = 0
        """Full collections made."""

    def tick(self) -> None:
        self.ticks += 1
        if self.ticks % self.old_every == 0 and self._old_grown():
            gc.collect(2)
            self.kept = len(gc.get_objects(2))
            self.full += 1
        else:
            gc.collect(1)
        if self.ticks % self.trim_every == 0:
            trim()

    def _old_grown(self) -> bool:
        size = len(gc.get_objects(2))
        return size > max(OLD_FLOOR, self.kept * (1 + OLD_GROWTH))


def run(collector: Collector | None = None) -> None:
    """Tick every :data:`YOUNG_EVERY` seconds, for good (a daemon thread, a greenlet
    under gevent)."""
    collector = collector or Collector()
    while True:
        time.sleep(YOUNG_EVERY)
        collector.tick()


def schedule() -> None:
    """In a worker whose app is loaded: freeze what is there, set the thresholds and
    start :func:`run`."""
    import threading

    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    threading.Thread(target=run, name="basra-gc", daemon=True).start()
