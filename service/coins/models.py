"""Tables of coins: a front end's currencies, the accounts that hold them, the transfers
between accounts (append-only: never updated nor deleted) and the holds in escrow."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    String,
    Text,
    func,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from ..storage.base import PK, utcnow
from ..storage.db import db

ACCOUNT = 160
"""An account id's length: ``player:`` and a player id of up to 128 characters."""


class Currency(db.Model):  # type: ignore[name-defined,misc]
    """A currency a front end named; its house and mint accounts are made with it."""

    __tablename__ = "currencies"

    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), primary_key=True
    )
    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    """``^[A-Z][A-Z0-9_]{0,15}$``, such as ``COINS`` or ``GEMS``."""
    name: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CoinAccount(db.Model):  # type: ignore[name-defined,misc]
    """An account's balance in one currency: the sum of its transfers, kept as they are
    written (the checker proves it)."""

    __tablename__ = "coin_accounts"

    tenant_pk: Mapped[int] = mapped_column(PK, primary_key=True)
    currency: Mapped[str] = mapped_column(String(16), primary_key=True)
    account: Mapped[str] = mapped_column(String(ACCOUNT), primary_key=True)
    """Made by :mod:`service.coins.accounts` only."""
    balance: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0,
                                         server_default="0")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True),
                                                 server_default=func.now())
    """By the database's clock (no default of Python's: an account is made by the first
    transfer that touches it, in a statement built from the table's columns)."""

    __table_args__ = (
        ForeignKeyConstraint(["tenant_pk", "currency"],
                             ["currencies.tenant_pk", "currencies.code"], ondelete="CASCADE"),
    )


class CoinTransfer(db.Model):  # type: ignore[name-defined,misc]
    """Coins moved from ``debit`` to ``credit``: one row, never updated nor deleted (an
    erasure aside, which replaces a player's id by their pseudonym)."""

    __tablename__ = "coin_transfers"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(32), unique=True, nullable=False)
    """Public: ``tr_`` and a random token."""
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    currency: Mapped[str] = mapped_column(String(16), nullable=False)
    debit: Mapped[str] = mapped_column(String(ACCOUNT), nullable=False)
    """The account paying."""
    credit: Mapped[str] = mapped_column(String(ACCOUNT), nullable=False)
    """The account paid."""
    amount: Mapped[int] = mapped_column(BigInteger, nullable=False)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    """A :class:`~service.coins.enums.TransferKind`."""
    reason: Mapped[str | None] = mapped_column(Text)
    reference: Mapped[str | None] = mapped_column(String(200))
    """The front end's own, such as a store receipt's id."""
    match_pk: Mapped[int | None] = mapped_column(BigInteger)
    """The match whose stake, pot or rake this is (no foreign key: the ledger outlives
    whatever a match's rows become)."""
    tournament_pk: Mapped[int | None] = mapped_column(BigInteger)
    idempotency_key: Mapped[str | None] = mapped_column(String(200))
    """The front end's Idempotency-Key of ``POST /v1/transfers``: unique per front end."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)

    __table_args__ = (
        CheckConstraint("amount > 0", name="ck_coin_transfers_amount"),
        # a player's ledger page by cursor, from either side
        Index("ix_coin_transfers_debit", "tenant_pk", "currency", "debit", "pk"),
        Index("ix_coin_transfers_credit", "tenant_pk", "currency", "credit", "pk"),
        Index("ix_coin_transfers_match", "match_pk",
              postgresql_where=text("match_pk IS NOT NULL"),
              sqlite_where=text("match_pk IS NOT NULL")),
        Index("ix_coin_transfers_tournament", "tournament_pk",
              postgresql_where=text("tournament_pk IS NOT NULL"),
              sqlite_where=text("tournament_pk IS NOT NULL")),
        Index("ix_coin_transfers_idempotency", "tenant_pk", "idempotency_key", unique=True,
              postgresql_where=text("idempotency_key IS NOT NULL"),
              sqlite_where=text("idempotency_key IS NOT NULL")),
    )


class CoinHold(db.Model):  # type: ignore[name-defined,misc]
    """A player's coins held in an escrow (a seat's stake, an entry fee) until settled or
    released; one per escrow, player and currency, so a seat or an entry holds once."""

    __tablename__ = "coin_holds"

    pk: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    tenant_pk: Mapped[int] = mapped_column(
        ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False
    )
    currency: Mapped[str] = mapped_column(String(16), nullable=False)
    player_id: Mapped[str] = mapped_column(String(128), nullable=False)
    escrow: Mapped[str] = mapped_column(String(ACCOUNT), nullable=False)
    amount: Mapped[int] = mapped_column(BigInteger, nullable=False)
    status: Mapped[str] = mapped_column(String(10), nullable=False)
    """A :class:`~service.coins.enums.HoldStatus`."""
    match_pk: Mapped[int | None] = mapped_column(BigInteger)
    tournament_pk: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """Settled or released then."""

    __table_args__ = (
        Index("ix_coin_holds_once", "tenant_pk", "escrow", "player_id", "currency",
              unique=True),
        Index("ix_coin_holds_player", "tenant_pk", "player_id"),
        Index("ix_coin_holds_match", "match_pk",
              postgresql_where=text("match_pk IS NOT NULL"),
              sqlite_where=text("match_pk IS NOT NULL")),
        Index("ix_coin_holds_tournament", "tournament_pk",
              postgresql_where=text("tournament_pk IS NOT NULL"),
              sqlite_where=text("tournament_pk IS NOT NULL")),
    )
