"""One read for a crowd (service/live/single_flight.py)."""

from __future__ import annotations

import threading
import time

import pytest

from service.live.single_flight import SingleFlight


def test_the_first_reads_and_the_others_share_its_result() -> None:
    """Eight askers at once: the read runs once, every asker gets its result, and none
    gets it before the read is over."""
    flight = SingleFlight()
    reads: list[float] = []
    results: list[tuple[object, float]] = []
    start = threading.Barrier(8)

    def read() -> object:
        reads.append(time.monotonic())
        time.sleep(0.2)
        return {"version": 7}

    def ask() -> None:
        start.wait()
        results.append((flight.do("m", read), time.monotonic()))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(reads) == 1
    assert len(results) == 8 and all(value == {"version": 7} for value, _ in results)
    assert len({id(value) for value, _ in results}) == 1  # the one read's object
    assert min(at for _, at in results) >= reads[0] + 0.2


def test_a_failed_read_lets_the_others_read_for_themselves() -> None:
    """A first read that raises lets its waiters go on at once (not after PATIENCE), each
    reading afresh, and the next to ask is first again."""
    flight = SingleFlight()
    inside = threading.Event()
    others: list[tuple[str, float]] = []

    def other() -> None:
        inside.wait(5)
        started = time.monotonic()
        others.append((flight.do("m", lambda: "their own"), time.monotonic() - started))

    def failing() -> str:
        inside.set()
        time.sleep(0.1)  # the other is waiting on this read by now
        raise RuntimeError("the database went away")

    waiter = threading.Thread(target=other)
    waiter.start()
    with pytest.raises(RuntimeError):
        flight.do("m", failing)
    waiter.join(10)
    assert len(others) == 1
    value, waited = others[0]
    assert value == "their own" and 0.05 <= waited < 1.0
    assert flight.do("m", lambda: "fresh") == "fresh"  # nobody is reading it now


def test_different_keys_do_not_wait_for_each_other() -> None:
    flight = SingleFlight()
    inner: list[str] = []

    def outer() -> str:
        inner.append(flight.do("b", lambda: "b"))  # would deadlock if "b" waited on "a"
        return "a"

    assert flight.do("a", outer) == "a" and inner == ["b"]
