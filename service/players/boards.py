"""Records and leaderboards: a player's ratings and totals, their rating after each rated
match, and each pool's players by ordinal (mu - 3 sigma), highest first.

A leaderboard lists the pool's players with at least ``BASRA_LEADERBOARD_MIN_GAMES``
rated games, one of them within ``BASRA_LEADERBOARD_ACTIVE_DAYS``; it pages by keyset
(ordinal, then player) on the ``(pool, ordinal)`` index, never by offset.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, case, func, or_, select

from ..engine.rules import TEAMS
from ..storage.db import db, transaction
from ..storage.models import Match, Player, Rating, RatingChange, Seat, as_utc, utcnow
from .errors import BadBoardCursor, PlayerNotFound


@dataclass(frozen=True)
class Listing:
    """Who a leaderboard lists: enough rated games, one of them lately."""

    min_games: int
    active_since: datetime

    @classmethod
    def of(cls, min_games: int, active_days: int) -> Listing:
        return cls(min_games, utcnow() - timedelta(days=active_days))

    def where(self, tenant: int, pool: str) -> Any:
        """The listed ratings of one front end's pool (on the ix_ratings_board index)."""
        return and_(Rating.tenant_pk == tenant, Rating.pool == pool,
                    Rating.games >= self.min_games, Rating.rated_at >= self.active_since)


@dataclass(frozen=True)
class PoolRating:
    """A player's rating in one pool."""

    pool: str
    mu: float
    sigma: float
    ordinal: float
    games: int
    provisional: bool
    """Fewer rated games than a leaderboard needs."""
    rank: int | None
    """The place on the pool's leaderboard (None: not listed)."""


@dataclass(frozen=True)
class Totals:
    """A player's matches, won, lost, resigned (and lost) and timed out (and lost)."""

    matches: int
    wins: int
    losses: int
    draws: int
    resigned: int
    timed_out: int


@dataclass(frozen=True)
class Record:
    """A player's record."""

    player_id: str
    name: str | None
    created_at: datetime
    ratings: list[PoolRating]
    totals: Totals


def _player(tenant: int, player_id: str) -> Player:
    found = db.session.execute(select(Player).where(
        Player.tenant_pk == tenant, Player.player_id == player_id)).scalar_one_or_none()
    if found is None:
        raise PlayerNotFound(f"no player {player_id!r}")
    return found


def _rank(tenant: int, rating: Rating, listing: Listing) -> int | None:
    """The rating's place on its pool's leaderboard (ties broken by player), if listed."""
    if rating.games < listing.min_games or rating.rated_at is None \
            or as_utc(rating.rated_at) < listing.active_since:
        return None
    above = db.session.scalar(select(func.count()).select_from(Rating).where(
        listing.where(tenant, rating.pool), _before(rating.ordinal, rating.player_pk)))
    return int(above or 0) + 1


def _before(ordinal: float, player_pk: int) -> Any:
    """Ratings listed before (ordinal, player) on a leaderboard."""
    return or_(Rating.ordinal > ordinal,
               and_(Rating.ordinal == ordinal, Rating.player_pk < player_pk))


def record(tenant: int, player_id: str, listing: Listing) -> Record:
    """A player's record: ratings per pool with their rank, and totals."""
    with transaction():
        player = _player(tenant, player_id)
        ratings = db.session.execute(select(Rating).where(Rating.player_pk == player.pk)
                                     .order_by(Rating.pool)).scalars().all()
        pools = [PoolRating(r.pool, r.mu, r.sigma, r.ordinal, r.games,
                            r.games < listing.min_games, _rank(tenant, r, listing))
                 for r in ratings]
        mine = and_(Seat.match_pk == Match.pk, Seat.player_id == player_id,
                    Seat.vouched.is_(True), Match.tenant_pk == tenant)
        over = Match.status == "finished"
        won = and_(over, Match.draw.is_(False), Match.winner == Seat.seat % TEAMS)
        lost = and_(over, Match.draw.is_(False), Match.winner != Seat.seat % TEAMS)
        row = db.session.execute(select(
            func.count(),
            func.sum(case((won, 1), else_=0)),
            func.sum(case((lost, 1), else_=0)),
            func.sum(case((and_(over, Match.draw.is_(True)), 1), else_=0)),
            func.sum(case((and_(lost, Match.end_reason == "resigned"), 1), else_=0)),
            func.sum(case((and_(lost, Match.end_reason == "timeout"), 1), else_=0)),
        ).select_from(Seat).join(Match, mine)).one()
        totals = Totals(*(int(v or 0) for v in row))
        return Record(player.player_id, player.name, player.created_at, pools, totals)


@dataclass(frozen=True)
class RatingPoint:
    """A player's rating after one rated match."""

    match_id: str
    at: datetime
    mu: float
    sigma: float
    ordinal: float


def rating_history(tenant: int, player_id: str, pool: str) -> list[RatingPoint]:
    """The player's rating after each rated match of ``pool``, oldest first."""
    with transaction():
        player = _player(tenant, player_id)
        rows = db.session.execute(
            select(Match.id, RatingChange.at, RatingChange.mu, RatingChange.sigma,
                   RatingChange.ordinal)
            .join(Match, Match.pk == RatingChange.match_pk)
            .where(RatingChange.player_pk == player.pk, RatingChange.pool == pool)
            .order_by(RatingChange.pk)).all()
    return [RatingPoint(*row) for row in rows]


@dataclass(frozen=True)
class Entry:
    """One line of a leaderboard."""

    rank: int
    player_id: str
    name: str | None
    ordinal: float
    mu: float
    sigma: float
    games: int


@dataclass(frozen=True)
class Board:
    """A page of a leaderboard, the cursor of the next, and (around a player) their place."""

    pool: str
    entries: list[Entry]
    next: str | None
    rank: int | None = None
    percentile: float | None = None
    """The share of listed players the one asked about is at or above, in percent."""


def _sign(key: bytes, text: str) -> str:
    return base64.urlsafe_b64encode(hmac.new(key, text.encode(), hashlib.sha256)
                                    .digest()[:12]).decode()


def _cursor(key: bytes, entry: Entry, pk: int) -> str:
    text = f"b:{entry.rank}:{pk}:{entry.ordinal!r}"
    return base64.urlsafe_b64encode(f"{text}|{_sign(key, text)}".encode()).decode().rstrip("=")


def _uncursor(key: bytes, cursor: str) -> tuple[int, int, float]:
    try:
        token = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        text, _, signature = token.rpartition("|")
        if not hmac.compare_digest(signature, _sign(key, text)):
            raise ValueError("not signed here")
        kind, rank, pk, ordinal = text.split(":")
        if kind != "b":
            raise ValueError(kind)
        return int(rank), int(pk), float(ordinal)
    except (ValueError, UnicodeDecodeError) as error:
        raise BadBoardCursor("the cursor is not one this service issued", field="cursor",
                             problem="unknown cursor") from error


def _entries(tenant: int, pool: str, listing: Listing, after: tuple[float, int] | None,
             limit: int, first_rank: int) -> tuple[list[Entry], list[int]]:
    stmt = (select(Rating, Player.player_id, Player.name)
            .join(Player, Player.pk == Rating.player_pk)
            .where(listing.where(tenant, pool)))
    if after is not None:
        ordinal, pk = after
        stmt = stmt.where(or_(Rating.ordinal < ordinal,
                              and_(Rating.ordinal == ordinal, Rating.player_pk > pk)))
    rows = db.session.execute(stmt.order_by(Rating.ordinal.desc(), Rating.player_pk)
                              .limit(limit)).all()
    entries = [Entry(first_rank + i, player_id, name, r.ordinal, r.mu, r.sigma, r.games)
               for i, (r, player_id, name) in enumerate(rows)]
    return entries, [r.player_pk for r, _, _ in rows]


def leaderboard(tenant: int, pool: str, listing: Listing, key: bytes, *,
                cursor: str | None = None, around: str | None = None,
                limit: int = 20) -> Board:
    """A page of ``pool``'s leaderboard: the first, the one after ``cursor``, or the one
    around player ``around`` (with their rank and percentile)."""
    with transaction():
        if around is None:
            start = _uncursor(key, cursor) if cursor else None
            entries, pks = _entries(tenant, pool, listing,
                                    (start[2], start[1]) if start else None, limit + 1,
                                    start[0] + 1 if start else 1)
            more = len(entries) > limit
            entries, pks = entries[:limit], pks[:limit]
            nxt = _cursor(key, entries[-1], pks[-1]) if more and entries else None
            return Board(pool, entries, nxt)
        player = _player(tenant, around)
        mine = db.session.get(Rating, (player.pk, pool))
        rank = _rank(tenant, mine, listing) if mine is not None else None
        if mine is None or rank is None:
            raise PlayerNotFound(f"player {around!r} is not on the {pool} leaderboard")
        listed = int(db.session.scalar(select(func.count()).select_from(Rating).where(
            listing.where(tenant, pool))) or 0)
        above = limit // 2
        # the `above` entries before the player, then the player and those after
        before = db.session.execute(
            select(Rating.ordinal, Rating.player_pk)
            .where(listing.where(tenant, pool), _before(mine.ordinal, mine.player_pk))
            .order_by(Rating.ordinal, Rating.player_pk.desc()).limit(above + 1)).all()
        skip = min(above, len(before))
        start_after = (before[skip][0], before[skip][1]) if len(before) > skip else None
        entries, pks = _entries(tenant, pool, listing, start_after, limit + 1, rank - skip)
        more = len(entries) > limit
        entries, pks = entries[:limit], pks[:limit]
        nxt = _cursor(key, entries[-1], pks[-1]) if more and entries else None
        return Board(pool, entries, nxt, rank, round(100.0 * (listed - rank + 1) / listed, 1))
