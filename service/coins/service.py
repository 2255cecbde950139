"""The coins use cases, one transaction each (no HTTP): currencies, a player's wallet and
ledger, the front end's transfers to and from its mint (idempotent by key)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ..storage import cursors
from ..storage.base import as_utc, utcnow
from ..storage.db import db, transaction
from ..tenants import audit
from ..tenants.economy import economy_of
from . import accounts, ledger, store
from .enums import TransferKind
from .errors import IdempotencyKeyReused, InvalidCursor
from .models import Currency
from .store import Balance, TransferRow

CODE = re.compile(r"[A-Z][A-Z0-9_]{0,15}")
"""A currency's code: an upper-case letter, then up to 15 of A-Z 0-9 _."""


@dataclass(frozen=True)
class CurrencyInfo:
    """A currency of a front end."""

    code: str
    name: str
    created_at: datetime


def put_currency(tenant: int, code: str, name: str,
                 actor: str = audit.COMMAND_LINE) -> tuple[CurrencyInfo, bool]:
    """Name a currency (or rename it), with its house and mint accounts made at zero;
    the currency and whether it is new. Audited (``currency.named``)."""
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
        audit.record(tenant, actor, "currency.named", f"currency:{code}", name=name)
        info = CurrencyInfo(row.code, row.name, as_utc(row.created_at))
    return info, made


def currencies(tenant: int) -> list[CurrencyInfo]:
    """The front end's currencies, by code."""
    with transaction(one_statement=True):
        rows = db.session.execute(select(Currency).where(Currency.tenant_pk == tenant)
                                  .order_by(Currency.code)).scalars().all()
        return [CurrencyInfo(r.code, r.name, as_utc(r.created_at)) for r in rows]





def wallet(tenant: int, player_id: str) -> list[Balance]:
    """The player's balance in each of the front end's currencies (below zero: a debt),
    and what they have in escrow."""
    with transaction(one_statement=True):
        return store.wallet(tenant, player_id)


@dataclass(frozen=True)
class LedgerPage:
    """A page of a player's transfers, newest first, and the cursor of the next."""

    player_id: str
    transfers: list[TransferRow]
    next: str | None


CURSOR = "tr"
"""The kind of a ledger page's cursor (signed: a client cannot forge one)."""


def ledger_page(tenant: int, player_id: str, currency: str | None, cursor: str | None,
                limit: int, cursor_key: bytes) -> LedgerPage:
    """The player's transfers (in ``currency``, or in every one), newest first, a page at
    a time: keyset on the transfers' numbers, cursors signed with ``cursor_key``."""
    below = None
    if cursor is not None:
        try:
            below = cursors.read_number(CURSOR, cursor, cursor_key, below=2**63)
        except ValueError as error:
            raise InvalidCursor("the cursor is not one this service issued",
                                field="cursor", problem="unknown cursor") from error
    with transaction():
        codes = [currency] if currency else store.currency_codes(tenant)
        rows = store.ledger_page(tenant, player_id, codes, below, limit + 1)
        if currency and not rows:
            ledger.check_currencies(tenant, [currency])
    more = len(rows) > limit
    rows = rows[:limit]
    return LedgerPage(player_id, rows, cursors.sign(CURSOR, str(rows[-1].pk), cursor_key)
                      if more and rows else None)


@dataclass(frozen=True)
class Asked:
    """A transfer the front end asks for: ``amount`` to the player from the mint (a
    grant), or from the player back to it (a take)."""

    currency: str
    amount: int
    player_id: str
    to_player: bool
    reason: str
    reference: str | None = None

    def transfer(self, key: str | None, kind: TransferKind | None = None) -> ledger.Transfer:
        mine = accounts.player(self.player_id)
        debit, credit = (accounts.MINT, mine) if self.to_player else (mine, accounts.MINT)
        kind = kind or (TransferKind.GRANT if self.to_player else TransferKind.TAKE)
        return ledger.Transfer(self.currency, debit, credit, self.amount, kind,
                               reason=self.reason, reference=self.reference,
                               idempotency_key=key)

    def same_as(self, row: TransferRow) -> bool:
        """Whether ``row`` is what this asks for (a retry of it)."""
        asked = self.transfer(None)
        return (row.currency, row.debit, row.credit, row.amount, row.reason, row.reference) \
            == (asked.currency, asked.debit, asked.credit, asked.amount, asked.reason,
                asked.reference)


def transfer(tenant: int, asked: Asked, key: str | None, *,
             kind: TransferKind | None = None, actor: str | None = None) -> TransferRow:
    """Grant or take coins (``POST /v1/transfers``), once per Idempotency-Key: the key
    again with the same transfer answers the first one, with another is refused
    (:class:`IdempotencyKeyReused`); a take beyond the balance is InsufficientFunds. The
    player hears ``wallet.changed``. Keys are kept for good (a transfer is never
    deleted), so a retry never pays twice however late. ``kind`` other than a grant or a
    take (staff's ``adjust``); with ``actor``, audited (``wallet.adjusted``)."""
    for attempt in (1, 2):
        if key is not None:
            with transaction():
                earlier = store.keyed(tenant, key)
            if earlier is not None:
                if not asked.same_as(earlier):
                    raise IdempotencyKeyReused("this Idempotency-Key was used for a "
                                               "different transfer", field="Idempotency-Key")
                return earlier
        try:
            with transaction(write=True):
                [made] = ledger.post(tenant, [asked.transfer(key, kind)], utcnow())
                if actor is not None:
                    audit.record(tenant, actor, "wallet.adjusted", f"player:{asked.player_id}",
                                 currency=asked.currency, amount=asked.amount if
                                 asked.to_player else -asked.amount, transfer=made,
                                 reason=asked.reason)
                return store.by_ids(tenant, [made])[0]
        except IntegrityError:  # the same key, raced: the other's is the first answer
            if attempt == 2 or key is None:
                raise
    raise AssertionError("unreachable")


def describe(row: TransferRow, player_id: str | None = None) -> dict[str, Any]:
    """A transfer as the API shows it, rendered (with, in a player's ledger, its
    ``change`` to their balance): the schemas pass it on as it is."""
    shown = ledger.wire(ledger.Transfer(row.currency, row.debit, row.credit, row.amount,
                                        row.kind, row.reason, row.reference, id=row.id),
                        row.created_at)
    shown["created_at"] = row.created_at.isoformat()  # as UTCDateTime writes it
    if player_id is not None:
        mine = accounts.player(player_id)
        shown["change"] = row.amount if row.credit == mine else -row.amount
    return shown


def known_currency(tenant: int, code: str) -> None:
    """UnknownCurrency unless the front end named ``code``."""
    with transaction():
        ledger.check_currencies(tenant, [code])



def currency_codes(tenant: int) -> list[str]:
    """The front end's currency codes (in the caller's transaction, or one of its own)."""
    return store.currency_codes(tenant)


def starting_grant(tenant: int, player_id: str) -> None:
    """A new player's starting grant, paid from the mint as the front end's settings say,
    in the write transaction that records them (wired by the composition root to the
    players' new-player hook): once per player, since a player is new once (an erased
    id vouched for again is a new player, whose balance the erasure returned)."""
    grant = economy_of(tenant).starting_grant
    if not grant:
        return
    named = set(store.currency_codes(tenant))
    mine = accounts.player(player_id)
    ledger.post(tenant, [
        ledger.Transfer(code, accounts.MINT, mine, amount, TransferKind.STARTING_GRANT,
                        reason="starting grant")
        for code, amount in sorted(grant.items()) if amount > 0 and code in named], utcnow())
