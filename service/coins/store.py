"""The coins' reads: a player's wallet, their ledger by keyset cursor, a transfer by the
front end's Idempotency-Key. Each is one statement, built once, read straight on psycopg
on PostgreSQL (:func:`service.storage.db.read_rows`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, func, literal_column, select, union_all
from sqlalchemy.sql import Select

from ..storage.base import as_utc
from ..storage.db import db, read_rows
from . import accounts
from .enums import HoldStatus, TransferKind
from .models import CoinAccount, CoinHold, CoinTransfer, Currency

_T = CoinTransfer.__table__


@dataclass(frozen=True)
class TransferRow:
    """A transfer as stored."""

    pk: int
    id: str
    currency: str
    debit: str
    credit: str
    amount: int
    kind: TransferKind
    reason: str | None
    reference: str | None
    created_at: datetime


_COLUMNS = (_T.c.pk, _T.c.id, _T.c.currency, _T.c.debit, _T.c.credit, _T.c.amount, _T.c.kind,
            _T.c.reason, _T.c.reference, _T.c.created_at)


def _transfer(r: Sequence[Any]) -> TransferRow:
    return TransferRow(r[0], r[1], r[2], r[3], r[4], int(r[5]), TransferKind(r[6]), r[7],
                       r[8], as_utc(r[9]))


@dataclass(frozen=True)
class Balance:
    """A player's balance in one currency: below zero is a debt; ``held`` is in escrow
    (stakes at tables, entry fees) and not in the balance."""

    currency: str
    name: str
    balance: int
    held: int


_ZERO: Any = literal_column("0")  # constants as SQL: read_rows binds the named parameters only
_HELD = (select(func.coalesce(func.sum(CoinHold.amount), _ZERO))
         .where(CoinHold.tenant_pk == Currency.tenant_pk,
                CoinHold.player_id == bindparam("player"),
                CoinHold.currency == Currency.code,
                CoinHold.status == literal_column(f"'{HoldStatus.HELD}'"))
         .scalar_subquery())
_WALLET = (select(Currency.code, Currency.name, func.coalesce(CoinAccount.balance, _ZERO),
                  _HELD)
           .outerjoin(CoinAccount, (CoinAccount.tenant_pk == Currency.tenant_pk)
                      & (CoinAccount.currency == Currency.code)
                      & (CoinAccount.account == bindparam("account")))
           .where(Currency.tenant_pk == bindparam("tenant")).order_by(Currency.code))


def wallet(tenant: int, player_id: str) -> list[Balance]:
    """The player's balance in each of the front end's currencies (zero where they have
    no account yet)."""
    rows = read_rows(_WALLET, {"tenant": tenant, "player": player_id,
                               "account": accounts.player(player_id)})
    return [Balance(code, name, int(balance), int(held)) for code, name, balance, held in rows]


def currency_codes(tenant: int) -> list[str]:
    """The front end's currency codes."""
    return [r[0] for r in read_rows(_CODES, {"tenant": tenant})]


_CODES = select(Currency.code).where(Currency.tenant_pk == bindparam("tenant")) \
    .order_by(Currency.code)


def _side(column: Any, currency: int, below: bool, rows: int) -> Select[Any]:
    """One side of a player's ledger page in one currency: newest first, under the cursor,
    from its own index (tenant, currency, side, pk)."""
    stmt = select(*_COLUMNS).where(_T.c.tenant_pk == bindparam("tenant"),
                                   _T.c.currency == bindparam(f"currency{currency}"),
                                   column == bindparam("account"))
    if below:
        stmt = stmt.where(_T.c.pk < bindparam("below"))
    return stmt.order_by(_T.c.pk.desc()).limit(literal_column(str(rows)))


@lru_cache(maxsize=256)
def _page_statement(currencies: int, below: bool, rows: int) -> Any:
    """A player's ledger page over ``currencies`` currencies: each side of each read from
    its index, at most a page each, merged newest first (a transfer is never between an
    account and itself: no row twice)."""
    sides = [_side(column, i, below, rows).subquery().select()
             for i in range(currencies) for column in (_T.c.debit, _T.c.credit)]
    merged = union_all(*sides).subquery()
    return select(*merged.c).order_by(merged.c.pk.desc()).limit(literal_column(str(rows)))


def ledger_page(tenant: int, player_id: str, currencies: Sequence[str], below: int | None,
                limit: int) -> list[TransferRow]:
    """Up to ``limit`` of the player's transfers in ``currencies``, newest first, under
    the transfer numbered ``below`` (None: from the newest)."""
    if not currencies:
        return []
    params: dict[str, Any] = {"tenant": tenant, "account": accounts.player(player_id)}
    params.update((f"currency{i}", code) for i, code in enumerate(currencies))
    if below is not None:
        params["below"] = below
    statement = _page_statement(len(currencies), below is not None, limit)
    return [_transfer(r) for r in read_rows(statement, params)]


_KEYED = select(*_COLUMNS).where(_T.c.tenant_pk == bindparam("tenant"),
                                 _T.c.idempotency_key == bindparam("key"))


def keyed(tenant: int, key: str) -> TransferRow | None:
    """The transfer the front end made with this Idempotency-Key, if any."""
    rows = read_rows(_KEYED, {"tenant": tenant, "key": key})
    return _transfer(rows[0]) if rows else None


def by_ids(tenant: int, ids: Sequence[str]) -> list[TransferRow]:
    """Transfers by public id (in the order given)."""
    rows = db.session.execute(select(*_COLUMNS).where(_T.c.tenant_pk == tenant,
                                                      _T.c.id.in_(list(ids)))).all()
    found = {r[1]: _transfer(r) for r in rows}
    return [found[i] for i in ids if i in found]

