"""Match versions, end to end: NOTIFY on a change, this process's LISTEN board, and
what a poll needs (:func:`peek`, :func:`wait_for_change`, :func:`settled`), with the
database as the fallback; and the seat tokens a poll is checked against.

Every change's transaction sends ``NOTIFY basra_versions,
'<match id>:<version>:<turn>:<deadline ms>'`` (turn -1 once the match is over,
deadline 0 with no clock running); PostgreSQL delivers it on commit to every
listening process of every instance. Each process keeps one listening connection
(started on first use) and a bounded map of the versions it has heard, so a poll
whose ETag is current is answered without a query, and a long poll sleeps until its
match's notification arrives instead of querying in a loop.

The map is only a hint kept fresh by the database: while the listener is not
connected (and always on SQLite) callers fall back to reading the database.
Versions only grow, so a late database read never overwrites a newer one.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar, cast

import psycopg
from flask import current_app
from sqlalchemy import func, select, text

from ..errors import InvalidToken, MatchNotFound, MissingToken
from ..storage.db import backend, db, has_replica, libpq_conninfo, read_fresh, transaction
from ..storage.errors import DatabaseUnavailable
from ..storage.models import Match, Seat, as_utc

CHANNEL = "basra_versions"
NOBODY = -1
"""The turn of a match that is over: nobody is to play."""
UNKNOWN = -2
"""A turn this process has not heard of."""
UNSETTLED = -3
"""The version :func:`settled` gives when it cannot prove a version current."""
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
        self._seats: OrderedDict[str, tuple[int, list[SeatKey]]] = OrderedDict()
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

    def seats(self, match_id: str) -> tuple[int, list[SeatKey]] | None:
        """A match's cached tenant and seat keys; they never change once a match has
        started."""
        with self._lock:
            return self._seats.get(match_id)

    def remember_seats(self, match_id: str, tenant: int, seats: list[SeatKey]) -> None:
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


# --- one read for a crowd ------------------------------------------------------

PATIENCE = 5.0
"""The longest the others wait for the first read, seconds; then they read themselves."""
T = TypeVar("T")


class SingleFlight:
    """The keys being read right now, each by its first asker (Go's singleflight): the
    requests of this process that need the same thing from the database at the same
    moment (the spectators a move wakes together, or that connect to a match at once)
    share the first one's read instead of each making their own."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reading: dict[Hashable, tuple[threading.Event, list[Any]]] = {}

    def do(self, key: Hashable, read: Callable[[], T]) -> T:
        """``read()``'s result for ``key``: the first to ask runs it; those that ask while
        it runs wait for it and get the same result. If it raised, or took longer than
        :data:`PATIENCE`, each of them reads for itself."""
        with self._lock:
            reading = self._reading.get(key)
            if reading is None:
                reading = self._reading[key] = (threading.Event(), [])
                mine = True
            else:
                mine = False
        done, result = reading
        if not mine:
            if done.wait(PATIENCE) and result:
                return cast(T, result[0])
            return read()
        try:
            value = read()
            result.append(value)
            return value
        finally:
            with self._lock:
                del self._reading[key]
            done.set()


# --- seat tokens and player tokens -------------------------------------------------
# A seat is its token: only its SHA-256 is stored, and the board keeps the hashes of a
# match's seats, so a poll finds its seat with no query. A seat whose player the front
# end vouched for also answers that player's tokens (checked by the players domain
# before they come here, as a PlayerProof).

SeatKey = tuple[int, str, str | None]
"""(seat, token hash, vouched player id or None) of a taken seat."""
SeatHashes = Sequence[SeatKey]


@dataclass(frozen=True)
class PlayerProof:
    """A verified player token: the front end vouches that the bearer is ``player_id``."""

    player_id: str
    name: str | None = None


Credential = str | PlayerProof
"""What a bearer shows: a seat token, or a player's proof."""


def hash_token(token: str) -> str:
    """SHA-256 of a seat token: only this is stored."""
    return hashlib.sha256(token.encode()).hexdigest()


def seat_of(seats: SeatHashes, token: Credential | None) -> int | None:
    """The seat a bearer belongs to, or None without a token (a spectator)."""
    return require_seat(seats, token) if token else None


def require_seat(seats: SeatHashes, token: Credential | None) -> int:
    """The seat of a credential that must be sent: a seat token's (every seat is
    compared, no early exit, so timing tells nothing about the hashes), or the seat of
    the vouched player a player token proves."""
    if not token:
        raise MissingToken("send the seat token as 'Authorization: Bearer <token>'")
    found = None
    if isinstance(token, PlayerProof):
        found = next((seat for seat, _, player in seats if player == token.player_id), None)
        if found is None:
            raise InvalidToken("this player holds no seat of this match")
        return found
    digest = hash_token(token)
    for seat, token_hash, _ in seats:
        if hmac.compare_digest(token_hash, digest):
            found = seat
    if found is None:
        raise InvalidToken("this token is not a seat of this match")
    return found


# --- the service's use of the board ----------------------------------------------


def _board() -> VersionBoard | None:
    """This process's board, on PostgreSQL with BASRA_LISTEN on (else None)."""
    ext = current_app.extensions
    if "basra_board_dsn" not in ext:
        listen = current_app.config.get("BASRA_LISTEN", True)
        ext["basra_board_dsn"] = (
            libpq_conninfo() if listen and backend() == "postgresql" else None)
    dsn = ext["basra_board_dsn"]
    return board_for(dsn) if dsn else None


def _facts(status: str, turn: int | None, deadline: datetime | None) -> tuple[int, int]:
    """(turn, deadline ms) as the board keeps them: turn UNKNOWN while waiting for
    players (anything may change), NOBODY once over; deadline 0 for none."""
    if status == "waiting":
        return UNKNOWN, 0
    ms = 0
    if deadline is not None and status == "active":
        ms = int(as_utc(deadline).timestamp() * 1000)
    return (NOBODY if turn is None else turn), ms


def _match_facts(match: Match) -> tuple[int, int]:
    return _facts(match.status, match.turn, match.deadline)


def publish(match: Match) -> None:
    """NOTIFY every instance of the match's new version (the seat to play, its deadline)
    when this transaction commits; a version the saving statement announced already
    (:func:`announcement`) is not announced twice."""
    if backend() == "postgresql" and db.session.info.get(_ANNOUNCED) != (match.id, match.version):
        db.session.execute(select(func.pg_notify(CHANNEL, _payload(match.id, match.version,
                                                                   *_match_facts(match)))))


def announcement(match_id: str, version: int, status: str, turn: int | None,
                 deadline: datetime | None) -> str | None:
    """On PostgreSQL, the payload of the NOTIFY of a version about to be saved, for the
    saving statement to send (one round trip fewer than :func:`publish`'s own
    statement); None elsewhere. Call :func:`announced` once the statement has saved it."""
    if backend() != "postgresql":
        return None
    return _payload(match_id, version, *_facts(status, turn, deadline))


def announced(match_id: str, version: int) -> None:
    """The saving statement sent the NOTIFY of this version: :func:`publish` skips it."""
    db.session.info[_ANNOUNCED] = (match_id, version)


_ANNOUNCED = "basra_announced"
"""Session info: the (match id, version) the last saving UPDATE announced."""


def _payload(match_id: str, version: int, turn: int, deadline: int) -> str:
    return f"{match_id}:{version}:{turn}:{deadline}"


def saw(match: Match) -> None:
    """Tell this process's board of a version just committed (NOTIFY tells the others)."""
    board = _board()
    if board is not None:
        board.saw(match.id, match.version, *_match_facts(match))


def _read_version(match_id: str, at_least: int = -1) -> tuple[int, tuple[int, int]]:
    """The match's version and facts from the database, never older than ``at_least``
    (a standby behind that is passed over for the primary)."""
    return read_fresh(lambda: _read_version_now(match_id), lambda read: read[0] >= at_least)


def _read_version_now(match_id: str) -> tuple[int, tuple[int, int]]:
    with transaction():
        row = db.session.execute(
            select(Match.version, Match.status, Match.turn, Match.deadline)
            .where(Match.id == match_id)
        ).first()
    if row is None:
        raise MatchNotFound(f"no match with id {match_id!r}")
    return row[0], _facts(row[1], row[2], row[3])


def _current(board: VersionBoard | None, match_id: str,
             at_least: int = -1) -> tuple[int, tuple[int, int]]:
    """The version and (turn, deadline) from the board while it is live and knows the
    match, else from the database (remembered on the board), never older than
    ``at_least``."""
    if board is not None and board.live:
        known = board.version(match_id)
        if known is not None:
            return known, board.facts(match_id)
    epoch = board.epoch if board else 0
    version, facts = _read_version(match_id, at_least)
    if board is not None:
        _note_read(board, match_id, version, facts, epoch)
    return version, facts


def _note_read(board: VersionBoard, match_id: str, version: int, facts: tuple[int, int],
               epoch: int) -> None:
    """Tell the board of a version read from the database; not one that may have come
    from a standby, which can be older than a notification the board missed while it
    reconnected (the board then learns the match from its next notification)."""
    if not has_replica():
        board.saw_read(match_id, version, facts, epoch)


@dataclass(frozen=True)
class Peek:
    """What a poll needs of a match, without loading it."""

    version: int
    turn: int
    """The seat to play: NOBODY once over, UNKNOWN if not known (or waiting)."""
    deadline: int
    """When that seat runs out of time, epoch milliseconds; 0 for no clock running."""
    seats: list[SeatKey]
    """(seat, token hash, vouched player) of the taken seats."""

    def seat_of(self, token: Credential | None) -> int | None:
        """The seat of a bearer token, None without one (a spectator); a token of no
        seat here is :class:`InvalidToken`."""
        return seat_of(self.seats, token)


_first_reads = SingleFlight()
"""Matches whose seats a request of this process is reading for the board right now."""


def peek(match_id: str, tenant: int, at_least: int = -1) -> Peek:
    """A tenant's match's version, turn, deadline and seats without loading the match;
    another tenant's match is not found. Never older than ``at_least`` (a version the
    client holds): a standby that is behind is passed over for the primary.

    On PostgreSQL both usually come from this process's board, with no query. The
    requests that find a match new to the board together (its spectators, connecting
    at once) share the first one's read instead of each reading.
    """
    board = _board()
    known = board.seats(match_id) if board else None
    if known is not None:
        assert board is not None
        if known[0] != tenant:
            raise MatchNotFound(f"no match with id {match_id!r}")
        version, (turn, deadline) = _current(board, match_id, at_least)
        return Peek(version, turn, deadline, known[1])
    if board is None:
        owner, peeked = _read_peek(None, match_id, at_least)
    else:
        owner, peeked = _first_reads.do(match_id,
                                        lambda: _read_peek(board, match_id, at_least))
    if owner != tenant:
        raise MatchNotFound(f"no match with id {match_id!r}")
    return peeked


def _read_peek(board: VersionBoard | None, match_id: str,
               at_least: int = -1) -> tuple[int, Peek]:
    """The match's tenant and :func:`peek` from the database (a standby that has it at
    ``at_least`` or later, else the primary), remembering the seats on the board."""
    epoch = board.epoch if board else 0
    rows = read_fresh(lambda: _peek_rows(match_id), lambda rows: rows[0][0] >= at_least)
    version, facts, tenant = rows[0][0], _facts(rows[0][1], rows[0][2], rows[0][3]), rows[0][4]
    seats = [(r[5], r[6], r[7] if r[8] else None) for r in rows if r[6] is not None]
    if board:
        if rows[0][1] != "waiting":  # seats change only while a match waits for players
            board.remember_seats(match_id, tenant, seats)
        _note_read(board, match_id, version, facts, epoch)
    return tenant, Peek(version, facts[0], facts[1], seats)


def _peek_rows(match_id: str) -> Sequence[Any]:
    with transaction():
        rows = db.session.execute(
            select(Match.version, Match.status, Match.turn, Match.deadline, Match.tenant_pk,
                   Seat.seat, Seat.token_hash, Seat.player_id, Seat.vouched)
            .join(Seat, Seat.match_pk == Match.pk)
            .where(Match.id == match_id)
        ).all()
    if not rows:
        raise MatchNotFound(f"no match with id {match_id!r}")
    return rows


def settled(match_id: str, version: int) -> int:
    """The match's version as :func:`peek` or :func:`wait_for_change` gave it, made safe to
    answer a 304 with: a version from this process's board is trusted only once the
    board has heard every notification committed before now (else the primary is
    read), so a 304 never hides a move another instance acknowledged. While the primary
    does not answer and standbys are configured: :data:`UNSETTLED`."""
    board = _board()
    if board is None:
        return version  # it was read from the database just now
    if board.settle():
        known = board.version(match_id)
        if known is not None:
            return known
    epoch = board.epoch
    try:  # only the primary can tell that nothing newer was committed
        current, facts = _read_version_now(match_id)
    except DatabaseUnavailable:
        if not has_replica():
            raise
        return UNSETTLED  # the primary is gone: the client gets the view, never a 304
    board.saw_read(match_id, current, facts, epoch)
    return current


def wait_for_change(match_id: str, version: int, timeout: float) -> int:
    """Block until the match is past ``version`` or the wait (capped by BASRA_MAX_WAIT)
    ends; returns the version then.

    On PostgreSQL it sleeps until the match's NOTIFY arrives (from any instance);
    otherwise, while this process's listener is still connecting, or while the board has
    not heard of the match since it connected, it polls the database in short
    transactions, holding no connection while it sleeps.
    """
    config = current_app.config
    deadline = time.monotonic() + min(timeout, config["BASRA_MAX_WAIT"])
    interval = config["BASRA_POLL_INTERVAL"]
    board = _board()
    while True:
        left = deadline - time.monotonic()
        current = _current(board, match_id, version)[0]
        if current != version or left <= 0:
            return current
        if board is not None and board.live and board.version(match_id) is not None:
            board.wait(match_id, version, left)
        else:
            # a listener that is still connecting will be live within moments
            time.sleep(min(interval, left, 0.25 if board is not None else interval))


# --- other things that change: a key and a number that grows -----------------------
# A player's event stream is woken the same way as a match's long polls: the change's
# transaction sends ``NOTIFY basra_versions, '<key>:<number>'`` and this process's
# board wakes whoever waits on the key. The key never holds a colon.


def heard(key: str) -> int:
    """The latest number this process's board heard for ``key`` (-1: none, or no live
    board): pass it to :func:`wait_for_key` before reading what it guards."""
    board = _board()
    known = board.version(key) if board is not None else None
    return -1 if known is None else known


def wait_for_key(key: str, heard_before: int, timeout: float) -> None:
    """Sleep until the board hears ``key`` past ``heard_before`` (its number read before
    the caller's last database read, so nothing committed since is missed) or
    ``timeout`` ends; without a live board, at most BASRA_POLL_INTERVAL (the caller
    reads the database again)."""
    board = _board()
    if board is not None and board.live:
        board.wait(key, heard_before, timeout)
    else:
        time.sleep(min(timeout, current_app.config["BASRA_POLL_INTERVAL"]))


def notify_keys(numbers: Sequence[tuple[str, int]]) -> None:
    """Tell every process's board that each key reached its number when the caller's
    transaction commits, in one statement (PostgreSQL; nothing elsewhere: there, waiters
    poll)."""
    if numbers and backend() == "postgresql":
        db.session.execute(_NOTIFY_ALL, {"channel": CHANNEL,
                                         "payloads": [f"{k}:{n}" for k, n in numbers]})


_NOTIFY_ALL = text("SELECT count(pg_notify(:channel, p)) "
                   "FROM unnest(CAST(:payloads AS text[])) AS p")
