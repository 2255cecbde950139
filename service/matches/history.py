"""A front end's match history: its listing filtered and paged by signed keyset cursors,
newest first, read as rows (a page is read, never changed)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, exists, literal_column, or_, select
from sqlalchemy.orm import aliased

from ..engine import team_of
from ..storage import cursors
from ..storage.base import as_utc
from ..storage.db import read_rows
from .enums import EndReason, MatchStatus
from .errors import InvalidCursor
from .models import Match, Seat
from .results import MatchSummary, SeatInfo, voided


def encode_cursor(match_id: str, key: bytes) -> str:
    """An opaque cursor for keyset pagination, signed with ``key``: the id of the page's
    last match (public already), never a row number that would count the service's
    matches."""
    return cursors.sign("m", match_id, key)


def decode_cursor(cursor: str, key: bytes) -> str:
    """The id of the match a cursor this service signed points below."""
    try:
        match_id = cursors.read("m", cursor, key)
        if not (0 < len(match_id) <= 36 and match_id.isascii()):
            raise ValueError(match_id)
        return match_id
    except ValueError as exc:
        raise InvalidCursor(
            "the cursor is not one this service issued", field="cursor", problem="unknown cursor"
        ) from exc


@dataclass(frozen=True)
class HistoryQuery:
    """Filters and page of one tenant's match history."""

    tenant: int
    player: str | None = None
    player_id: str | None = None
    """Only the matches of this player, as a vouched seat."""
    rated: bool | None = None
    variant: str | None = None
    status: MatchStatus | None = None
    since: datetime | None = None
    until: datetime | None = None
    cursor: str | None = None
    limit: int = 20


_BEFORE_SEATS = (Match.id, Match.variant, Match.status, Match.version, Match.rules_hash,
                 Match.scores, Match.winner, Match.draw)
_AFTER_SEATS = (Match.created_at, Match.finished_at, Match.end_reason, Match.rounds,
                Match.rated, Match.rating_changes, Match.voided_at, Match.void_reason,
                Match.sealed, Match.spectator_delay)
""":class:`MatchSummary`'s fields before its seats and after them (with what says whether
it delays its spectators: :func:`.seats.spectates` reads it)."""
_SEAT = 1 + len(_BEFORE_SEATS) + len(_AFTER_SEATS)
"""Where a listing row's seat columns start (after the pk and the summary's)."""

_FILTERS = {
    "player": lambda: exists().where(Seat.match_pk == Match.pk, or_(
        Seat.name == bindparam("player"), Seat.player_id == bindparam("player"))),
    "rated": lambda: Match.rated == bindparam("rated"),
    "variant": lambda: Match.variant == bindparam("variant"),
    "status": lambda: Match.status == bindparam("status"),
    "waiting_since": lambda: Match.created_at >= bindparam("waiting_since"),
    "since": lambda: Match.created_at >= bindparam("since"),
    "until": lambda: Match.created_at < bindparam("until"),
    "below": lambda: Match.pk < _below(),
}
"""Each filter of a history listing, on its parameter of the same name."""


def _below() -> Any:
    """The pk of the cursor's match (the ids' unique index): a page lists below it."""
    cursor_match = aliased(Match)
    return (select(cursor_match.pk).where(cursor_match.id == bindparam("below"))
            .scalar_subquery())


@lru_cache(maxsize=256)
def _history_statement(filters: tuple[str, ...], of_player: bool, rows: int) -> Any:
    """The listing's SELECT with these filters: its newest ``rows`` matches, each with its
    seats (a row per seat), in one statement built once per shape, its compiled form cached
    on it. The row count is written into the statement, not bound: PostgreSQL then plans a
    prepared listing once for every player (a bound LIMIT keeps it planning each call)."""
    where = [Match.tenant_pk == bindparam("tenant"), *(_FILTERS[f]() for f in filters)]
    if of_player:
        # a player's page is read from their seats, newest first (the seats' index), so
        # it costs their matches, not the front end's
        mine = [Seat.player_id == bindparam("player_id"), Seat.vouched.is_(True)]
        if "below" in filters:
            mine.append(Seat.match_pk < _below())
        page = (select(Seat.match_pk).join(Match, Match.pk == Seat.match_pk)
                .where(*mine, *where).group_by(Seat.match_pk).order_by(Seat.match_pk.desc()))
    else:
        page = select(Match.pk).where(*where).order_by(Match.pk.desc())
    listed = page.limit(literal_column(str(rows))).correlate(None)
    return (select(Match.pk, *_BEFORE_SEATS, *_AFTER_SEATS, Seat.seat, Seat.name,
                   Seat.player_id, Seat.bot, Seat.vouched)
            .join(Seat, Seat.match_pk == Match.pk).where(Match.pk.in_(listed))
            .order_by(Match.pk.desc(), Seat.seat))


def history(query: HistoryQuery, cursor_key: bytes,
            waiting_since: datetime | None = None) -> tuple[list[MatchSummary], str | None]:
    """Matches newest first, filtered; keyset pagination on the primary key (no OFFSET),
    with cursors signed by ``cursor_key``; waiting matches made before ``waiting_since``
    (expired) are left out of a ``waiting`` listing. Only the listing's columns, as rows
    (a page is read, never changed)."""
    q = query
    params: dict[str, Any] = {
        "player": q.player, "rated": q.rated, "variant": q.variant or None,
        "status": q.status or None,
        "waiting_since": waiting_since if q.status == MatchStatus.WAITING else None,
        "since": q.since.astimezone(UTC) if q.since else None,
        "until": q.until.astimezone(UTC) if q.until else None,
        "below": decode_cursor(q.cursor, cursor_key) if q.cursor else None,
    }
    params = {name: value for name, value in params.items() if value is not None}
    stmt = _history_statement(tuple(params), bool(q.player_id), q.limit + 1)
    params["tenant"] = q.tenant
    if q.player_id:
        params["player_id"] = q.player_id
    found: dict[int, tuple[Sequence[Any], list[tuple[SeatInfo, bool]]]] = {}
    for r in read_rows(stmt, params):
        pk, (seat, name, player_id, bot, vouched) = r[0], r[_SEAT:]
        found.setdefault(pk, (r, []))[1].append(
            (SeatInfo(seat, team_of(seat), name, player_id, bot, name is None), vouched))
    rows = list(found.items())
    more = len(rows) > q.limit
    rows = rows[: q.limit]
    summaries = [_summary(r, seats) for _, (r, seats) in rows]
    return summaries, encode_cursor(summaries[-1].id, cursor_key) if more and rows else None


def _summary(r: Sequence[Any], seats: Sequence[tuple[SeatInfo, bool]]) -> MatchSummary:
    """A listing row (the pk, then :data:`_BEFORE_SEATS` and :data:`_AFTER_SEATS`), as it
    is (the use case shows it to its caller: :func:`.seats.spectates`)."""
    (_, match_id, variant, status, version, rules_hash, scores, winner, draw, created_at,
     finished_at, end_reason, rounds, rated, rating_changes, voided_at, void_reason,
     sealed, spectator_delay) = r[:_SEAT]
    return MatchSummary(
        match_id, variant, MatchStatus(status), version, rules_hash, scores, winner, draw,
        tuple(seat for seat, _ in seats), as_utc(created_at),
        as_utc(finished_at) if finished_at else None,
        EndReason(end_reason) if end_reason else None, rounds, rated, rating_changes,
        voided(as_utc(voided_at) if voided_at else None, void_reason), bool(sealed),
        spectator_delay, tuple(s.player_id for s, vouched in seats
                               if vouched and s.player_id is not None))
