"""The front end's transfers (issue 57, item 2): ``POST /v1/transfers`` grants from its
mint (``to``) and takes back to it (``from``), with its server key and an
Idempotency-Key: a retry answers the first transfer and never pays twice, another body
with the key is refused; a take never goes below zero; the player hears
``wallet.changed`` on their stream and the front end's webhooks, in the same
transaction."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from service.coins.schemas import TransferSchema
from service.players.models import PlayerEvent
from service.storage.db import db
from service.webhooks.models import WebhookMessage
from tests.coins.helpers import balances, currency
from tests.conftest import api_key, use_settings


def _transfer(client: FlaskClient, key: str | None = "k-1", **body: Any) -> Any:
    body = {"currency": "COINS", "amount": 50, "to": "ann", "reason": "purchase", **body}
    body = {name: value for name, value in body.items() if value is not None}
    return client.post("/v1/transfers", json=body,
                       headers={"Idempotency-Key": key} if key else {})


def test_a_grant_pays_from_the_mint_once_per_key(app: Flask, client: FlaskClient) -> None:
    currency(app)
    r = _transfer(client, reference="receipt-77")
    assert r.status_code == 201, r.get_json()
    made = r.get_json()
    assert made["id"].startswith("tr_") and made["kind"] == "grant" and made["amount"] == 50
    assert made["from"] == {"account": "mint"} and made["reference"] == "receipt-77"
    TransferSchema().load(made)  # rendered by hand: what the schema says, no more
    again = _transfer(client, reference="receipt-77")
    assert again.status_code == 201 and again.get_json() == made  # the first answer
    assert balances(app)["player:ann"] == 50 and balances(app)["mint"] == -50
    other = _transfer(client, amount=51, reference="receipt-77")
    assert other.status_code == 422 and other.get_json()["reason"] == "idempotency_key_reused"
    assert _transfer(client, key="k-2").get_json()["id"] != made["id"]  # a new key: new
    assert balances(app)["player:ann"] == 100


def test_a_take_returns_coins_to_the_mint_and_never_below_zero(
        app: Flask, client: FlaskClient) -> None:
    currency(app)
    _transfer(client, amount=30)
    r = _transfer(client, key="t-1", amount=31, to=None, **{"from": "ann"})
    assert r.status_code == 409 and r.get_json()["reason"] == "insufficient_funds"
    r = _transfer(client, key="t-2", amount=30, to=None, **{"from": "ann"})
    assert r.status_code == 201 and r.get_json()["kind"] == "take"
    assert r.get_json()["to"] == {"account": "mint"}
    assert balances(app) == {"house": 0, "mint": 0, "player:ann": 0}
    # the refused key was never used: it may be used now
    assert _transfer(client, key="t-1", amount=1).status_code == 201


@pytest.mark.parametrize(("body", "field"), [
    ({"to": None}, "to"), ({"from": "bob"}, "to"), ({"amount": 0}, "amount"),
    ({"amount": -5}, "amount"), ({"amount": 1.5}, "amount"), ({"reason": ""}, "reason"),
    ({"currency": "coins"}, "currency"), ({"to": "a b"}, "to"),
])
def test_a_transfer_must_say_what_it_moves(app: Flask, client: FlaskClient,
                                           body: dict[str, Any], field: str) -> None:
    currency(app)
    r = _transfer(client, **body)
    assert r.status_code == 422, r.get_json()
    assert field in json.dumps(r.get_json()["errors"])


def test_a_transfer_needs_a_key_a_known_currency_and_the_server_key(
        app: Flask, client: FlaskClient) -> None:
    currency(app)
    r = _transfer(client, key=None)
    assert r.status_code == 400 and r.get_json()["reason"] == "idempotency_key_required"
    r = _transfer(client, currency="GEMS")
    assert r.status_code == 422 and r.get_json()["reason"] == "unknown_currency"
    browser = api_key(app, "local-browser", "https://play.example")
    r = client.post("/v1/transfers", headers={**browser, "Idempotency-Key": "b"}, json={
        "currency": "COINS", "amount": 5, "to": "ann", "reason": "x"})
    assert r.status_code == 403 and r.get_json()["reason"] == "server_key_required"
    assert balances(app) == {"house": 0, "mint": 0}


def test_the_player_hears_wallet_changed_on_their_stream_and_the_webhooks(
        app: Flask, client: FlaskClient) -> None:
    use_settings(app, webhooks_allow_private=True)
    acme = api_key(app, "acme")
    assert client.post("/v1/webhooks", headers=acme, json={
        "url": "http://127.0.0.1:9/hook", "events": ["wallet.changed"]}).status_code == 201
    assert client.put("/v1/currencies/COINS", headers=acme, json={"name": "C"}).status_code == 201
    made = client.post("/v1/transfers", headers={**acme, "Idempotency-Key": "w"}, json={
        "currency": "COINS", "amount": 8, "to": "ann", "reason": "gift"}).get_json()
    with app.app_context():
        stream = db.session.execute(select(PlayerEvent.player_id, PlayerEvent.type,
                                           PlayerEvent.body)).all()
        hooks = db.session.execute(select(WebhookMessage.type, WebhookMessage.body)).all()
        db.session.remove()
    told = {"player_id": "ann", "currency": "COINS", "change": 8, "transfer": {
        **{k: made[k] for k in ("id", "currency", "amount", "kind", "from", "to", "reason",
                                "reference")}, "created_at": made["created_at"]
        .replace("+00:00", "Z")}}
    assert [(p, k, json.loads(b)) for p, k, b in stream] == [("ann", "wallet.changed", told)]
    assert [(k, json.loads(b)["data"]) for k, b in hooks] == [("wallet.changed", told)]


def test_racing_retries_of_one_key_pay_once(backend: str, app: Flask) -> None:
    """Two requests with the same key at once: one transfer; both answer it."""
    if backend != "postgres":
        pytest.skip("SQLite writes one at a time")
    currency(app)
    answers: list[Any] = []
    start = threading.Barrier(4)

    def send() -> None:
        client = app.test_client()
        start.wait(5)
        answers.append(_transfer(client, key="raced"))

    threads = [threading.Thread(target=send) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert [a.status_code for a in answers] == [201] * 4
    assert len({a.get_json()["id"] for a in answers}) == 1
    assert balances(app)["player:ann"] == 50
