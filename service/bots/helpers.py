"""Bots' moves for this app: searching levels in helper processes of lower priority,
the others here.

A searching bot's move costs up to ``BASRA_BOT_CPU_MS`` of CPU; worked out in the web
worker, even in slices that give way under gevent, it slows every other request of the
machine (docs/computer.md). So each web process keeps up to ``BASRA_BOT_PROCESSES``
helpers (:mod:`service.bots.searcher`, started on first use, ``nice``d by
``BASRA_BOT_NICE``): the request sends the position and waits (under gevent, its
worker serves others meanwhile), and the operating system gives the CPU to the web
workers first. With ``BASRA_BOT_PROCESSES=0``, or when a helper fails (it is then
replaced), the move is worked out here as before, giving way every few milliseconds.
"""

from __future__ import annotations

import json
import logging
import queue
import subprocess
import sys
import threading
from typing import IO, Any

from flask import current_app

from ..engine import Move, State, move_from_parts, state_to_dict
from ..engine.bots import SEARCHING, bot_move
from ..live.yielding import bot_pause

log = logging.getLogger(__name__)


class HelperLost(Exception):
    """A helper process died or answered nonsense."""


class Helper:
    """One helper process and its pipes (one request at a time)."""

    def __init__(self, nice: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "service.bots.searcher", str(nice)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send one request; its answer."""
        stdin: IO[bytes] | None = self.proc.stdin
        stdout: IO[bytes] | None = self.proc.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(json.dumps(request, separators=(",", ":")).encode() + b"\n")
            stdin.flush()
            line = stdout.readline()
        except (OSError, ValueError) as error:
            raise HelperLost(str(error)) from error
        if not line:
            raise HelperLost(f"the helper exited ({self.proc.poll()})")
        try:
            answer: dict[str, Any] = json.loads(line)
        except ValueError as error:
            raise HelperLost(f"the helper answered {line[:80]!r}") from error
        if "error" in answer:
            raise HelperLost(answer["error"])
        return answer

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


class Helpers:
    """This process's helpers: up to ``size``, made as needed, each lent to one move at a
    time (a move that finds none free waits for one)."""

    def __init__(self, size: int, nice: int) -> None:
        self.size, self.nice = size, nice
        self.made = 0
        self.free: queue.Queue[Helper] = queue.Queue()
        self._lock = threading.Lock()

    def _borrow(self) -> Helper:
        try:
            return self.free.get_nowait()
        except queue.Empty:
            pass
        with self._lock:
            make = self.made < self.size
            if make:
                self.made += 1
        if make:
            try:
                return Helper(self.nice)
            except OSError:
                with self._lock:
                    self.made -= 1
                raise
        return self.free.get()

    def decide(self, state: State, seat: int, level: str, cpu_ms: float) -> Move:
        """The bot's move, worked out by a helper. A helper whose answer was not read to
        the end (it failed, or the waiting request was interrupted) is never lent
        again: its next answer could be this one's."""
        helper = self._borrow()
        try:
            answer = helper.ask({
                "state": state_to_dict(state), "rules": state.rules.to_dict(),
                "rules_hash": state.rules.content_hash, "seat": seat, "level": level,
                "cpu_ms": cpu_ms})
        except BaseException:
            helper.close()
            with self._lock:
                self.made -= 1
            raise
        self.free.put(helper)
        return move_from_parts(seat, answer["card"], answer["capture"])


_helpers: dict[tuple[int, int], Helpers] = {}
_helpers_lock = threading.Lock()


def _pool() -> Helpers | None:
    """This process's helpers for the app's settings (None: search here)."""
    config = current_app.config
    size, nice = int(config["BASRA_BOT_PROCESSES"]), int(config["BASRA_BOT_NICE"])
    if size <= 0:
        return None
    with _helpers_lock:
        pool = _helpers.get((size, nice))
        if pool is None:
            pool = _helpers[(size, nice)] = Helpers(size, nice)
    return pool


def decide(state: State, seat: int, level: str) -> Move:
    """A bot's move for this app: a searching level's in a helper process (here, should
    the helper fail), the others here; either way within ``BASRA_BOT_CPU_MS``."""
    pool = _pool() if level in SEARCHING else None
    if pool is not None:
        try:
            return pool.decide(state, seat, level, current_app.config["BASRA_BOT_CPU_MS"])
        except (HelperLost, OSError):
            log.warning("a bot helper failed; searching here", exc_info=True)
    return bot_move(state, seat, level, bot_pause())
