"""The web workers' garbage collector schedule (service/ops/collector.py): what outlives
the young collections is freed too, and a steady oldest generation is left alone."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import psutil
import pytest

from service.ops import collector
from service.ops.collector import OLD_FLOOR, Collector


class Request:
    """Stands for a request's objects that point at each other (a cycle)."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def only_ticks() -> Iterator[None]:
    """The automatic collections off: only the collector's ticks collect."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def test_a_cycle_that_outlived_the_young_collections_is_freed(only_ticks: None) -> None:
    """A long poll's request lives through a young collection into the oldest
    generation; once it ends, the worker's ticks free it (they only ever collected the
    young generations: such cycles were kept for good, and a worker grew with them)."""
    collector = Collector(old_every=10)
    freed: list[int] = []
    parked = [Request() for _ in range(100)]
    for request in parked:
        weakref.finalize(request, freed.append, 1)
    collector.tick()  # parked: survives a young collection, now in the oldest generation
    del parked, request
    for _ in range(collector.old_every):
        collector.tick()
    assert len(freed) == 100
    assert collector.full == 1


def test_a_steady_oldest_generation_is_not_collected_again(only_ticks: None) -> None:
    """A full collection scans everything kept: once one has run, the next waits until
    the oldest generation has grown by a quarter."""
    collector = Collector(old_every=2)
    kept = [Request() for _ in range(OLD_FLOOR + 1)]
    for _ in range(2):
        collector.tick()
    assert collector.full == 1
    for _ in range(20):
        collector.tick()
    assert collector.full == 1
    grown = [Request() for _ in range(collector.kept // 3)]
    for _ in range(4):
        collector.tick()
    assert collector.full == 2
    assert kept and grown


def test_the_allocators_free_pages_go_back_after_a_burst(only_ticks: None) -> None:
    """A burst of blocks freed but for a few pins the heap's pages at the burst's height;
    the worker's trim hands them back (glibc: the soak's survivor kept each burst)."""
    if not collector.trim():
        pytest.skip("no malloc_trim here (not glibc)")
    rss = psutil.Process().memory_info
    collector.trim()
    before = rss().rss
    blocks = [bytearray(40_000) for _ in range(2_000)]  # 80 MB from the C heap
    pins = blocks[::50]
    del blocks
    pinned = rss().rss
    assert pinned - before > 50 << 20, "the freed blocks' pages stayed (pinned)"
    ticks = Collector(old_every=10**9, trim_every=3)
    for _ in range(3):
        ticks.tick()
    assert rss().rss - before < 20 << 20, "handed back by the third tick"
    assert len(pins) == 40
