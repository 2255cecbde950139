"""Sharing a worker while a request computes: a bot's or a hint's search pauses now
and then (:data:`service.engine.bots.Pause`), and under gunicorn's gevent workers a
pause lets the worker's other requests and long polls run, so a long search never
stalls the connections that share its worker. Waiters a move wakes let the worker's
requests under way go first (:func:`after_requests_under_way`)."""

from __future__ import annotations

import importlib
import sys
import time
from typing import Any

from ..engine.bots import Pause, no_pause

SLICE = 0.002
"""The longest a search runs before the worker's other greenlets get a turn, seconds."""
TURN = 0.001
"""The longest the others then keep a busy worker before the search goes on, seconds."""
WOKEN_PATIENCE = 0.02
"""The longest a woken waiter lets a busy worker's other requests go first, seconds."""


def _hub() -> Any:
    """gevent's hub, if gevent has patched this process (it is imported then)."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is not None and monkey.is_module_patched("time"):
        return sys.modules["gevent"].get_hub()
    return None


def _give_way(hub: Any, turn: float = TURN) -> None:
    """Let the event loop go round once: wait until it is idle (it has polled for I/O
    and run what was ready) or ``turn`` seconds have passed, whichever comes first.
    (``gevent.sleep(0)`` would not poll for I/O; ``gevent.idle()`` alone could wait
    for ever on a busy worker.)"""
    loop = hub.loop
    waiter = sys.modules["gevent.hub"].Waiter(hub)
    idle, timer = loop.idle(), loop.timer(turn)
    idle.start(waiter.switch, None)
    timer.start(waiter.switch, None)
    try:
        waiter.get()
    finally:
        idle.close()
        timer.close()


def pause_for_others(cpu_ms: float = 0.0) -> Pause:
    """A pause for one search: under gevent it gives way to the worker's other
    greenlets once at least :data:`SLICE` has passed since it last did (elsewhere:
    threads, the worker process, tests, there is nobody to give way to); with
    ``cpu_ms``, it says stop once the search has used that much CPU of its own (thread
    time, less what the others used while it gave way)."""
    hub = _hub()
    if hub is None and not cpu_ms:
        return no_pause
    budget = cpu_ms / 1000 if cpu_ms else float("inf")
    used = 0.0
    resumed = time.thread_time()
    due = time.perf_counter() + SLICE

    def pause() -> bool:
        nonlocal due, used, resumed
        now = time.thread_time()
        used += now - resumed
        resumed = now
        if hub is not None and time.perf_counter() >= due:
            _give_way(hub)
            due = time.perf_counter() + SLICE
            resumed = time.thread_time()
        return used >= budget

    return pause


_one_at_a_time: Any = None
"""Under gevent, the woken waiters' turnstile (made on first use, after gevent patched)."""


def after_requests_under_way(patience: float = WOKEN_PATIENCE) -> None:
    """A waiter just woken (a long poll or an event stream whose match moved) lets the
    requests under way in its worker go first: it waits, one woken waiter at a time,
    until the worker has nothing else ready (I/O, timers, greenlets), or ``patience``
    seconds have passed since it was woken. A move wakes all its match's waiters at
    once; answered back to back they would hold the worker for all that time, and a
    move arriving meanwhile (or waiting on its statement) would wait behind them.
    Elsewhere (threads, tests) it does nothing."""
    global _one_at_a_time
    hub = _hub()
    if hub is None:
        return
    woken = time.perf_counter()
    if _one_at_a_time is None:  # gevent is there: it patched this process
        _one_at_a_time = importlib.import_module("gevent.lock").Semaphore()
    if not _one_at_a_time.acquire(timeout=patience):
        return
    try:
        left = woken + patience - time.perf_counter()
        if left > 0:
            _give_way(hub, left)
    finally:
        _one_at_a_time.release()
