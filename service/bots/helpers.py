"""Bots' moves for this app: searching levels in helper processes of lower priority,
the others here.

A searching bot's move costs up to ``BASRA_BOT_CPU_MS`` of CPU; worked out in the web
worker, even in slices that give way under gevent, it slows every other request of the
machine (docs/computer.md). So each web process keeps up to ``BASRA_BOT_PROCESSES``
helpers (:mod:`service.bots.searcher`, started on first use, ``nice``d by
``BASRA_BOT_NICE``): the request sends the position and waits (under gevent, its
worker serves others meanwhile), and the operating system gives the CPU to the web
workers first. The front ends take turns at the helpers (:class:`Helpers`), and a
move waits for one at most ``BASRA_BOT_WAIT_SECONDS``, then the greedy level plays it.
With ``BASRA_BOT_PROCESSES=0``, or when a helper fails (it is then replaced), the move
is worked out here as before, giving way every few milliseconds.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from prometheus_client import Gauge

from ..engine import Move, State, format_cards, move_from_parts, state_to_dict
from ..engine.bots import SEARCHING, bot_move
from ..live.yielding import pause_for_others
from ..settings import Settings
from ..web.settings import current
from . import searcher

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


@dataclass
class _Waiter:
    """A move waiting for a helper: woken with one, or not at all."""

    woken: threading.Event = field(default_factory=threading.Event)
    helper: Helper | None = None


WAITING = Gauge("basra_bot_moves_waiting", "Bot moves waiting for a free helper process",
                multiprocess_mode="livesum")
BUSY = Gauge("basra_bot_helpers_busy", "Helper processes working out a bot's move",
             multiprocess_mode="livesum")


class Helpers:
    """This process's helpers: up to ``size``, made as needed, each lent to one move at a
    time. A move that finds none free waits in its front end's queue, at most ``wait``
    seconds; a helper given back goes to the waiting front end served longest ago (one
    never served first), so however many searches one front end asks for, another's
    move waits at most for the searches already running."""

    def __init__(self, size: int, nice: int) -> None:
        self.size, self.nice = size, nice
        self.made = 0
        self.free: list[Helper] = []
        self._lock = threading.Lock()
        self._turns: dict[str, deque[_Waiter]] = {}
        """Front ends with moves waiting, each its queue."""
        self._served: dict[str, float] = {}
        """When each front end was last lent a helper (monotonic seconds)."""

    def _borrow(self, owner: str, wait: float) -> Helper | None:
        """A helper for ``owner``'s move, or None if none came within ``wait`` s."""
        with self._lock:
            make = not self.free and self.made < self.size
            if self.free or make:  # lent now: served now
                self._served[owner] = time.monotonic()
            if self.free:
                return self.free.pop()
            if make:
                self.made += 1
            else:
                waiter = _Waiter()
                self._turns.setdefault(owner, deque()).append(waiter)
        if make:
            try:
                return Helper(self.nice)
            except OSError:
                self._lost()
                raise
        WAITING.inc()
        try:
            waiter.woken.wait(wait)
        except BaseException:  # interrupted (a greenlet killed): leave nothing behind
            if self._leave(owner, waiter) is not None:
                self._give(waiter.helper)  # type: ignore[arg-type]
            raise
        finally:
            WAITING.dec()
        return self._leave(owner, waiter)

    def _leave(self, owner: str, waiter: _Waiter) -> Helper | None:
        """A waiter done waiting: the helper it was handed, or None (then it is out of
        its queue)."""
        with self._lock:
            if waiter.helper is None:
                queue = self._turns.get(owner)
                if queue is not None and waiter in queue:
                    queue.remove(waiter)
                    if not queue:
                        del self._turns[owner]
            return waiter.helper

    def _give(self, helper: Helper) -> None:
        """A helper back: to the front end next in turn, or free."""
        with self._lock:
            if not self._turns:
                self.free.append(helper)
                return
            owner = min(self._turns, key=lambda o: self._served.get(o, 0.0))
            queue = self._turns[owner]
            waiter = queue.popleft()
            if not queue:
                del self._turns[owner]
            self._served[owner] = time.monotonic()
            waiter.helper = helper
            waiter.woken.set()

    def _lost(self) -> None:
        """A helper gone (or never made): a waiting move gets a new one."""
        with self._lock:
            self.made -= 1
            replace = bool(self._turns) and self.made < self.size
            if replace:
                self.made += 1
        if replace:
            try:
                self._give(Helper(self.nice))
            except OSError:
                with self._lock:
                    self.made -= 1

    def decide(self, state: State, seat: int, level: str, cpu_ms: float, owner: str,
               wait: float) -> Move | None:
        """The bot's move, worked out by a helper in ``owner``'s turn; None if no helper
        was free within ``wait`` seconds."""
        answer = self.ask({
            "state": state_to_dict(state), "rules": state.rules.to_dict(),
            "rules_hash": state.rules.content_hash, "seat": seat, "level": level,
            "cpu_ms": cpu_ms}, owner, wait)
        return None if answer is None else move_from_parts(seat, answer["card"],
                                                           answer["capture"])

    def ask(self, request: dict[str, Any], owner: str, wait: float) -> dict[str, Any] | None:
        """A helper's answer to ``request``, asked in ``owner``'s turn; None if no helper
        was free within ``wait`` seconds. A helper whose answer was not read to the end
        (it failed, or the waiting request was interrupted) is never lent again: its next
        answer could be this one's."""
        helper = self._borrow(owner, wait)
        if helper is None:
            return None
        BUSY.inc()
        try:
            answer = helper.ask(request)
        except BaseException:
            helper.close()
            self._lost()
            raise
        finally:
            BUSY.dec()
        self._give(helper)
        return answer


_helpers: dict[tuple[int, int], Helpers] = {}
_helpers_lock = threading.Lock()


def _pool(settings: Settings) -> Helpers | None:
    """This process's helpers for ``settings`` (None: search here)."""
    size, nice = settings.bot_processes, settings.bot_nice
    if size <= 0:
        return None
    with _helpers_lock:
        pool = _helpers.get((size, nice))
        if pool is None:
            pool = _helpers[(size, nice)] = Helpers(size, nice)
    return pool


FALLBACK = "greedy"
"""The level that plays a searching bot's move when no helper came in time."""


def decide(state: State, seat: int, level: str, owner: str = "") -> Move:
    """A bot's move for this app, for front end ``owner``: a searching level's in a
    helper process in that front end's turn (here, should the helper fail; the
    :data:`FALLBACK` level's when none came within ``BASRA_BOT_WAIT_SECONDS``), the
    others here; either way within ``BASRA_BOT_CPU_MS``."""
    settings = current()  # a bot moves deep in many use cases: looked up here, once
    pool = _pool(settings) if level in SEARCHING else None
    if pool is not None:
        try:
            move = pool.decide(state, seat, level, settings.bot_cpu_ms, owner,
                               settings.bot_wait_seconds)
        except (HelperLost, OSError):
            log.warning("a bot helper failed; searching here", exc_info=True)
        else:
            return move if move is not None else bot_move(state, seat, FALLBACK)
    return bot_move(state, seat, level, pause_for_others(settings.bot_cpu_ms))


def _match_request(kind: str, start: State, moves: Sequence[Move],
                   settings: Settings) -> dict[str, Any]:
    """A whole match sent to a helper: the deal, the moves and each play's budget."""
    return {kind: True, "state": state_to_dict(start), "rules": start.rules.to_dict(),
            "rules_hash": start.rules.content_hash, "cpu_ms": settings.bot_cpu_ms,
            "moves": [[m.seat, str(m.card), None if m.capture is None
                       else format_cards(m.capture)] for m in moves]}


def _ask_helper(request: dict[str, Any], owner: str, settings: Settings,
                here: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    """``request``'s answer from a helper process, or worked out ``here`` without one (or
    should it fail, or none be free within :data:`REVIEW_WAIT_SECONDS`)."""
    pool = _pool(settings)
    if pool is not None:
        try:
            answer = pool.ask(request, owner, REVIEW_WAIT_SECONDS)
        except (HelperLost, OSError):
            log.warning("a bot helper failed; working it out here", exc_info=True)
        else:
            if answer is not None:
                return answer
    return here(request)


def review(start: State, moves: Sequence[Move], owner: str = "", *,
           settings: Settings) -> dict[str, Any]:
    """Every play of a match from ``start`` (as dealt) through ``moves`` scored against
    the expert's choice, each within ``BASRA_BOT_CPU_MS``: ``{"plays", "cpu_ms"}``, worked
    out by a helper process (here without one, or should it fail)."""
    return _ask_helper(_match_request("review", start, moves, settings), owner, settings,
                       searcher.review)


def grade(start: State, moves: Sequence[Move], plays: Sequence[int], owner: str = "", *,
          settings: Settings) -> dict[str, Any]:
    """Fair play's grades of the plays at ``plays`` (indexes into ``moves``), each within
    ``BASRA_BOT_CPU_MS`` as a review's play: ``{"grades": [[index, seat, forced, lost,
    spread, obvious]...], "cpu_ms"}``, in a helper process (here without one, or should it fail)."""
    request = _match_request("grade", start, moves, settings) | {"plays": list(plays)}
    return _ask_helper(request, owner, settings, searcher.grade)


REVIEW_WAIT_SECONDS = 60.0
"""How long a review waits for a free helper before it is made in this process."""
