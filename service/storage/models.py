"""Tables: tenants and their API keys, players, matches (snapshot + version), seats, the
append-only move log, idempotency keys (of moves and creates), webhooks."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    SmallInteger,
    String,
    Text,
    false,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column, relationship

from .db import db
from .enums import MatchStatus, MessageStatus, PairingStatus, TournamentStatus

# JSON documents: JSONB on PostgreSQL, JSON text on SQLite
JSONDoc = JSON().with_variant(JSONB(), "postgresql")


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """A stored time, zone-aware (SQLite hands them back without their zone: UTC)."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


# BIGINT on PostgreSQL, INTEGER on SQLite (so it is the rowid and autoincrements)
_PK = BigInteger().with_variant(Integer(), "sqlite")


LOCAL_TENANT = 1
"""The built-in tenant of requests without an API key (``BASRA_API_KEYS=optional``)."""


class Tenant(db.Model):  # type: ignore[name-defined,misc]
    """A front end: it owns the matches created with its API keys."""

    __tablename__ = "tenants"

    pk: Mapped[int] = mapped_column(_PK, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    origins: Mapped[list[str]] = mapped_column(JSON, nullable=False, default=list)
    """Unused since each key has its own origins (kept for older instances)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    player_secret: Mapped[str | None] = mapped_column(String(64))
    """Signs its players' tokens (HS256); made on first use."""
    previous_player_secret: Mapped[str | None] = mapped_column(String(64))
    """The secret before the last rotation: its tokens still accepted until
    ``previous_secret_until``."""
    previous_secret_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ApiKey(db.Model):  # type: ignore[name-defined,misc]
    """An API key of a tenant, stored only as its SHA-256."""

    __tablename__ = "api_keys"

    pk: Mapped[int] = mapped_column(_PK, primary_key=True, autoincrement=True)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    key_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    prefix: Mapped[str] = mapped_column(String(16), nullable=False)
    """The key's first characters, to tell keys apart in listings."""
    origins: Mapped[list[str]] = mapped_column(JSON, nullable=False, default=list)
    """Browser origins the key may be used from; empty: a server key (any caller, and
    it may vouch for players)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class StaffKey(db.Model):  # type: ignore[name-defined,misc]
    """A key of one of a front end's staff, stored only as its SHA-256: exchanged at sign-in
    for a session of the console, and no API key for anything else."""

    __tablename__ = "staff_keys"

    pk: Mapped[int] = mapped_column(_PK, primary_key=True, autoincrement=True)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    name: Mapped[str] = mapped_column(String(64), nullable=False)
    """Who holds it, as the audit log names what they do (``staff:<name>``)."""
    role: Mapped[str] = mapped_column(String(16), nullable=False)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    prefix: Mapped[str] = mapped_column(String(16), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_staff_keys_tenant_pk", "tenant_pk"),)


class StaffSession(db.Model):  # type: ignore[name-defined,misc]
    """A signed-in console: its cookie's token and its CSRF token, both only as SHA-256."""

    __tablename__ = "staff_sessions"

    pk: Mapped[int] = mapped_column(_PK, primary_key=True, autoincrement=True)
    staff_key_pk: Mapped[int] = mapped_column(
        ForeignKey("staff_keys.pk", ondelete="CASCADE"), nullable=False
    )
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    csrf_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """Signed out."""

    __table_args__ = (Index("ix_staff_sessions_staff_key_pk", "staff_key_pk"),)


class Player(db.Model):  # type: ignore[name-defined,misc]
    """A front end's user, as its front end vouched for them: (tenant, player_id)."""

    __tablename__ = "players"

    pk: Mapped[int] = mapped_column(_PK, primary_key=True, autoincrement=True)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    player_id: Mapped[str] = mapped_column(String(128), nullable=False)
    """The front end's own id for its user."""
    name: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    signed_out_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """Signed out everywhere then: the player's tokens issued before it are refused."""
    suspended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """Suspended since then (null: not suspended)."""
    suspended_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """The suspension's end (null while suspended: for good)."""
    suspension_reason: Mapped[str | None] = mapped_column(String(500))
    access_changed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """When a sign-out or a suspension last changed: what every process reads anew."""
    # the record's totals over finished matches, counted as each one finishes
    matches: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    wins: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    losses: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    draws: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    resigned: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    """Lost by their side's resignation."""
    timed_out: Mapped[int] = mapped_column(Integer, nullable=False, default=0,
                                           server_default="0")
    """Lost by their side's clock (a forfeit)."""
    basras: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    """Basras they made themselves (jack basras not included)."""
    jack_basras: Mapped[int] = mapped_column(Integer, nullable=False, default=0,
                                             server_default="0")
    points: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    """Their side's final score, summed."""

    __table_args__ = (
        Index("ix_players_tenant_player", "tenant_pk", "player_id", unique=True),
        Index("ix_players_access_changed_at", "access_changed_at",
              postgresql_where=text("access_changed_at IS NOT NULL"),
              sqlite_where=text("access_changed_at IS NOT NULL")),
        Index("ix_players_suspended", "tenant_pk", "player_id",
              postgresql_where=text("suspended_at IS NOT NULL"),
              sqlite_where=text("suspended_at IS NOT NULL")),
    )


class Rating(db.Model):  # type: ignore[name-defined,misc]
    """A player's rating in one pool (a variant): openskill's mu and sigma."""

    __tablename__ = "ratings"

    player_pk: Mapped[int] = mapped_column(
        ForeignKey("players.pk", ondelete="CASCADE"), primary_key=True
    )
    pool: Mapped[str] = mapped_column(String(64), primary_key=True)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    """The player's front end (a leaderboard is one front end's pool)."""
    mu: Mapped[float] = mapped_column(Float, nullable=False)
    sigma: Mapped[float] = mapped_column(Float, nullable=False)
    ordinal: Mapped[float] = mapped_column(Float, nullable=False)
    """mu - 3 sigma: what leaderboards sort by."""
    games: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    rated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """When its last rated match finished."""
    rank: Mapped[int | None] = mapped_column(Integer)
    """The place on the pool's leaderboard at the last ranking (``basra worker``)."""

    # only the listed: a page, a place and the count of the listed read no unlisted row
    __table_args__ = (Index("ix_ratings_board", "tenant_pk", "pool", "rank",
                            postgresql_where=text("rank IS NOT NULL"),
                            sqlite_where=text("rank IS NOT NULL")),)


class RatingChange(db.Model):  # type: ignore[name-defined,misc]
    """A player's rating after one rated match (for the rating chart)."""

    __tablename__ = "rating_changes"

    pk: Mapped[int] = mapped_column(_PK, primary_key=True, autoincrement=True)
    player_pk: Mapped[int] = mapped_column(
        ForeignKey("players.pk", ondelete="CASCADE"), nullable=False
    )
    pool: Mapped[str] = mapped_column(String(64), nullable=False)
    match_pk: Mapped[int] = mapped_column(
        ForeignKey("matches.pk", ondelete="CASCADE"), nullable=False
    )
    mu: Mapped[float] = mapped_column(Float, nullable=False)
    sigma: Mapped[float] = mapped_column(Float, nullable=False)
    ordinal: Mapped[float] = mapped_column(Float, nullable=False)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)

    __table_args__ = (Index("ix_rating_changes_player", "player_pk", "pool", "pk"),)


class Match(db.Model):  # type: ignore[name-defined,misc]
    """One match: its engine snapshot, version (moves applied) and public facts."""

    __tablename__ = "matches"

    pk: Mapped[int] = mapped_column(_PK, primary_key=True, autoincrement=True)
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
    """The append-only move log, unique per (match, seq): the source of truth of a match."""

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
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


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


class Webhook(db.Model):  # type: ignore[name-defined,misc]
    """A tenant's endpoint for signed event callbacks (Standard Webhooks)."""

    __tablename__ = "webhooks"

    pk: Mapped[int] = mapped_column(_PK, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(36), unique=True, nullable=False)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    url: Mapped[str] = mapped_column(String(2048), nullable=False)
    events: Mapped[list[str]] = mapped_column(JSON, nullable=False)
    secret: Mapped[str] = mapped_column(String(64), nullable=False)
    """``whsec_`` + base64 of 32 random bytes: the signing key, so it is kept as is."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    failed_in_a_row: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    """Messages in a row that ran out of retries (any delivery resets it)."""
    disabled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    paused_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """Paused by the front end: its messages are written and wait for it to resume."""

    __table_args__ = (Index("ix_webhooks_tenant_pk", "tenant_pk"),)


class WebhookMessage(db.Model):  # type: ignore[name-defined,misc]
    """One event for one webhook: written in the transaction of the change that caused
    it (an outbox), delivered by ``basra worker`` with the same ``msg_id`` every try."""

    __tablename__ = "webhook_messages"

    pk: Mapped[int] = mapped_column(_PK, primary_key=True, autoincrement=True)
    webhook_pk: Mapped[int] = mapped_column(
        ForeignKey("webhooks.pk", ondelete="CASCADE"), nullable=False
    )
    msg_id: Mapped[str] = mapped_column(String(40), unique=True, nullable=False)
    type: Mapped[str] = mapped_column(String(32), nullable=False)
    body: Mapped[str] = mapped_column(Text, nullable=False)
    """The payload as sent: serialised once, so every retry sends the same bytes."""
    status: Mapped[str] = mapped_column(String(10), nullable=False,
                                        default=MessageStatus.PENDING)
    """pending, delivered or failed (out of retries)."""
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    """When a worker may try it (also a claim's lease: a killed worker's try is retried)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    lane: Mapped[str | None] = mapped_column(String(40))
    """The match (or tournament) whose messages go out in order; none for a finish."""
    holds_lane: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False,
                                             server_default=false())
    """Untried or in its first try: later messages of its lane wait for it."""
    priority: Mapped[int] = mapped_column(SmallInteger, nullable=False, default=1,
                                          server_default=text("1"))
    """0 for a finish (claimed before anything else due), 1 for the rest."""

    __table_args__ = (
        Index("ix_webhook_messages_due", "priority", "next_attempt_at", "pk",
              postgresql_where=text("status = 'pending'"),
              sqlite_where=text("status = 'pending'")),
        Index("ix_webhook_messages_webhook", "webhook_pk", "pk"),
        Index("ix_webhook_messages_created_at", "created_at"),
        Index("ix_webhook_messages_lane", "webhook_pk", "lane", "pk",
              postgresql_where=text("holds_lane"), sqlite_where=text("holds_lane")),
    )


class WebhookAttempt(db.Model):  # type: ignore[name-defined,misc]
    """One try at delivering a message: what the receiver answered, or the error."""

    __tablename__ = "webhook_attempts"

    pk: Mapped[int] = mapped_column(_PK, primary_key=True, autoincrement=True)
    message_pk: Mapped[int] = mapped_column(
        ForeignKey("webhook_messages.pk", ondelete="CASCADE"), nullable=False
    )
    webhook_pk: Mapped[int] = mapped_column(
        ForeignKey("webhooks.pk", ondelete="CASCADE"), nullable=False
    )
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    status_code: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(String(300))
    duration_ms: Mapped[int] = mapped_column(Integer, nullable=False)

    __table_args__ = (
        Index("ix_webhook_attempts_webhook", "webhook_pk", "pk"),
        Index("ix_webhook_attempts_at", "at"),
    )


class PlayerEvent(db.Model):  # type: ignore[name-defined,misc]
    """One event of a player's stream (``GET /v1/players/{id}/events``), written in the
    transaction of the change that caused it; its pk is the stream's event id."""

    __tablename__ = "player_events"

    pk: Mapped[int] = mapped_column(_PK, primary_key=True, autoincrement=True)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    player_id: Mapped[str] = mapped_column(String(128), nullable=False)
    type: Mapped[str] = mapped_column(String(32), nullable=False)
    body: Mapped[str] = mapped_column(Text, nullable=False)
    """The event's data, serialised once."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    __table_args__ = (
        Index("ix_player_events_player", "tenant_pk", "player_id", "pk"),
        Index("ix_player_events_created_at", "created_at"),
    )


class Tournament(db.Model):  # type: ignore[name-defined,misc]
    """A Swiss or arena tournament of a front end's players, run by ``basra worker``."""

    __tablename__ = "tournaments"

    pk: Mapped[int] = mapped_column(_PK, primary_key=True, autoincrement=True)
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

    pk: Mapped[int] = mapped_column(_PK, primary_key=True, autoincrement=True)
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


class AuditEntry(db.Model):  # type: ignore[name-defined,misc]
    """What was done to a front end's players, matches and reports, by whom (a key's
    prefix, a player, the command line) and when."""

    __tablename__ = "audit_log"

    pk: Mapped[int] = mapped_column(_PK, primary_key=True, autoincrement=True)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    actor: Mapped[str] = mapped_column(String(160), nullable=False)
    action: Mapped[str] = mapped_column(String(32), nullable=False)
    subject: Mapped[str] = mapped_column(String(200), nullable=False)
    """What it was done to: ``player:<id>``, ``match:<id>``, ``report:<id>``, ``keys``."""
    details: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)

    __table_args__ = (Index("ix_audit_log_tenant", "tenant_pk", "pk"),)


class Block(db.Model):  # type: ignore[name-defined,misc]
    """A player blocked another of their front end: never seated together by quick
    play, no invitations between them."""

    __tablename__ = "player_blocks"

    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    blocked_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)

    __table_args__ = (Index("ix_player_blocks_blocked", "tenant_pk", "blocked_id"),)


class Report(db.Model):  # type: ignore[name-defined,misc]
    """A seated player's report of another seat of the same match."""

    __tablename__ = "reports"

    pk: Mapped[int] = mapped_column(_PK, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(36), unique=True, nullable=False)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    match_pk: Mapped[int] = mapped_column(
        ForeignKey("matches.pk", ondelete="CASCADE"), nullable=False
    )
    reporter: Mapped[str] = mapped_column(String(128), nullable=False)
    player_id: Mapped[str] = mapped_column(String(128), nullable=False)
    """The player reported."""
    reason: Mapped[str] = mapped_column(String(16), nullable=False)
    text: Mapped[str | None] = mapped_column(String(1000))
    status: Mapped[str] = mapped_column(String(10), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    resolved_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    resolution: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    """``{"action", "note"?, "by"}`` once resolved."""

    __table_args__ = (
        Index("ix_reports_once", "tenant_pk", "match_pk", "reporter", "player_id",
              unique=True),
        Index("ix_reports_queue", "tenant_pk", "status", "pk"),
        Index("ix_reports_player", "tenant_pk", "player_id"),
    )


class Friendship(db.Model):  # type: ignore[name-defined,misc]
    """``player_id`` asked ``friend_id`` to be friends (``requested``), or they are
    (``friends``: a row each way)."""

    __tablename__ = "friendships"

    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    friend_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    status: Mapped[str] = mapped_column(String(10), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    accepted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_friendships_friend", "tenant_pk", "friend_id"),)


class Challenge(db.Model):  # type: ignore[name-defined,misc]
    """A player's challenge to another to play a match (its settings), until it expires."""

    __tablename__ = "challenges"

    pk: Mapped[int] = mapped_column(_PK, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(36), unique=True, nullable=False)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    challenger: Mapped[str] = mapped_column(String(128), nullable=False)
    challenged: Mapped[str] = mapped_column(String(128), nullable=False)
    variant: Mapped[str] = mapped_column(String(64), nullable=False)
    rules: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    """House-rule overrides, as asked."""
    rated: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    clock_seconds: Mapped[int | None] = mapped_column(Integer)
    clock_timeout: Mapped[str | None] = mapped_column(String(8))
    status: Mapped[str] = mapped_column(String(10), nullable=False)
    """open, accepted, declined, cancelled, expired (the worker marks it; an open one
    past its time reads as expired before)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    match_id: Mapped[str | None] = mapped_column(String(36))
    """The match an acceptance made."""

    __table_args__ = (
        Index("ix_challenges_challenger", "tenant_pk", "challenger", "status"),
        Index("ix_challenges_challenged", "tenant_pk", "challenged", "status"),
        Index("ix_challenges_due", "status", "expires_at"),
    )


class Party(db.Model):  # type: ignore[name-defined,misc]
    """A leader and the players they invited, to be seated together as partners."""

    __tablename__ = "parties"

    pk: Mapped[int] = mapped_column(_PK, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(36), unique=True, nullable=False)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    leader: Mapped[str] = mapped_column(String(128), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)


class PartyMember(db.Model):  # type: ignore[name-defined,misc]
    """A party's member (``joined``) or a player invited to it (``invited``); a player
    is joined to one party at most."""

    __tablename__ = "party_members"

    party_pk: Mapped[int] = mapped_column(
        ForeignKey("parties.pk", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    tenant_pk: Mapped[int] = mapped_column(_PK, nullable=False)
    status: Mapped[str] = mapped_column(String(8), nullable=False)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)

    __table_args__ = (
        Index("ix_party_members_one_party", "tenant_pk", "player_id", unique=True,
              postgresql_where=text("status = 'joined'"),
              sqlite_where=text("status = 'joined'")),
    )


class PresenceLease(db.Model):  # type: ignore[name-defined,misc]
    """A process (``holder``) holds a stream of the player open until ``expires_at``
    (renewed while it does; after the last stream closes, a few seconds of grace)."""

    __tablename__ = "presence_leases"

    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    holder: Mapped[str] = mapped_column(String(64), primary_key=True)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)

    __table_args__ = (Index("ix_presence_leases_expires_at", "expires_at"),)


class Presence(db.Model):  # type: ignore[name-defined,misc]
    """The presence a player's friends were last told (none: ``offline``)."""

    __tablename__ = "presences"

    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    status: Mapped[str] = mapped_column(String(8), nullable=False)
    match_id: Mapped[str | None] = mapped_column(String(36))
    changed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)

    __table_args__ = (
        Index("ix_presences_online", "tenant_pk", "player_id",
              postgresql_where=text("status = 'online'"),
              sqlite_where=text("status = 'online'")),
    )


class ChatLine(db.Model):  # type: ignore[name-defined,misc]
    """A line said at a match's table: a phrase (its id) or a text (as filtered), by a
    seat or a spectator (``seat`` None). Kept with the match: a report's evidence."""

    __tablename__ = "chat_lines"

    pk: Mapped[int] = mapped_column(_PK, primary_key=True, autoincrement=True)
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


class Review(db.Model):  # type: ignore[name-defined,misc]
    """A finished match's review, every play scored against the expert's choice: asked
    for (``pending``), then made by the worker (``ready``, its plays kept)."""

    __tablename__ = "reviews"

    match_pk: Mapped[int] = mapped_column(
        ForeignKey("matches.pk", ondelete="CASCADE"), primary_key=True
    )
    tenant_pk: Mapped[int] = mapped_column(ForeignKey("tenants.pk"), nullable=False)
    status: Mapped[str] = mapped_column(String(8), nullable=False)
    asked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """When a worker took it (another takes it over once it has been at it too long)."""
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0,
                                          server_default=text("0"))
    """How often a worker took it: after a few, it is ``failed``."""
    ready_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    plays: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON)
    cpu_ms: Mapped[float | None] = mapped_column(Float)
    """CPU the review took, all plays together."""

    __table_args__ = (Index("ix_reviews_status_asked", "status", "asked_at"),)
