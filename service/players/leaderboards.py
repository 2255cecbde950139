"""Records and leaderboards: a player's ratings and totals, their rating after each rated
match, and each pool's players by rating (mu, the number shown), highest first.

A leaderboard lists the pool's players with at least ``BASRA_LEADERBOARD_MIN_GAMES``
rated games, one of them within ``BASRA_LEADERBOARD_ACTIVE_DAYS``. Their places are
materialized: ``basra worker`` ranks every pool again every
``BASRA_LEADERBOARD_REFRESH_SECONDS`` (:func:`refresh_ranks`), so a page, a player's
place and the page around them are index look-ups (a rank counted at read time is a
scan of everyone above). The figures shown beside a rank are the live ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, bindparam, func, or_, select

from ..settings import Settings
from ..storage import cursors
from ..storage.base import utcnow
from ..storage.db import db, on_replica, read_rows, transaction
from . import service as players
from .errors import BadBoardCursor, PlayerNotFound
from .models import Player, Rating, RatingChange
from .ratings import MODEL


@dataclass(frozen=True)
class Listing:
    """Who a leaderboard lists: enough rated games, one of them lately."""

    min_games: int
    active_since: datetime

    @classmethod
    def of(cls, settings: Settings) -> Listing:
        """The listing BASRA_LEADERBOARD_MIN_GAMES and _ACTIVE_DAYS set, as of now."""
        return cls(settings.leaderboard_min_games, utcnow() - timedelta(
            days=settings.leaderboard_active_days))


@dataclass(frozen=True)
class PoolRating:
    """A player's rating in one pool."""

    pool: str
    mu: float
    sigma: float
    ordinal: float
    games: int
    rank: int | None
    """The place on the pool's leaderboard at its last ranking (None: not listed)."""


@dataclass(frozen=True)
class Totals:
    """A player's finished matches: won, lost, drawn, lost by resigning or by the clock,
    the basras and jack basras they made and their side's points."""

    matches: int
    wins: int
    losses: int
    draws: int
    resigned: int
    timed_out: int
    basras: int
    jack_basras: int
    points: int


@dataclass(frozen=True)
class Record:
    """A player's record."""

    player_id: str
    name: str | None
    created_at: datetime
    ratings: list[PoolRating]
    totals: Totals


_TOTALS = tuple(getattr(Player, f.name) for f in fields(Totals))
_RECORD = (
    select(Player.name, Player.created_at, *_TOTALS, Rating.pool, Rating.mu, Rating.sigma,
           Rating.ordinal, Rating.games, Rating.rank)
    .outerjoin(Rating, Rating.player_pk == Player.pk)
    .where(Player.tenant_pk == bindparam("tenant"), Player.player_id == bindparam("player"),
           players.KNOWN)
    .order_by(Rating.pool))
"""A player with their totals, a row per pool they are rated in (one row of nulls if
none)."""


@on_replica
def record(tenant: int, player_id: str, listing: Listing) -> Record:
    """A player's record: ratings per pool with their rank, and totals (one statement)."""
    with transaction():
        rows = read_rows(_RECORD, {"tenant": tenant, "player": player_id})
    if not rows:
        raise PlayerNotFound(f"no player {player_id!r}")
    name, created_at, *rest = rows[0]
    totals = Totals(*rest[:len(_TOTALS)])
    pools = [PoolRating(pool, mu, sigma, ordinal, games, rank)
             for pool, mu, sigma, ordinal, games, rank in (r[2 + len(_TOTALS):] for r in rows)
             if pool is not None]
    return Record(player_id, name, created_at, pools, totals)


@dataclass(frozen=True)
class RatingPoint:
    """A player's rating after one rated match."""

    match_id: str
    at: datetime
    mu: float
    sigma: float
    ordinal: float


MatchIds = Callable[[Iterable[int]], dict[int, str]]
"""Names matches by their keys, in the caller's transaction (the matches' use case)."""
_match_ids: MatchIds | None = None


def wire(match_ids: MatchIds) -> None:
    """Set who names a rating change's match (``create_app`` does: the matches sit above
    the players, and their rows are theirs)."""
    global _match_ids
    _match_ids = match_ids


@on_replica
def rating_history(tenant: int, player_id: str, pool: str) -> list[RatingPoint]:
    """The player's rating after each rated match of ``pool``, oldest first."""
    with transaction():
        player = players.vouched_player(tenant, player_id)
        rows = db.session.execute(
            select(RatingChange.match_pk, RatingChange.at, RatingChange.mu,
                   RatingChange.sigma, RatingChange.ordinal)
            .where(RatingChange.player_pk == player.pk, RatingChange.pool == pool)
            .order_by(RatingChange.pk)).all()
        assert _match_ids is not None, "create_app wires the matches' names"
        ids = _match_ids({row[0] for row in rows})
    return [RatingPoint(ids[match_pk], *rest) for match_pk, *rest in rows]


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
class Standing:
    """Where the player a leaderboard was asked around stands: their rating in the pool
    (the model's start before any rated game) and whether they are listed yet."""

    player_id: str
    mu: float
    sigma: float
    ordinal: float
    games: int
    listed: bool


@dataclass(frozen=True)
class LeaderboardPage:
    """A page of a leaderboard, the cursor of the next, and (around a player) their place."""

    pool: str
    entries: list[Entry]
    next: str | None
    rank: int | None = None
    percentile: float | None = None
    """The share of listed players the one asked about is at or above, in percent."""
    standing: Standing | None = None
    """Around a player: their own line, listed or not (then the page is the first)."""


def _cursor(key: bytes, rank: int) -> str:
    return cursors.sign("r", str(rank), key)


def _uncursor(key: bytes, cursor: str) -> int:
    try:
        return cursors.read_number("r", cursor, key, below=2**31)
    except ValueError as error:
        raise BadBoardCursor("the cursor is not one this service issued", field="cursor",
                             problem="unknown cursor") from error


_ENTRIES = (
    select(Rating.rank, Player.player_id, Player.name, Rating.ordinal, Rating.mu, Rating.sigma,
           Rating.games)
    .join(Player, Player.pk == Rating.player_pk)
    .where(Rating.tenant_pk == bindparam("tenant"), Rating.pool == bindparam("pool"),
           Rating.rank > bindparam("after"))
    .order_by(Rating.rank).limit(bindparam("limit")))
"""The listed players ranked after ``after`` (rows in :class:`Entry`'s order)."""

_PLACE = (
    select(Player.pk, Rating.rank, select(func.max(Rating.rank)).where(
        Rating.tenant_pk == bindparam("tenant"), Rating.pool == bindparam("pool"),
    ).scalar_subquery(), Rating.mu, Rating.sigma, Rating.ordinal, Rating.games)
    .outerjoin(Rating, and_(Rating.player_pk == Player.pk, Rating.pool == bindparam("pool")))
    .where(Player.tenant_pk == bindparam("tenant"), Player.player_id == bindparam("player"),
           players.KNOWN))
"""A player (none: not vouched for), their rank (none: not listed), how many are, and
their rating (none: no rated game in the pool yet)."""


def _page(tenant: int, pool: str, key: bytes, after: int,
          limit: int) -> tuple[list[Entry], str | None]:
    """The entries ranked after ``after`` and the cursor of the next page (None: last)."""
    entries = [Entry(*row) for row in read_rows(
        _ENTRIES, {"tenant": tenant, "pool": pool, "after": after, "limit": limit + 1})]
    more = len(entries) > limit
    entries = entries[:limit]
    return entries, _cursor(key, entries[-1].rank) if more else None


@on_replica
def leaderboard(tenant: int, pool: str, key: bytes, *, cursor: str | None = None,
                around: str | None = None, limit: int = 20) -> LeaderboardPage:
    """A page of ``pool``'s leaderboard: the first, the one after ``cursor``, or the one
    around player ``around`` (with their rank and percentile)."""
    with transaction():
        if around is None:
            after = _uncursor(key, cursor) if cursor else 0
            return LeaderboardPage(pool, *_page(tenant, pool, key, after, limit))
        found = read_rows(_PLACE, {"tenant": tenant, "pool": pool, "player": around})
        if not found:
            raise PlayerNotFound(f"no player {around!r}")
        _, rank, listed, *rating = found[0]
        standing = _standing(around, rating, listed=rank is not None)
        if rank is None:  # not listed yet: where they stand, beside the top of the board
            return LeaderboardPage(pool, *_page(tenant, pool, key, 0, limit),
                                   standing=standing)
        entries, nxt = _page(tenant, pool, key, max(0, rank - 1 - limit // 2), limit)
        percentile = round(100.0 * (listed - rank + 1) / listed, 1)
        return LeaderboardPage(pool, entries, nxt, rank, percentile, standing)


def _standing(player_id: str, rating: Sequence[Any], *, listed: bool) -> Standing:
    """A player's line in a pool from their (mu, sigma, ordinal, games), all None before
    any rated game there: then the model's start."""
    mu, sigma, ordinal, games = rating
    if mu is None:
        start = MODEL.rating()
        return Standing(player_id, start.mu, start.sigma, start.ordinal(), 0, False)
    return Standing(player_id, float(mu), float(sigma), float(ordinal), int(games), listed)


def refresh_ranks(listing: Listing) -> int:
    """Rank every pool's listed players again (mu, the number shown, then player), unlisted ones
    none; how many ranks changed. One statement each, for ``basra worker``."""
    listed = and_(Rating.games >= listing.min_games, Rating.rated_at >= listing.active_since)
    ranked = select(Rating.player_pk, Rating.pool, func.row_number().over(
        partition_by=(Rating.tenant_pk, Rating.pool),
        order_by=(Rating.mu.desc(), Rating.player_pk)).label("place")
    ).where(listed).subquery()
    table = Rating.__table__
    with transaction(write=True):
        moved = db.session.execute(table.update().where(
            table.c.player_pk == ranked.c.player_pk, table.c.pool == ranked.c.pool,
            or_(table.c.rank.is_(None), table.c.rank != ranked.c.place),
        ).values(rank=ranked.c.place)).rowcount or 0
        dropped = db.session.execute(table.update().where(
            table.c.rank.is_not(None), ~listed).values(rank=None)).rowcount or 0
    return int(moved) + int(dropped)
