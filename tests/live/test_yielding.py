"""Sharing a gevent worker (service/live/yielding.py): woken waiters let the requests under
way go first. gevent's patching is for a whole process, so each case runs in its own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from service.live import yielding

ROOT = Path(__file__).resolve().parents[2]

_UNDER_WAY = """
from gevent import monkey; monkey.patch_all()
import json, socket, sys, time
import gevent
from service.live.yielding import WOKEN_PATIENCE, after_requests_under_way

order = []

def under_way(steps):  # a request between its steps (greenlets ready to run)
    for i in range(steps):
        order.append(f"step {i}")
        gevent.sleep(0)

def woken(name):
    after_requests_under_way()
    order.append(name)

reading, writing = socket.socketpair()

def waiting_for_io():  # a move waiting for its statement's answer
    reading.recv(1)
    order.append("io")

gevent.joinall([gevent.spawn(under_way, 3), gevent.spawn(woken, "woken 1"),
                gevent.spawn(woken, "woken 2"), gevent.spawn(waiting_for_io),
                gevent.spawn(writing.send, b"x")])

busy = [True]
def never_idle():
    while busy[0]:
        gevent.sleep(0)

spinner = gevent.spawn(never_idle)
gevent.sleep(0)
started = time.perf_counter()
gevent.spawn(woken, "woken on a busy worker").join()
waited = time.perf_counter() - started
busy[0] = False
spinner.join()
print(json.dumps({"order": order, "waited": waited, "patience": WOKEN_PATIENCE}))
"""


def _run(program: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=True)
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.process
def test_woken_waiters_go_after_the_requests_under_way() -> None:
    """Under gevent, woken waiters wait until the greenlets ready to run and the I/O that
    has arrived are served, then go one after the other; on a worker that is never idle
    each still goes once its patience has passed."""
    found = _run(_UNDER_WAY)
    assert found["order"] == ["step 0", "step 1", "step 2", "io", "woken 1", "woken 2",
                              "woken on a busy worker"], found["order"]
    patience = found["patience"]
    assert isinstance(patience, float) and isinstance(found["waited"], float)
    assert patience * 0.9 <= found["waited"] < patience + 0.5, found


def test_without_gevent_a_woken_waiter_goes_at_once() -> None:
    """Threads and tests have no event loop to wait for: nothing is waited for and no
    turnstile is made."""
    assert yielding._hub() is None
    yielding.after_requests_under_way(patience=60.0)  # would wait a minute under gevent
    assert yielding._one_at_a_time is None


def test_a_pause_with_a_cpu_budget_says_stop_once_it_is_spent() -> None:
    """pause_for_others(cpu_ms): False while the search has used less CPU than that,
    True after; without a budget it never says stop."""
    import time

    from service.live.yielding import pause_for_others

    pause = pause_for_others(cpu_ms=30)
    assert pause() is False
    started = time.thread_time()
    while time.thread_time() - started < 0.01:
        pass
    assert pause() is False
    while time.thread_time() - started < 0.04:
        pass
    assert pause() is True
    assert pause_for_others()() is False
