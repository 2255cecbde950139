"""Tables of the tournaments: a tournament, its entrants and its pairings (games and byes)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, DateTime, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from ..storage.base import PK, utcnow
from ..storage.db import db
from .enums import PairingStatus, TournamentStatus


class Tournament(db.Model):  # type: ignore[name-defined,misc]
    """A Swiss or arena tournament of a front end's players, run by ``basra worker``."""

    __tablename__ = "tournaments"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(36), unique=True, nullable=False)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    name: Mapped[str] = mapped_column(String(100), nullable=False)
    variant: Mapped[str] = mapped_column(String(64), nullable=False)
    rules: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    """The house rules every match of the event is created with."""
    # SQLite keeps the width the table was made with: it never holds a VARCHAR to it
    system: Mapped[str] = mapped_column(String(16).with_variant(String(8), "sqlite"),
                                        nullable=False)
    """swiss or arena."""
    rounds: Mapped[int | None] = mapped_column(Integer)
    """A Swiss's (or a duplicate event's) rounds."""
    deals: Mapped[int | None] = mapped_column(Integer)
    """A duplicate event's deals at each table a round (each a whole round of the deck)."""
    duration_minutes: Mapped[int | None] = mapped_column(Integer)
    """An arena's length."""
    starts_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    ends_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """An arena's end (set when it starts)."""
    min_players: Mapped[int] = mapped_column(Integer, nullable=False)
    max_players: Mapped[int] = mapped_column(Integer, nullable=False)
    rated: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    clock_seconds: Mapped[int] = mapped_column(Integer, nullable=False)
    clock_timeout: Mapped[str] = mapped_column(String(8), nullable=False)
    status: Mapped[str] = mapped_column(String(10), nullable=False,
                                        default=TournamentStatus.SCHEDULED)
    """scheduled, running, finished or cancelled."""
    round: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    """The Swiss round being played, or the arena's batches of pairings so far (0 before
    the first)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    standings: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON)
    """The final standings, kept once it is over."""
    fee_currency: Mapped[str | None] = mapped_column(String(16))
    """The entry fee's currency (a code of the front end's); null: free to enter."""
    fee_amount: Mapped[int | None] = mapped_column(BigInteger)
    """The entry fee, held in the tournament's escrow at joining."""
    prizes: Mapped[list[int] | None] = mapped_column(JSON)
    """The pool's distribution: percent by final place, best first (summing to at most
    100; the rest is the house's); null without an entry fee."""
    payouts: Mapped[dict[str, int] | None] = mapped_column(JSON)
    """Once finished: the coins each prize winner was paid from the pool, by player."""

    __table_args__ = (
        Index("ix_tournaments_due", "status", "starts_at"),
        Index("ix_tournaments_tenant", "tenant_pk", "status", "pk"),
    )


class Entrant(db.Model):  # type: ignore[name-defined,misc]
    """A player entered in a tournament."""

    __tablename__ = "tournament_entrants"

    tournament_pk: Mapped[int] = mapped_column(
        ForeignKey("tournaments.pk", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    name: Mapped[str | None] = mapped_column(String(64))
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    withdrawn_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """No further pairings from then on."""


class Pairing(db.Model):  # type: ignore[name-defined,misc]
    """One game of a tournament (a match between two entrants), or a Swiss bye."""

    __tablename__ = "tournament_pairings"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    tournament_pk: Mapped[int] = mapped_column(
        ForeignKey("tournaments.pk", ondelete="CASCADE"), nullable=False
    )
    round: Mapped[int] = mapped_column(Integer, nullable=False)
    """The Swiss round; in an arena, the batch of pairings it was made in."""
    first: Mapped[str] = mapped_column(String(128), nullable=False)
    """The player in seat 0 (who plays first), or the bye's player."""
    second: Mapped[str | None] = mapped_column(String(128))
    """The player in seat 1; null for a bye."""
    third: Mapped[str | None] = mapped_column(String(128))
    """A 4-player table's seat 2 (seat 0's partner); null at two."""
    fourth: Mapped[str | None] = mapped_column(String(128))
    """A 4-player table's seat 3."""
    match_pk: Mapped[int | None] = mapped_column(ForeignKey("matches.pk", ondelete="SET NULL"))
    status: Mapped[str] = mapped_column(String(10), nullable=False,
                                        default=PairingStatus.PLAYING)
    """playing, finished (a result counted) or void (an arena's match unfinished at the
    end, or an aborted one)."""
    winner: Mapped[str | None] = mapped_column(String(128))
    draw: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    __table_args__ = (
        Index("ix_tournament_pairings_tournament", "tournament_pk", "round", "pk"),
        Index("ix_tournament_pairings_playing", "tournament_pk", "status"),
        Index("ix_tournament_pairings_match", "match_pk"),
    )

