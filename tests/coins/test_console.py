"""The console's wallet (issue 57, item 2): staff read a player's wallet and ledger; an
admin (or the server key) adjusts a balance with an ``adjust`` transfer from or to the
mint, with its reason, audited; a moderator may not."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask

from service.tenants import service as tenants
from service.tenants.enums import StaffRole
from tests.coins.helpers import balances
from tests.conftest import make_app
from tests.tenants.test_staff import _signed_in, _staff_key


@pytest.fixture
def keyed(backend: str, tmp_path: Path) -> Flask:
    return make_app(backend, tmp_path, BASRA_API_KEYS="required", BASRA_KEY_CACHE_SECONDS=0)


def test_an_admin_adjusts_a_balance_audited_and_a_moderator_may_not(keyed: Flask) -> None:
    admin, administering = _signed_in(keyed, _staff_key(keyed, StaffRole.ADMIN, "adel"))
    moderator, moderating = _signed_in(keyed, _staff_key(keyed, StaffRole.MODERATOR, "mona"))
    with keyed.app_context():
        acme = tenants.tenant_pk("acme")
        server = {"X-API-Key": tenants.create_key("acme", [])}
    server_client = keyed.test_client()
    assert server_client.put("/v1/currencies/COINS", headers=server,
                             json={"name": "Coins"}).status_code == 201
    path = "/v1/players/ann/wallet/adjustments"
    r = admin.post(path, headers=administering, json={
        "currency": "COINS", "amount": 40, "reason": "lost in an outage"})
    assert r.status_code == 201, r.get_json()
    assert (r.get_json()["kind"], r.get_json()["from"]) == ("adjust", {"account": "mint"})
    r = admin.post(path, headers=administering, json={
        "currency": "COINS", "amount": -15, "reason": "double credit"})
    assert r.status_code == 201 and r.get_json()["to"] == {"account": "mint"}
    r = admin.post(path, headers=administering, json={
        "currency": "COINS", "amount": -26, "reason": "too much"})
    assert r.status_code == 409 and r.get_json()["reason"] == "insufficient_funds"
    assert admin.post(path, headers=administering, json={
        "currency": "COINS", "amount": 0, "reason": "nothing"}).status_code == 422
    r = moderator.post(path, headers=moderating, json={
        "currency": "COINS", "amount": 5, "reason": "x"})
    assert r.status_code == 403 and r.get_json()["reason"] == "staff_role_too_low"
    # staff read the wallet and its ledger (a viewer's right)
    wallet = moderator.get("/v1/players/ann/wallet").get_json()
    assert wallet["balances"][0]["balance"] == 25
    ledger = moderator.get("/v1/players/ann/wallet/transfers").get_json()["transfers"]
    assert [(t["kind"], t["change"], t["reason"]) for t in ledger] == [
        ("adjust", -15, "double credit"), ("adjust", 40, "lost in an outage")]
    assert balances(keyed, "COINS", acme)["player:ann"] == 25
    entries = server_client.get("/v1/audit", headers=server).get_json()["entries"]
    adjusted = [e for e in entries if e["action"] == "wallet.adjusted"]
    assert [(e["actor"], e["subject"], e["details"]["amount"]) for e in adjusted] == [
        ("staff:adel", "player:ann", -15), ("staff:adel", "player:ann", 40)]
    # the server key may too, once per Idempotency-Key
    for _ in range(2):
        r = server_client.post(path, headers={**server, "Idempotency-Key": "a-1"}, json={
            "currency": "COINS", "amount": 5, "reason": "goodwill"})
        assert r.status_code == 201
    assert balances(keyed, "COINS", acme)["player:ann"] == 30


def test_the_console_shows_the_wallet(keyed: Flask) -> None:
    """The player page's script reads the wallet and adjusts through the public API."""
    script = keyed.test_client().get("/console/console.js").get_data(as_text=True)
    assert "/wallet/adjustments" in script and "/wallet/transfers?limit=50" in script
