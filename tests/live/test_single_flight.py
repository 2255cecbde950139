"""One read for a crowd (service/single_flight.py)."""

from __future__ import annotations

import threading
import time

import pytest

from service.live.single_flight import SingleFlight


def _crowd(flight: SingleFlight, key: str, n: int, hold: float) -> list[tuple[bool, float]]:
    """(first?, when its block began) for ``n`` threads asking for ``key`` together; the
    first holds its block ``hold`` seconds."""
    results: list[tuple[bool, float]] = []
    start = threading.Barrier(n)

    def ask() -> None:
        start.wait()
        with flight.first(key) as mine:
            results.append((mine, time.monotonic()))
            if mine:
                time.sleep(hold)

    threads = [threading.Thread(target=ask) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_the_first_reads_and_the_others_go_on_once_it_is_done() -> None:
    results = _crowd(SingleFlight(), "m", 8, 0.2)
    firsts = [at for mine, at in results if mine]
    others = [at for mine, at in results if not mine]
    assert len(firsts) == 1 and len(others) == 7
    assert min(others) >= firsts[0] + 0.2


def test_a_failed_read_releases_the_others_and_the_key() -> None:
    """A first read that raises lets its waiters go on at once (not after PATIENCE), and
    the next to ask reads afresh."""
    flight = SingleFlight()
    inside = threading.Event()
    others: list[tuple[bool, float]] = []

    def other() -> None:
        inside.wait(5)
        started = time.monotonic()
        with flight.first("m") as mine:
            others.append((mine, time.monotonic() - started))

    waiter = threading.Thread(target=other)
    waiter.start()
    with pytest.raises(RuntimeError), flight.first("m") as mine:
        assert mine
        inside.set()
        time.sleep(0.1)  # the other is waiting on this read by now
        raise RuntimeError("the database went away")
    waiter.join(10)
    assert len(others) == 1
    mine_there, waited = others[0]
    assert not mine_there and 0.05 <= waited < 1.0
    with flight.first("m") as mine:  # nobody is reading it now: this one is first
        assert mine


def test_different_keys_do_not_wait_for_each_other() -> None:
    flight = SingleFlight()
    with flight.first("a") as a, flight.first("b") as b:
        assert a and b
