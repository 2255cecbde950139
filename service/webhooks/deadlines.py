"""Each try's one deadline, for connecting, sending and the whole answer together:
one thread watches them all and cuts a try's connection when its deadline passes, so a
receiver that trickles its answer a byte at a time is cut off there."""

from __future__ import annotations

import contextlib
import heapq
import itertools
import socket
import threading
import time
from typing import Any


class Watch:
    """One try's deadline: its connection is cut when it passes, unless ended first."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.cut = False
        self.ended = False
        self.lock = threading.Lock()

    def end(self) -> bool:
        """The try is over (nothing more to cut); whether the deadline cut it."""
        with self.lock:
            self.ended = True
            return self.cut

    def fire(self) -> None:
        with self.lock:
            if self.ended:
                return
            self.cut = True
        sock = getattr(self.conn, "sock", None)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # ends any read or write on it


class Deadlines:
    """One thread that cuts the tries past their deadline (a timer thread a try would
    cost a thread's start on every delivery)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.heap: list[tuple[float, int, Watch]] = []
        self.count = itertools.count()
        self.woken = threading.Event()
        self.thread: threading.Thread | None = None

    def watch(self, at: float, conn: Any) -> Watch:
        watch = Watch(conn)
        with self.lock:
            heapq.heappush(self.heap, (at, next(self.count), watch))
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._run, daemon=True,
                                               name="webhook-deadlines")
                self.thread.start()
            if self.heap[0][2] is watch:
                self.woken.set()
        return watch

    def _run(self) -> None:
        while True:
            now = time.monotonic()
            due = []
            with self.lock:
                while self.heap and (self.heap[0][0] <= now or self.heap[0][2].ended):
                    due.append(heapq.heappop(self.heap)[2])
                wait = self.heap[0][0] - now if self.heap else 1.0
                self.woken.clear()
            for watch in due:
                watch.fire()
            self.woken.wait(wait)


DEADLINES = Deadlines()

