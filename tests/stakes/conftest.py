"""Helpers of the staked-table tests: a currency, coins granted from the mint, the
front end's rake, balances read, and a match finished as the tests need."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from service.coins import accounts, ledger
from service.coins import service as coins
from service.coins.enums import TransferKind
from service.coins.models import CoinHold, CoinTransfer
from service.storage.base import utcnow
from service.storage.db import db, transaction
from service.tenants.models import LOCAL_TENANT, FrontEndSettings
from tests.client import auth

CURRENCY = "COINS"


def currency(app: Flask, code: str = CURRENCY) -> None:
    """Name a currency of the local front end."""
    with app.app_context():
        coins.put_currency(LOCAL_TENANT, code, code.title())


def grant(app: Flask, player: str, amount: int, code: str = CURRENCY) -> None:
    """Pay a player ``amount`` from the front end's mint."""
    with app.app_context(), transaction(write=True):
        ledger.post(LOCAL_TENANT, [ledger.Transfer(code, accounts.MINT, accounts.player(player),
                                                   amount, TransferKind.GRANT)], utcnow())


def take(app: Flask, player: str, amount: int, code: str = CURRENCY) -> None:
    """Take ``amount`` of a player's coins back to the mint (they spent it)."""
    with app.app_context(), transaction(write=True):
        ledger.post(LOCAL_TENANT, [ledger.Transfer(code, accounts.player(player), accounts.MINT,
                                                   amount, TransferKind.TAKE)], utcnow())


def rake(app: Flask, share_bp: int, cap: int | None = None) -> None:
    """Set the local front end's rake."""
    with app.app_context(), transaction(write=True):
        db.session.merge(FrontEndSettings(tenant_pk=LOCAL_TENANT, rake_share_bp=share_bp,
                                          rake_cap=cap, starting_grant={}, fair_play={},
                                          updated_at=utcnow()))


def balance(app: Flask, account: str, code: str = CURRENCY) -> int | None:
    """An account's balance (a player's: ``player:<id>``)."""
    with app.app_context(), transaction():
        return ledger.balance(LOCAL_TENANT, code, account)


def wallet(app: Flask, *players: str, code: str = CURRENCY) -> list[int | None]:
    """The players' balances, in order."""
    return [balance(app, accounts.player(p), code) for p in players]


def holds(app: Flask, match_id: str) -> dict[str, str]:
    """player -> status of the holds of a table's escrow."""
    with app.app_context(), transaction():
        return dict(db.session.execute(select(CoinHold.player_id, CoinHold.status).where(
            CoinHold.escrow == accounts.table(match_id))).all())


def transfers(app: Flask, match_id: str) -> list[tuple[str, str, str, int]]:
    """(kind, debit, credit, amount) of a table's transfers, in order."""
    with app.app_context(), transaction():
        found = db.session.execute(select(CoinTransfer.pk).where(
            (CoinTransfer.debit == accounts.table(match_id))
            | (CoinTransfer.credit == accounts.table(match_id))))
        pks = list(found.scalars())
        return [(t.kind, t.debit, t.credit, t.amount) for t in db.session.execute(
            select(CoinTransfer).where(CoinTransfer.pk.in_(pks)).order_by(CoinTransfer.pk)
        ).scalars()]


def token(client: FlaskClient, player: str) -> dict[str, str]:
    """A player token's Authorization header."""
    r = client.post(f"/v1/players/{player}/tokens", json={"name": player.title()})
    assert r.status_code == 201, r.get_json()
    return auth(r.get_json()["token"])


def staked(client: FlaskClient, amount: int, *players: str, code: str = CURRENCY,
           **body: Any) -> Any:
    """POST a staked match of these players (server key: vouched); the response."""
    return client.post("/v1/matches", json={
        "players": [{"name": p, "player_id": p} for p in players],
        "stake": {"currency": code, "amount": amount}, **body})
