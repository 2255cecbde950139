"""Currencies and wallets (issue 57, item 1): a front end names its currencies with its
server key; a player's wallet shows a balance in each (a debt as such, what is held in
escrow) and their ledger newest first by cursor, to their own token or the server key
only."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from service.coins import accounts, ledger
from service.coins.enums import TransferKind
from service.coins.schemas import LedgerPageSchema
from service.storage import writes
from service.storage.base import utcnow
from service.storage.db import db, transaction
from service.tenants import service as tenants
from tests.client import auth
from tests.coins.helpers import LOCAL, balances, currency, grant
from tests.conftest import api_key
from tests.tournaments.helpers import mint


def test_a_server_key_names_currencies_with_their_house_and_mint(
        app: Flask, client: FlaskClient) -> None:
    acme = api_key(app, "acme")
    r = client.put("/v1/currencies/COINS", headers=acme, json={"name": "Coins"})
    assert r.status_code == 201 and r.get_json()["code"] == "COINS"
    r = client.put("/v1/currencies/COINS", headers=acme, json={"name": "Gold coins"})
    assert r.status_code == 200 and r.get_json()["name"] == "Gold coins"
    assert client.put("/v1/currencies/GEMS_2", headers=acme, json={"name": "Gems"}) \
        .status_code == 201
    listed = client.get("/v1/currencies", headers=acme).get_json()["currencies"]
    assert [(c["code"], c["name"]) for c in listed] == [("COINS", "Gold coins"), ("GEMS_2", "Gems")]
    assert client.get("/v1/currencies").get_json() == {"currencies": []}  # another front end's
    for bad in ("coins", "1COIN", "A" * 17, "CO-IN"):
        r = client.put(f"/v1/currencies/{bad}", headers=acme, json={"name": "x"})
        assert r.status_code == 422, bad
    browser = api_key(app, "acme", "https://play.example")
    r = client.put("/v1/currencies/GEMS", headers=browser, json={"name": "Gems"})
    assert r.status_code == 403 and r.get_json()["reason"] == "server_key_required"
    with app.app_context():
        tenant = tenants.tenant_pk("acme")
        db.session.remove()
    assert balances(app, "COINS", tenant) == {accounts.HOUSE: 0, accounts.MINT: 0}


def test_a_wallet_shows_each_currency_a_debt_and_what_is_held(
        app: Flask, client: FlaskClient) -> None:
    currency(app, "COINS")
    currency(app, "GEMS")
    grant(app, "ann", 100)
    with app.app_context():
        with transaction(write=True):
            ledger.hold(LOCAL, "COINS", "ann", accounts.table("m1"), 30, TransferKind.HOLD,
                        utcnow(), match_pk=1)
            writes.write(ledger.release_rows(LOCAL, ledger.holds_in(LOCAL, accounts.table("m1")),
                                             utcnow()))
            ledger.hold(LOCAL, "COINS", "ann", accounts.table("m2"), 30, TransferKind.HOLD,
                        utcnow(), match_pk=2)
            writes.write(ledger.transfer_rows(LOCAL, [ledger.Transfer(  # a void's reversal
                "GEMS", accounts.player("ann"), accounts.player("bob"), 7,
                TransferKind.REFUND_POT, match_pk=3)], utcnow()))
        db.session.remove()
    r = client.get("/v1/players/ann/wallet")
    assert r.status_code == 200
    assert r.get_json() == {"player_id": "ann", "balances": [
        {"currency": "COINS", "name": "Coins", "balance": 70, "debt": 0, "held": 30},
        {"currency": "GEMS", "name": "Gems", "balance": -7, "debt": 7, "held": 0}]}
    assert client.get("/v1/players/nobody/wallet").get_json()["balances"][0]["balance"] == 0
    with app.app_context():  # the table ends: its hold released, for the checker
        with transaction(write=True):
            writes.write(ledger.release_rows(LOCAL, ledger.holds_in(LOCAL, accounts.table("m2")),
                                             utcnow()))
        db.session.remove()


def test_a_wallet_is_the_players_own_or_the_server_keys(app: Flask, client: FlaskClient) -> None:
    acme = api_key(app, "acme")
    browser = api_key(app, "acme", "https://play.example")
    ann, bob = mint(client, "ann", acme), mint(client, "bob", acme)
    for path in ("/v1/players/ann/wallet", "/v1/players/ann/wallet/transfers"):
        assert client.get(path, headers=acme).status_code == 200
        assert client.get(path, headers={**browser, **auth(ann)}).status_code == 200
        assert client.get(path, headers=auth(ann)).status_code == 200
        for other in ({**browser, **auth(bob)}, auth(bob), browser):
            r = client.get(path, headers=other)
            assert r.status_code == 403 and r.get_json()["reason"] == "not_this_player", other
    assert client.get("/v1/players/a%20b/wallet", headers=acme).status_code == 422


def test_a_ledger_pages_newest_first_by_cursor(app: Flask, client: FlaskClient) -> None:
    currency(app, "COINS")
    currency(app, "GEMS")
    for amount in range(1, 6):
        grant(app, "ann", amount)
    grant(app, "ann", 9, "GEMS")
    grant(app, "bob", 50)
    r = client.get("/v1/players/ann/wallet/transfers?limit=2")
    page = r.get_json()
    assert r.status_code == 200 and [t["amount"] for t in page["transfers"]] == [9, 5]
    first = page["transfers"][0]
    assert first["currency"] == "GEMS" and first["kind"] == "grant" and first["change"] == 9
    assert first["from"] == {"account": "mint"}
    assert first["to"] == {"account": "player", "player_id": "ann"}
    LedgerPageSchema().load(page)  # rendered by hand: what the schema says, no more
    seen = [t["amount"] for t in page["transfers"]]
    while page["next"]:
        page = client.get(f"/v1/players/ann/wallet/transfers?limit=2&cursor={page['next']}") \
            .get_json()
        seen += [t["amount"] for t in page["transfers"]]
    assert seen == [9, 5, 4, 3, 2, 1]
    coins = client.get("/v1/players/ann/wallet/transfers?currency=COINS&limit=10").get_json()
    assert [t["amount"] for t in coins["transfers"]] == [5, 4, 3, 2, 1] and coins["next"] is None
    assert client.get("/v1/players/ann/wallet/transfers?currency=GOLD").get_json()["reason"] \
        == "unknown_currency"
    r = client.get("/v1/players/ann/wallet/transfers?cursor=forged")
    assert r.status_code == 422 and r.get_json()["reason"] == "invalid_cursor"
    # a take shows as a change below zero
    assert client.post("/v1/transfers", headers={"Idempotency-Key": "t"}, json={
        "currency": "COINS", "amount": 3, "from": "ann", "reason": "refund"}).status_code == 201
    newest = client.get("/v1/players/ann/wallet/transfers?limit=1").get_json()["transfers"][0]
    assert (newest["kind"], newest["change"], newest["to"]) == ("take", -3, {"account": "mint"})
