"""This process's LISTEN connection: the versions every instance announces.

A change's transaction sends ``NOTIFY basra_versions, '<key>:<number>[:<turn>:<deadline
ms>]'`` (for a match: its id and version, the seat to play, -1 once over, and the clock's
deadline, 0 with none running; for a player's stream: its wake key and the event's
number). PostgreSQL delivers it on commit to every listening process of every instance.
Each process keeps one listening connection (started on first use) and a bounded map of
the numbers it has heard, so a poll whose ETag is current is answered without a query,
and a long poll sleeps until its match's notification arrives instead of querying in a
loop.

The map is only a hint kept fresh by the database: while the listener is not connected
(and always on SQLite) callers fall back to reading the database. Numbers only grow, so
a late database read never overwrites a newer one.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import OrderedDict
from typing import Any

import psycopg
from flask import current_app

from ..settings import settings_of
from ..storage.db import backend, libpq_conninfo

CHANNEL = "basra_versions"
NOBODY = -1
"""The turn of a match that is over: nobody is to play."""
UNKNOWN = -2
"""A turn this process has not heard of."""
_MAX_KEYS = 100_000
log = logging.getLogger(__name__)


def payload(key: str, number: int, turn: int = UNKNOWN, deadline: int = 0) -> str:
    """A NOTIFY's payload (the key never holds a colon)."""
    return f"{key}:{number}:{turn}:{deadline}"


class VersionListener:
    """This process's LISTEN connection and what it heard: the latest number of each key
    (a match's version, with its turn and deadline), bounded, oldest forgotten first."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.live = False
        self.epoch = 0
        """Bumped at every (re)connect: a database read started in an older epoch may
        predate a notification this listener never heard."""
        self._lock = threading.Lock()
        self._versions: OrderedDict[str, int] = OrderedDict()
        self._facts: dict[str, tuple[int, int]] = {}
        """key -> (turn, deadline in epoch milliseconds, 0 for none), as last heard."""
        self._waiters: dict[str, list[threading.Event]] = {}
        # settling: this process's pings, sent on a channel of its own and heard back
        self._ping_channel = f"basra_ping_{secrets.token_hex(8)}"
        self._pings_sent = 0
        self._pings_heard = 0
        self._pings_wanted = 0
        self._settlers: list[tuple[int, threading.Event]] = []
        self._ping_needed = threading.Event()
        self._ping_back = threading.Event()
        self._thread = threading.Thread(target=self._listen, name="basra-listen", daemon=True)
        self._thread.start()
        self._pinger = threading.Thread(target=self._ping, name="basra-ping", daemon=True)
        self._pinger.start()

    # --- listener ----------------------------------------------------------

    def _listen(self) -> None:
        while True:
            try:
                # keepalives: a primary that vanishes without closing the connection (a
                # failover across a network) is noticed within seconds, not hours
                with psycopg.connect(
                    self.dsn, autocommit=True, application_name="basra-listen",
                    keepalives_idle=5, keepalives_interval=2, keepalives_count=3,
                ) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    conn.execute(f"LISTEN {self._ping_channel}")
                    with self._lock:  # anything heard before this LISTEN may be stale
                        self._versions.clear()
                        self._facts.clear()
                        self.epoch += 1
                    self.live = True
                    for note in conn.notifies():
                        if note.channel == self._ping_channel:
                            self._heard_ping(int(note.payload))
                            continue
                        key, number, *facts = note.payload.split(":")
                        self.saw(key, int(number), *(int(fact) for fact in facts[:2]))
            except Exception:  # lost the connection: fall back to the database, retry
                log.warning("version listener disconnected; retrying", exc_info=True)
            self.live = False
            self._wake_all()
            time.sleep(1.0)

    # --- map ---------------------------------------------------------------

    def saw(self, key: str, version: int, turn: int = UNKNOWN, deadline: int = 0) -> None:
        """Record that ``key`` is at ``version`` (or later), with ``turn`` to play
        until ``deadline`` (epoch ms, 0 for none); wake whoever waits on it."""
        with self._lock:
            if self._versions.get(key, -1) < version:
                self._versions[key] = version
                self._versions.move_to_end(key)
                self._facts[key] = (turn, deadline)
                if len(self._versions) > _MAX_KEYS:
                    gone, _ = self._versions.popitem(last=False)
                    self._facts.pop(gone, None)
            waiters = self._waiters.pop(key, [])
        for event in waiters:
            event.set()

    def saw_read(self, key: str, version: int, facts: tuple[int, int],
                  epoch: int) -> None:
        """Record a version read from the database in a read that started in ``epoch``."""
        if self.live and epoch == self.epoch:
            self.saw(key, version, *facts)

    def facts(self, key: str) -> tuple[int, int]:
        """The (turn, deadline ms) heard with the latest version ((UNKNOWN, 0) if none)."""
        with self._lock:
            return self._facts.get(key, (UNKNOWN, 0))

    def version(self, key: str) -> int | None:
        """The latest version heard, if the listener is live and has heard of the match."""
        if not self.live:
            return None
        with self._lock:
            return self._versions.get(key)

    def poke(self, key: str) -> None:
        """Wake whoever waits on ``key`` without a new number (they look again)."""
        with self._lock:
            waiters = self._waiters.pop(key, [])
        for event in waiters:
            event.set()

    def wait(self, key: str, version: int, timeout: float) -> None:
        """Sleep until ``key`` passes ``version``, the listener drops, or timeout."""
        event = threading.Event()
        with self._lock:
            if self._versions.get(key, -1) != version:
                return
            self._waiters.setdefault(key, []).append(event)
        event.wait(timeout)
        with self._lock:
            waiting = self._waiters.get(key)
            if waiting and event in waiting:
                waiting.remove(event)

    def wait_either(self, known: dict[str, int], timeout: float) -> None:
        """Sleep until one of the keys passes its number in ``known`` (or is heard at
        all), the listener drops, or timeout: a stream that follows two keys."""
        event = threading.Event()
        with self._lock:
            if any(self._versions.get(key, -1) != number for key, number in known.items()):
                return
            for key in known:
                self._waiters.setdefault(key, []).append(event)
        event.wait(timeout)
        with self._lock:
            for key in known:
                waiting = self._waiters.get(key)
                if waiting and event in waiting:
                    waiting.remove(event)

    def _wake_all(self) -> None:
        with self._lock:
            waiters = [e for events in self._waiters.values() for e in events]
            waiters += [e for _, e in self._settlers]
            self._waiters.clear()
            self._settlers.clear()
        for event in waiters:
            event.set()

    # --- settling ------------------------------------------------------------

    def settle(self, timeout: float = 1.0) -> bool:
        """Wait until this listener has heard every notification committed before this call;
        False if it cannot tell (not live, reconnected, or no answer within ``timeout``).

        PostgreSQL delivers notifications in commit order, so once the listener hears a
        ping of its own that was sent after this call began, it has heard every move
        committed before. Concurrent callers share one ping.
        """
        if not self.live:
            return False
        event = threading.Event()
        with self._lock:
            epoch = self.epoch
            target = self._pings_sent + 1  # a ping not sent yet: it will go after now
            self._pings_wanted = max(self._pings_wanted, target)
            self._settlers.append((target, event))
        self._ping_needed.set()
        event.wait(timeout)
        with self._lock:
            return self.live and self.epoch == epoch and self._pings_heard >= target

    def _ping(self) -> None:
        conn: psycopg.Connection[Any] | None = None
        while True:
            self._ping_needed.wait()
            self._ping_needed.clear()
            with self._lock:
                if self._pings_wanted <= self._pings_sent:
                    continue
                seq = self._pings_sent = self._pings_wanted  # one ping for every caller so far
            try:
                if conn is None or conn.closed:
                    conn = psycopg.connect(self.dsn, autocommit=True,
                                           application_name="basra-ping")
                    # a ping needs ordering, not durability: no WAL flush per ping
                    conn.execute("SET synchronous_commit = off")
                conn.execute("SELECT pg_notify(%s, %s)", (self._ping_channel, str(seq)))
                # one ping in flight: callers that come meanwhile share the next one
                self._ping_back.wait(1.0)
                self._ping_back.clear()
            except Exception:  # the callers fall back to the database
                log.warning("version ping failed; retrying", exc_info=True)
                conn = None
                time.sleep(0.2)

    def _heard_ping(self, seq: int) -> None:
        self._ping_back.set()
        with self._lock:
            self._pings_heard = max(self._pings_heard, seq)
            ready = [e for target, e in self._settlers if target <= seq]
            self._settlers = [(t, e) for t, e in self._settlers if t > seq]
        for event in ready:
            event.set()


_LISTENERS: dict[str, VersionListener] = {}
_LISTENERS_LOCK = threading.Lock()


def listener() -> VersionListener | None:
    """This process's listener of the app's database: on PostgreSQL with BASRA_LISTEN on
    (started on first use), else None."""
    ext = current_app.extensions
    if "basra_listen_dsn" not in ext:
        listen = settings_of(current_app).listen
        ext["basra_listen_dsn"] = (
            libpq_conninfo() if listen and backend() == "postgresql" else None)
    dsn = ext["basra_listen_dsn"]
    if dsn is None:
        return None
    with _LISTENERS_LOCK:
        found = _LISTENERS.get(dsn)
        if found is None:
            found = _LISTENERS[dsn] = VersionListener(dsn)
        return found


def heard(key: str) -> int:
    """The latest number this process's listener heard for ``key`` (-1: none, or no live
    listener): pass it to :func:`wait_for_key` before reading what it guards."""
    found = listener()
    known = found.version(key) if found is not None else None
    return -1 if known is None else known


def epoch() -> int | None:
    """The (re)connection this process's listener is in while live, else None: a number
    heard in one epoch says nothing of a later one."""
    found = listener()
    return found.epoch if found is not None and found.live else None


def poke(key: str) -> None:
    """Wake this process's waiters on ``key`` (a stream that must look at its bearer)."""
    found = listener()
    if found is not None:
        found.poke(key)


def wait_for_key(key: str, heard_before: int, timeout: float, poll_interval: float) -> None:
    """Sleep until the listener hears ``key`` past ``heard_before`` (its number read before
    the caller's last database read, so nothing committed since is missed) or ``timeout``
    ends; without a live listener, at most ``poll_interval`` (the caller reads the
    database again)."""
    found = listener()
    if found is not None and found.live:
        found.wait(key, heard_before, timeout)
    else:
        time.sleep(min(timeout, poll_interval))
