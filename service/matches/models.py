"""Tables of the matches: a match (snapshot + version), its seats, the append-only move log,
idempotency keys (of moves and creates), its table chat and a front end's chat settings."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    SmallInteger,
    String,
    false,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from ..storage.base import PK, JSONDoc, utcnow
from ..storage.db import db
from .enums import MatchStatus


class Match(db.Model):  # type: ignore[name-defined,misc]
    """One match: its engine snapshot, version (moves applied) and public facts."""

    __tablename__ = "matches"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(36), unique=True, nullable=False)
    tenant_pk: Mapped[int] = mapped_column(ForeignKey("tenants.pk"), nullable=False)
    variant: Mapped[str] = mapped_column(String(64), nullable=False)
    rules: Mapped[dict[str, Any]] = mapped_column(JSONDoc, nullable=False)
    rules_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    status: Mapped[str] = mapped_column(String(16), nullable=False,
                                        default=MatchStatus.ACTIVE)
    version: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    seed: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    commitment: Mapped[str] = mapped_column(String(64), nullable=False)
    explicit_decks: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    snapshot: Mapped[dict[str, Any]] = mapped_column(JSONDoc, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # denormalised from the snapshot for the history listing
    scores: Mapped[list[int]] = mapped_column(JSON, nullable=False, default=list)
    winner: Mapped[int | None] = mapped_column(Integer)
    draw: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    end_reason: Mapped[str | None] = mapped_column(String(16))
    """target_score or resigned (null while the match goes on)."""
    rounds: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    """Rounds played (the current one included)."""
    turn: Mapped[int | None] = mapped_column(Integer)
    """The seat to play (null once over, or while waiting for players)."""
    rated: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    """Rated: every seat a distinct vouched player; the finish updates their ratings."""
    rating_changes: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON)
    """Each seat's ``{seat, player_id, before, after}`` once a rated match finished."""
    quick: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    """A quick-play table: the next quick-play caller with the same rules joins it."""
    tournament_game: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False,
                                                  server_default=false())
    """A tournament's game: its seats cannot abort it."""
    rematch_id: Mapped[str | None] = mapped_column(String(36))
    """The follow-up match, once a seat asked for one."""
    clock_seconds: Mapped[int | None] = mapped_column(Integer)
    """Seconds a seat has for each move (no clock when null)."""
    clock_timeout: Mapped[str | None] = mapped_column(String(8))
    """What a passed deadline does: autoplay or forfeit."""
    deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """When the seat to play runs out of time (null without a clock or while not playing)."""
    timeouts: Mapped[list[int]] = mapped_column(JSON, nullable=False, default=list)
    """Timeouts in a row, per seat."""
    voided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """Its result voided then (by its front end): nothing it gave or took counts."""
    void_reason: Mapped[str | None] = mapped_column(String(500))
    stand_in: Mapped[str | None] = mapped_column(String(16))
    """The bot level that keeps a dropped seat (null: the greedy bot)."""
    dropped: Mapped[list[int]] = mapped_column(JSON, nullable=False, default=list,
                                               server_default=text("'[]'"))
    """The seats a stand-in bot keeps now, until their players come back."""
    spectator_delay: Mapped[int] = mapped_column(Integer, nullable=False, default=0,
                                                 server_default=text("0"))
    """Plays a spectator's view lags behind while the match goes on."""
    sealed: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False,
                                         server_default=false())
    """A duplicate round's table: its seed and plays kept from everyone but its seats
    (and the front end's server) until the round is over, for every table holds the
    same cards."""
    kept: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False,
                                       server_default=false())
    """Its moves kept whatever the retention: a report points to it."""
    stake_currency: Mapped[str | None] = mapped_column(String(16))
    """A staked table's currency (null: unstaked): each seat holds ``stake_amount`` of it
    in the table's escrow from the moment it is taken."""
    stake_amount: Mapped[int | None] = mapped_column(BigInteger)
    rake_share_bp: Mapped[int | None] = mapped_column(Integer)
    """The house's share of a staked table's pot (basis points), as the front end's
    settings said when the table was made."""
    rake_cap: Mapped[int | None] = mapped_column(BigInteger)
    """The most the house takes of the pot (null: no cap)."""

    seats: Mapped[list[Seat]] = relationship(order_by="Seat.seat", lazy="selectin")
    """Loaded with the match: in the same query where the store asks (joinedload). One
    way only: a seat pointing back at its match would make every loaded match a
    reference cycle, freed only by the cyclic collector."""

    __table_args__ = (
        Index("ix_matches_tenant_pk", "tenant_pk", "pk"),
        Index("ix_matches_lobby", "tenant_pk", "status", "rules_hash", "pk"),
        Index("ix_matches_deadline", "deadline"),
        Index("ix_matches_status_pk", "status", "pk"),
        Index("ix_matches_variant_pk", "variant", "pk"),
        Index("ix_matches_created_at", "created_at"),
    )


class Seat(db.Model):  # type: ignore[name-defined,misc]
    """A seat of a match; the token is stored only as its SHA-256."""

    __tablename__ = "seats"

    match_pk: Mapped[int] = mapped_column(
        ForeignKey("matches.pk", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str | None] = mapped_column(String(64))
    """Null while the seat is open."""
    player_id: Mapped[str | None] = mapped_column(String(128))
    bot: Mapped[str | None] = mapped_column(String(16))
    token_hash: Mapped[str | None] = mapped_column(String(64))
    """Null while the seat is open (and for a bot)."""
    vouched: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    """Its ``player_id`` was proven (a player token, or a server key naming it): that
    player's tokens then act for the seat."""

    @property
    def open(self) -> bool:
        """Whether the seat waits for a player."""
        return self.name is None

    __table_args__ = (
        Index("ix_seats_name", "name", "match_pk"),
        Index("ix_seats_player_id", "player_id", "match_pk"),
    )


class MoveRecord(db.Model):  # type: ignore[name-defined,misc]
    """The append-only move log, unique per (match, seq): the source of truth of a match.
    On PostgreSQL partitioned by the day of ``created_at`` (so its primary key holds it),
    a day dropped whole once the retention passed (``storage/partitions.py``)."""

    __tablename__ = "moves"

    match_pk: Mapped[int] = mapped_column(
        ForeignKey("matches.pk", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8), nullable=False)
    """play, resign, join, leave, abort, forfeit (a clock ran out) or rematch."""
    round: Mapped[int] = mapped_column(Integer, nullable=False)
    seat: Mapped[int] = mapped_column(Integer, nullable=False)
    card: Mapped[str | None] = mapped_column(String(3))
    captured: Mapped[list[str] | None] = mapped_column(JSON)
    basra: Mapped[str | None] = mapped_column(String(16))
    timeout: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    """Played on the seat's behalf when its time ran out."""
    stand_in: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False,
                                           server_default=false())
    """Played by the stand-in bot that keeps the seat while its player is away."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True,
                                                 default=utcnow)

    __table_args__ = ({"postgresql_partition_by": "RANGE (created_at)"},)


class IdempotencyKey(db.Model):  # type: ignore[name-defined,misc]
    """A move request's Idempotency-Key and the moves it answered with (log entries
    ``first_seq`` to ``version``): a retry's response is rebuilt from the move log."""

    __tablename__ = "idempotency_keys"

    match_pk: Mapped[int] = mapped_column(
        ForeignKey("matches.pk", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64), nullable=False)
    first_seq: Mapped[int] = mapped_column(Integer, nullable=False)
    version: Mapped[int] = mapped_column(Integer, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    __table_args__ = (Index("ix_idempotency_keys_created_at", "created_at"),)


class CreateKey(db.Model):  # type: ignore[name-defined,misc]
    """A create request's Idempotency-Key, the front end and caller it belongs to (a
    digest: a player, an API key, a browser visitor), and the match it made. A retry is
    answered that match again, its seat tokens derived again from ``salt`` and the
    service's secret key (only their hashes are stored, as for any seat)."""

    __tablename__ = "create_keys"

    tenant_pk: Mapped[int] = mapped_column(ForeignKey("tenants.pk"), primary_key=True)
    caller: Mapped[str] = mapped_column(String(64), primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64), nullable=False)
    match_pk: Mapped[int] = mapped_column(
        ForeignKey("matches.pk", ondelete="CASCADE"), nullable=False)
    salt: Mapped[str] = mapped_column(String(64), nullable=False)
    token_check: Mapped[str] = mapped_column(String(64), nullable=False)
    """Says whether the secret key is still the one the tokens were derived with."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    __table_args__ = (Index("ix_create_keys_created_at", "created_at"),)


class ChatLine(db.Model):  # type: ignore[name-defined,misc]
    """A line said at a match's table: a phrase (its id) or a text (as filtered), by a
    seat or a spectator (``seat`` None). Kept with the match: a report's evidence."""

    __tablename__ = "chat_lines"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    match_pk: Mapped[int] = mapped_column(
        ForeignKey("matches.pk", ondelete="CASCADE"), nullable=False
    )
    seat: Mapped[int | None] = mapped_column(SmallInteger)
    player_id: Mapped[str | None] = mapped_column(String(128))
    name: Mapped[str] = mapped_column(String(64), nullable=False)
    phrase: Mapped[str | None] = mapped_column(String(32))
    text: Mapped[str | None] = mapped_column(String(200))
    filtered: Mapped[bool] = mapped_column(Boolean, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)

    __table_args__ = (Index("ix_chat_lines_match", "match_pk", "pk"),)


class ChatSettings(db.Model):  # type: ignore[name-defined,misc]
    """A front end's table chat: ``off``, ``phrases`` or ``text``; whether spectators
    may chat; the words it adds to the filter. None kept: ``phrases``, seats only."""

    __tablename__ = "chat_settings"

    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), primary_key=True
    )
    mode: Mapped[str] = mapped_column(String(8), nullable=False)
    spectators: Mapped[bool] = mapped_column(Boolean, nullable=False)
    words: Mapped[list[str]] = mapped_column(JSON, nullable=False)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)

