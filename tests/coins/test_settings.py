"""One settings resource per front end (issue 57, item 2): ``GET``/``PUT /v1/settings``
with the server key: the rake (a share as a decimal string, a cap), the starting grant
(paid once to each new player, from the mint) and fair play's object; audited."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.tenants.economy import economy_of, share_points, share_text
from tests.client import auth
from tests.coins.helpers import LOCAL, balances, currency
from tests.conftest import api_key
from tests.tournaments.helpers import mint


def _put(client: FlaskClient, **body: Any) -> Any:
    return client.put("/v1/settings", json=body)


def test_settings_start_at_their_defaults_and_keep_what_is_left_out(
        app: Flask, client: FlaskClient) -> None:
    assert client.get("/v1/settings").get_json() == {
        "rake": {"share": "0", "cap": None}, "starting_grant": {}, "fair_play": {},
        "updated_at": None}
    currency(app)
    r = _put(client, rake={"share": "0.05", "cap": 100}, starting_grant={"COINS": 500})
    assert r.status_code == 200, r.get_json()
    r = _put(client, fair_play={"z": 3.5, "pools": ["egyptian-v2"]})
    shown = r.get_json()
    assert shown["rake"] == {"share": "0.05", "cap": 100}
    assert shown["starting_grant"] == {"COINS": 500}
    assert shown["fair_play"] == {"z": 3.5, "pools": ["egyptian-v2"]}
    assert shown["updated_at"] is not None and client.get("/v1/settings").get_json() == shown
    with app.app_context():
        found = economy_of(LOCAL)
    assert (found.rake_share_bp, found.rake_cap, found.rake(3000)) == (500, 100, 100)
    entries = client.get("/v1/audit").get_json()["entries"]
    assert [e["action"] for e in entries].count("settings.changed") == 2


@pytest.mark.parametrize("rake", [
    {"share": "0.6", "cap": 1}, {"share": "-0.1", "cap": 1}, {"share": "0.00001", "cap": 1},
    {"share": "five", "cap": 1}, {"share": "NaN", "cap": 1}, {"share": 0.05, "cap": 1},
    {"share": "0.05", "cap": -1}, {"share": "0.05"},
])
def test_a_rake_is_a_share_to_one_half_and_a_cap(client: FlaskClient, rake: Any) -> None:
    r = _put(client, rake=rake)
    assert r.status_code == 422, r.get_json()


def test_share_points_read_and_write_decimal_strings() -> None:
    assert [share_points(s) for s in ("0", "0.5", "0.05", "0.0125", "0.10")] \
        == [0, 5000, 500, 125, 1000]
    assert [share_text(p) for p in (0, 5000, 500, 125)] == ["0", "0.5", "0.05", "0.0125"]


def test_a_starting_grant_names_known_currencies_and_fair_play_is_an_object(
        app: Flask, client: FlaskClient) -> None:
    r = _put(client, starting_grant={"COINS": 10})
    assert r.status_code == 422 and r.get_json()["reason"] == "settings_refused"
    assert _put(client, starting_grant={"coins": 10}).status_code == 422
    assert _put(client, starting_grant={"COINS": -1}).status_code == 422
    assert _put(client, fair_play=[1, 2]).status_code == 422
    browser = api_key(app, "acme", "https://play.example")
    r = client.get("/v1/settings", headers=browser)
    assert r.status_code == 403 and r.get_json()["reason"] == "server_key_required"


def test_a_new_player_is_paid_the_starting_grant_once(app: Flask, client: FlaskClient) -> None:
    currency(app, "COINS")
    currency(app, "GEMS")
    mint(client, "early")  # before any grant: nothing
    assert _put(client, starting_grant={"COINS": 500, "GEMS": 0}).status_code == 200
    token = mint(client, "ann")
    mint(client, "ann")  # vouched for again: not new
    mint(client, "early")
    assert balances(app)["player:ann"] == 500 and "player:early" not in balances(app)
    assert "player:ann" not in balances(app, "GEMS")
    page = client.get("/v1/players/ann/wallet/transfers", headers=auth(token)).get_json()
    assert [(t["kind"], t["change"], t["reason"]) for t in page["transfers"]] == [
        ("starting_grant", 500, "starting grant")]
    # a player first seated by a server key's match is new too
    r = client.post("/v1/matches", json={"players": [{"name": "Cy", "player_id": "cy"},
                                                     {"bot": "random"}]})
    assert r.status_code == 201, r.get_json()
    assert balances(app)["player:cy"] == 500


def test_an_erased_player_vouched_for_again_is_new_and_granted_again(
        app: Flask, client: FlaskClient) -> None:
    """The erasure returned the first grant to the mint (under the pseudonym); the id
    vouched for again is a new player, with a grant of their own."""
    currency(app)
    assert _put(client, starting_grant={"COINS": 50}).status_code == 200
    mint(client, "ann")
    assert client.delete("/v1/players/ann").status_code == 200
    assert "player:ann" not in balances(app)
    mint(client, "ann")
    coins = balances(app)
    assert coins["player:ann"] == 50 and coins["mint"] == -50
    [alias] = [a for a in coins if a.startswith("player:erased-")]
    assert coins[alias] == 0
