"""This process's open player streams, kept by one pass a second instead of a wake each.

A stream sleeps on its listener key until an event, its heartbeat, or this keeper's
poke: each pass (one thread per app, running while streams are held) asks every held
stream's ``still()`` (its bearer still allowed, its client still connected: a dict
lookup and a system call, no query) and wakes those that must end, then runs the
passes the composition root wired (a presence lease renewed). 5,000 idle streams cost
a few milliseconds a second, not 5,000 greenlet wakes and heartbeats.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app

from ..settings import Settings, settings_of
from . import listener

PASS_SECONDS = 1.0
"""How often the keeper looks: a sign-out or a client gone is acted on within this."""
_EXTENSION = "basra_keeper"
_LOCK = threading.Lock()
_each_pass: list[Callable[[Settings], None]] = []
log = logging.getLogger(__name__)


def wire(*chores: Callable[[Settings], None]) -> None:
    """What else runs once a pass while streams are held, given the app's settings
    (replacing what was wired)."""
    _each_pass[:] = chores


@dataclass(frozen=True)
class Held:
    """An open stream: the listener key it sleeps on, and whether it may go on."""

    key: str
    still: Callable[[], bool]


class Keeper:
    """One app's held streams and the thread that passes over them."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.lock = threading.Lock()
        self.held: dict[int, Held] = {}
        self.numbers = itertools.count()
        self.running = False

    def hold(self, held: Held) -> int:
        with self.lock:
            number = next(self.numbers)
            self.held[number] = held
            if not self.running:
                self.running = True
                threading.Thread(target=self._run, name="basra-keeper", daemon=True).start()
        return number

    def let_go(self, number: int) -> None:
        with self.lock:
            self.held.pop(number, None)

    def _run(self) -> None:
        while True:
            time.sleep(PASS_SECONDS)
            with self.lock:
                held = list(self.held.values())
                if not held:
                    self.running = False
                    return
            try:
                with self.app.app_context():
                    for stream in held:
                        if not stream.still():
                            listener.poke(stream.key)
                    settings = settings_of(self.app)
                    for chore in _each_pass:
                        chore(settings)
            except Exception:  # a pass that failed: the next one tries again
                log.warning("stream keeper's pass failed", exc_info=True)


def _keeper() -> Keeper:
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    with _LOCK:
        found = app.extensions.get(_EXTENSION)
        if found is None:
            found = app.extensions[_EXTENSION] = Keeper(app)
    return found  # type: ignore[no-any-return]



@contextlib.contextmanager
def holding(key: str, still: Callable[[], bool]) -> Iterator[None]:
    """Keep a stream that sleeps on ``key`` while it runs: poked when ``still()`` says
    no."""
    keeper = _keeper()
    number = keeper.hold(Held(key, still))
    try:
        yield
    finally:
        keeper.let_go(number)


def hung_up(connection: Any) -> bool:
    """Whether the client of a request's socket (``gunicorn.socket``; None: unknown)
    has closed it: a peek that never blocks, so a stream ends before its next write."""
    if connection is None:
        return False
    raw = getattr(connection, "_sock", connection)  # gevent's wrapper: its OS socket
    try:
        return bool(raw.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"")
    except BlockingIOError:
        return False
    except OSError:
        return True
