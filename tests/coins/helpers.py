"""Coins in a test: a currency named, coins granted and balances read, in the app's own
transactions (tests of stakes and tournaments use them too)."""

from __future__ import annotations

from flask import Flask
from sqlalchemy import select

from service.coins import accounts, ledger
from service.coins import service as coins
from service.coins.enums import TransferKind
from service.coins.models import CoinAccount
from service.storage.base import utcnow
from service.storage.db import db, transaction

LOCAL = 1
"""The built-in front end of requests without an API key."""


def currency(app: Flask, code: str = "COINS", tenant: int = LOCAL) -> str:
    """A currency named at ``tenant`` (its house and mint made); its code."""
    with app.app_context():
        coins.put_currency(tenant, code, code.title())
        db.session.remove()
    return code


def grant(app: Flask, player_id: str, amount: int, code: str = "COINS",
          tenant: int = LOCAL) -> None:
    """``amount`` paid to the player from the mint (the currency named already)."""
    with app.app_context():
        with transaction(write=True):
            ledger.post(tenant, [ledger.Transfer(code, accounts.MINT, accounts.player(player_id),
                                                 amount, TransferKind.GRANT)], utcnow())
        db.session.remove()


def balances(app: Flask, code: str = "COINS", tenant: int = LOCAL) -> dict[str, int]:
    """Every account's balance in the currency, by account id."""
    with app.app_context():
        rows = db.session.execute(select(CoinAccount.account, CoinAccount.balance).where(
            CoinAccount.tenant_pk == tenant, CoinAccount.currency == code)).all()
        db.session.remove()
    return {account: int(balance) for account, balance in rows}
