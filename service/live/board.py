"""This process's LISTEN board: the versions (and turn facts) of recently changed
matches as PostgreSQL's notifications tell them, waiters woken when their match moves,
and settling (has the board heard everything committed before now?).

Each process keeps one listening connection (started on first use) and a bounded map
of the versions it has heard, so a poll whose ETag is current is answered without a
query, and a long poll sleeps until its match's notification arrives instead of
querying in a loop. Plain psycopg and threads: no Flask, no ORM.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import OrderedDict
from typing import Any

import psycopg

CHANNEL = "basra_versions"
NOBODY = -1
"""The turn of a match that is over: nobody is to play."""
UNKNOWN = -2
"""A turn this process has not heard of."""
_MAX_MATCHES = 100_000
log = logging.getLogger(__name__)


class VersionBoard:
    """Per-process versions and seat token hashes of recently seen matches."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.live = False
        self.epoch = 0
        """Bumped at every (re)connect: a database read started in an older epoch may
        predate a notification this listener never heard."""
        self._lock = threading.Lock()
        self._versions: OrderedDict[str, int] = OrderedDict()
        self._turns: dict[str, tuple[int, int]] = {}
        """match id -> (turn, deadline in epoch milliseconds, 0 for none)."""
        self._seats: OrderedDict[str, tuple[int, list[tuple[int, str]]]] = OrderedDict()
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
                with psycopg.connect(
                    self.dsn, autocommit=True, application_name="basra-listen"
                ) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    conn.execute(f"LISTEN {self._ping_channel}")
                    with self._lock:  # anything heard before this LISTEN may be stale
                        self._versions.clear()
                        self._turns.clear()
                        self.epoch += 1
                    self.live = True
                    for note in conn.notifies():
                        if note.channel == self._ping_channel:
                            self._heard_ping(int(note.payload))
                            continue
                        match_id, version, *facts = note.payload.split(":")
                        turn = int(facts[0]) if facts else UNKNOWN
                        deadline = int(facts[1]) if len(facts) > 1 else 0
                        self.saw(match_id, int(version), turn, deadline)
            except Exception:  # lost the connection: fall back to the database, retry
                log.warning("version listener disconnected; retrying", exc_info=True)
            self.live = False
            self._wake_all()
            time.sleep(1.0)

    # --- map ---------------------------------------------------------------

    def saw(self, match_id: str, version: int, turn: int = UNKNOWN, deadline: int = 0) -> None:
        """Record that ``match_id`` is at ``version`` (or later), with ``turn`` to play
        until ``deadline`` (epoch ms, 0 for none); wake its long polls."""
        with self._lock:
            if self._versions.get(match_id, -1) < version:
                self._versions[match_id] = version
                self._versions.move_to_end(match_id)
                self._turns[match_id] = (turn, deadline)
                if len(self._versions) > _MAX_MATCHES:
                    gone, _ = self._versions.popitem(last=False)
                    self._turns.pop(gone, None)
            waiters = self._waiters.pop(match_id, [])
        for event in waiters:
            event.set()

    def saw_read(self, match_id: str, version: int, facts: tuple[int, int],
                  epoch: int) -> None:
        """Record a version read from the database in a read that started in ``epoch``."""
        if self.live and epoch == self.epoch:
            self.saw(match_id, version, *facts)

    def facts(self, match_id: str) -> tuple[int, int]:
        """The (turn, deadline ms) heard with the latest version ((UNKNOWN, 0) if none)."""
        with self._lock:
            return self._turns.get(match_id, (UNKNOWN, 0))

    def version(self, match_id: str) -> int | None:
        """The latest version heard, if the listener is live and has heard of the match."""
        if not self.live:
            return None
        with self._lock:
            return self._versions.get(match_id)

    def seats(self, match_id: str) -> tuple[int, list[tuple[int, str]]] | None:
        """A match's cached tenant and (seat, token hash) pairs; they never change once
        a match exists."""
        with self._lock:
            return self._seats.get(match_id)

    def remember_seats(self, match_id: str, tenant: int, seats: list[tuple[int, str]]) -> None:
        """Cache a match's tenant and seats."""
        with self._lock:
            self._seats[match_id] = (tenant, seats)
            if len(self._seats) > _MAX_MATCHES:
                self._seats.popitem(last=False)

    def wait(self, match_id: str, version: int, timeout: float) -> None:
        """Sleep until ``match_id`` passes ``version``, the listener drops, or timeout."""
        event = threading.Event()
        with self._lock:
            if self._versions.get(match_id, -1) != version:
                return
            self._waiters.setdefault(match_id, []).append(event)
        event.wait(timeout)
        with self._lock:
            waiting = self._waiters.get(match_id)
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
        """Wait until this board has heard every notification committed before this call;
        False if it cannot tell (not live, reconnected, or no answer within ``timeout``).

        PostgreSQL delivers notifications in commit order, so once the board hears a
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


_BOARDS: dict[str, VersionBoard] = {}
_BOARDS_LOCK = threading.Lock()


def board_for(dsn: str) -> VersionBoard:
    """This process's board for a PostgreSQL database (started on first use)."""
    with _BOARDS_LOCK:
        board = _BOARDS.get(dsn)
        if board is None:
            board = _BOARDS[dsn] = VersionBoard(dsn)
        return board


