"""The coins use cases: currencies, one transaction each; no HTTP."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from ..storage.base import as_utc, utcnow
from ..storage.db import db, transaction
from . import accounts, ledger
from .models import Currency

CODE = re.compile(r"[A-Z][A-Z0-9_]{0,15}")
"""A currency's code: an upper-case letter, then up to 15 of A-Z 0-9 _."""


@dataclass(frozen=True)
class CurrencyInfo:
    """A currency of a front end."""

    code: str
    name: str
    created_at: datetime


def put_currency(tenant: int, code: str, name: str) -> tuple[CurrencyInfo, bool]:
    """Name a currency (or rename it), with its house and mint accounts made at zero;
    the currency and whether it is new."""
    if not CODE.fullmatch(code):
        raise ValueError(f"not a currency code: {code!r}")
    now = utcnow()
    with transaction(write=True):
        row = db.session.execute(select(Currency).where(
            Currency.tenant_pk == tenant, Currency.code == code
        ).with_for_update()).scalar_one_or_none()
        made = row is None
        if row is None:
            row = Currency(tenant_pk=tenant, code=code, name=name, created_at=now)
            db.session.add(row)
            db.session.flush()
            ledger.open_accounts(tenant, code, [accounts.HOUSE, accounts.MINT], now)
        else:
            row.name = name
        info = CurrencyInfo(row.code, row.name, as_utc(row.created_at))
    return info, made


def currencies(tenant: int) -> list[CurrencyInfo]:
    """The front end's currencies, by code."""
    with transaction(one_statement=True):
        rows = db.session.execute(select(Currency).where(Currency.tenant_pk == tenant)
                                  .order_by(Currency.code)).scalars().all()
        return [CurrencyInfo(r.code, r.name, as_utc(r.created_at)) for r in rows]



