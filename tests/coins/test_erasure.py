"""A player's coins in their export and erasure (issue 57, item 5): the export lists
their wallet and ledger; the erasure returns a positive balance to the mint in a
recorded ``erasure`` transfer and replaces their id by the erasure's pseudonym in their
accounts, transfers and holds, the totals whole (the checker runs after each test)."""

from __future__ import annotations

from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, text

from service.coins import accounts, ledger
from service.coins.enums import TransferKind
from service.coins.models import CoinHold, CoinTransfer
from service.storage import writes
from service.storage.base import utcnow
from service.storage.db import db, transaction
from tests.coins.helpers import LOCAL, balances, currency, grant
from tests.tournaments.helpers import mint


def test_the_export_holds_the_wallet_and_the_ledger(app: Flask, client: FlaskClient) -> None:
    currency(app)
    mint(client, "ann")
    grant(app, "ann", 12)
    data = client.get("/v1/players/ann/export").get_json()
    assert data["wallet"] == [{"currency": "COINS", "balance": 12, "debt": 0, "held": 0}]
    assert [(t["kind"], t["change"]) for t in data["ledger"]] == [("grant", 12)]


def test_an_erasure_returns_the_balance_and_keeps_the_ledger_under_a_pseudonym(
        app: Flask, client: FlaskClient) -> None:
    currency(app)
    currency(app, "GEMS")
    mint(client, "ann")
    mint(client, "bob")
    grant(app, "ann", 100)
    grant(app, "bob", 100)
    with app.app_context():
        with transaction(write=True):  # a settled table ann won, and a debt in gems
            for who in ("ann", "bob"):
                ledger.hold(LOCAL, "COINS", who, accounts.table("m1"), 20, TransferKind.HOLD,
                            utcnow(), match_pk=1)
            writes.write(ledger.settle_rows(LOCAL, ledger.holds_in(LOCAL, accounts.table("m1")), [
                ledger.Transfer("COINS", accounts.table("m1"), accounts.player("ann"), 40,
                                TransferKind.POT, match_pk=1)], utcnow()))
            writes.write(ledger.transfer_rows(LOCAL, [ledger.Transfer(
                "GEMS", accounts.player("ann"), accounts.player("bob"), 3,
                TransferKind.REFUND_POT, match_pk=2)], utcnow()))
        db.session.remove()
    assert client.delete("/v1/players/ann").status_code == 200
    coins, gems = balances(app), balances(app, "GEMS")
    assert "player:ann" not in coins and "player:ann" not in gems
    [alias] = [a for a in coins if a.startswith("player:erased-")]
    assert coins[alias] == 0 and coins["mint"] == -200 + 120 and coins["player:bob"] == 80
    assert gems[alias] == -3  # a debt stays, under the new name
    with app.app_context():
        rows = db.session.execute(select(CoinTransfer.debit, CoinTransfer.credit,
                                         CoinTransfer.kind, CoinTransfer.amount)).all()
        holders = set(db.session.execute(select(CoinHold.player_id)).scalars())
        db.session.remove()
    assert not any("ann" in side for d, c, _, _ in rows for side in (d, c))
    assert (alias, "mint", "erasure", 120) in [tuple(r) for r in rows]
    assert holders == {"bob", alias.removeprefix("player:")}


def test_basra_ledger_check_says_whole_or_lists_each_breach(
        tmp_path: Path, monkeypatch, capsys) -> None:  # noqa: ANN001
    from service import create_app
    from service.cli import main

    url = f"sqlite:///{tmp_path / 'l.sqlite3'}"
    monkeypatch.setenv("DATABASE_URL", url)
    assert main(["db", "upgrade"]) == 0
    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    currency(app)
    grant(app, "ann", 5)
    capsys.readouterr()
    assert main(["ledger", "check"]) == 0
    assert "ledger whole" in capsys.readouterr().err
    with app.app_context():
        db.session.execute(text("UPDATE coin_accounts SET balance = 6 "
                                "WHERE account = 'player:ann'"))
        db.session.commit()
        db.session.remove()
    assert main(["ledger", "check", "local"]) == 1
    out = capsys.readouterr()
    assert "sum: tenant 1 COINS *" in out.out and "balance 6, its transfers 5" in out.out
    assert main(["ledger", "check", "--json"]) == 1
    assert '"rule": "balance"' in capsys.readouterr().out
    assert main(["ledger", "check", "nobody"]) == 2
