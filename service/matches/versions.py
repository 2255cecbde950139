"""A match's versions for pollers: NOTIFY on each change, :func:`peek` and
:func:`wait_for_change` from this process's LISTEN board (:mod:`service.live.board`),
with the database as the fallback.

Every change's transaction sends ``NOTIFY basra_versions,
'<match id>:<version>:<turn>:<deadline ms>'`` (turn -1 once the match is over,
deadline 0 with no clock running); PostgreSQL delivers it on commit to every
listening process of every instance. The board is only a hint kept fresh by the
database: while its listener is not connected (and always on SQLite) callers read
the database. Versions only grow, so a late database read never overwrites a newer one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime

from flask import current_app
from sqlalchemy import func, select
from sqlalchemy.engine import make_url

from ..live.board import CHANNEL, NOBODY, UNKNOWN, VersionBoard, board_for
from ..live.single_flight import SingleFlight
from ..storage.db import backend, db, transaction
from ..storage.models import Match, Seat, as_utc
from .errors import MatchNotFound

# --- the service's use of it ------------------------------------------------------


def _board() -> VersionBoard | None:
    """This process's board, on PostgreSQL with BASRA_LISTEN on (else None)."""
    ext = current_app.extensions
    if "basra_board_dsn" not in ext:
        url = make_url(current_app.config["SQLALCHEMY_DATABASE_URI"])
        listen = current_app.config.get("BASRA_LISTEN", True)
        ext["basra_board_dsn"] = (
            url.set(drivername="postgresql").render_as_string(hide_password=False)
            if listen and url.get_backend_name() == "postgresql" else None
        )
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


def _read_version(match_id: str) -> tuple[int, tuple[int, int]]:
    with transaction():
        row = db.session.execute(
            select(Match.version, Match.status, Match.turn, Match.deadline)
            .where(Match.id == match_id)
        ).first()
    if row is None:
        raise MatchNotFound(f"no match with id {match_id!r}")
    return row[0], _facts(row[1], row[2], row[3])


def _current(board: VersionBoard | None, match_id: str) -> tuple[int, tuple[int, int]]:
    """The version and (turn, deadline) from the board while it is live and knows the
    match, else from the database (remembered on the board)."""
    if board is not None and board.live:
        known = board.version(match_id)
        if known is not None:
            return known, board.facts(match_id)
    epoch = board.epoch if board else 0
    version, facts = _read_version(match_id)
    if board is not None:
        board.saw_read(match_id, version, facts, epoch)
    return version, facts


@dataclass(frozen=True)
class Peek:
    """What a poll needs of a match, without loading it."""

    version: int
    turn: int
    """The seat to play: NOBODY once over, UNKNOWN if not known (or waiting)."""
    deadline: int
    """When that seat runs out of time, epoch milliseconds; 0 for no clock running."""
    seats: list[tuple[int, str]]
    """(seat, token hash) of the taken seats."""


_first_reads = SingleFlight()
"""Matches whose seats a request of this process is reading for the board right now."""


def peek(match_id: str, tenant: int) -> Peek:
    """A tenant's match's version, turn, deadline and seats without loading the match;
    another tenant's match is not found.

    On PostgreSQL both usually come from this process's board, with no query. The
    requests that find a match new to the board together (its spectators, connecting
    at once) wait for the first one's read instead of each reading.
    """
    board = _board()
    known = board.seats(match_id) if board else None
    if known is None and board is not None:
        with _first_reads.first(match_id) as mine:
            if mine:
                return _read_peek(board, match_id, tenant)
        known = board.seats(match_id)  # still None while the match waits for players
    if known is not None:
        assert board is not None
        if known[0] != tenant:
            raise MatchNotFound(f"no match with id {match_id!r}")
        version, (turn, deadline) = _current(board, match_id)
        return Peek(version, turn, deadline, known[1])
    return _read_peek(board, match_id, tenant)


def _read_peek(board: VersionBoard | None, match_id: str, tenant: int) -> Peek:
    """:func:`peek` from the database, remembering the seats on the board."""
    epoch = board.epoch if board else 0
    with transaction():
        rows = db.session.execute(
            select(Match.version, Match.status, Match.turn, Match.deadline, Match.tenant_pk,
                   Seat.seat, Seat.token_hash)
            .join(Seat, Seat.match_pk == Match.pk)
            .where(Match.id == match_id)
        ).all()
    if not rows or rows[0][4] != tenant:
        raise MatchNotFound(f"no match with id {match_id!r}")
    version, facts = rows[0][0], _facts(rows[0][1], rows[0][2], rows[0][3])
    seats = [(r[5], r[6]) for r in rows if r[6] is not None]
    if board:
        if rows[0][1] != "waiting":  # seats change only while a match waits for players
            board.remember_seats(match_id, tenant, seats)
        board.saw_read(match_id, version, facts, epoch)
    return Peek(version, facts[0], facts[1], seats)


def settled(match_id: str, version: int) -> int:
    """The match's version as :func:`peek` or :func:`wait_for_change` gave it, made safe to
    answer a 304 with: a version from this process's board is trusted only once the
    board has heard every notification committed before now (else the database is
    read), so a 304 never hides a move another instance acknowledged."""
    board = _board()
    if board is None:
        return version  # it was read from the database just now
    if board.settle():
        known = board.version(match_id)
        if known is not None:
            return known
    epoch = board.epoch
    current, facts = _read_version(match_id)
    board.saw_read(match_id, current, facts, epoch)
    return current


def wait_for_change(match_id: str, version: int, timeout: float) -> int:
    """Block until the match is past ``version`` or the wait (capped by BASRA_MAX_WAIT)
    ends; returns the version then.

    On PostgreSQL it sleeps until the match's NOTIFY arrives (from any instance);
    otherwise, or while this process's listener is still connecting, it polls the
    database in short transactions, holding no connection while it sleeps.
    """
    config = current_app.config
    deadline = time.monotonic() + min(timeout, config["BASRA_MAX_WAIT"])
    interval = config["BASRA_POLL_INTERVAL"]
    board = _board()
    while True:
        left = deadline - time.monotonic()
        current = _current(board, match_id)[0]
        if current != version or left <= 0:
            return current
        if board is not None and board.live:
            board.wait(match_id, version, left)
        else:
            # a listener that is still connecting will be live within moments
            time.sleep(min(interval, left, 0.25 if board is not None else interval))
