"""Staked tables found by quick play (only players at the same stake pair up), made by a
challenge's acceptance and by a rematch: each seat holds the stake as it is taken, or
is refused with nothing changed. Each test ends with the ledger's checker."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.client import auth, tokens
from tests.stakes.conftest import currency, grant, holds, staked, token, wallet

pytestmark = pytest.mark.usefixtures("ledger_checked")


def _quick(client: FlaskClient, who: dict[str, str], amount: int | None,
           code: str = "COINS", **body: object) -> object:
    if amount is not None:
        body["stake"] = {"currency": code, "amount": amount}
    return client.post("/v1/matches/quick", headers=who, json=body)


def test_quick_play_pairs_only_players_at_the_same_stake(app: Flask, client: FlaskClient) -> None:
    """Ana at 10, Bo at 20, Cy unstaked each open a table of their own; Di at 10 joins
    Ana's, Ed at 20 Bo's; each seat held its stake as it sat; asked again, Ana at 10 gets
    her table again (holding nothing more), at 20 another one."""
    currency(app)
    players = ["ana", "bo", "cy", "di", "ed"]
    for p in players:
        grant(app, p, 100)
    who = {p: token(client, p) for p in players}
    ana = _quick(client, who["ana"], 10).get_json()
    bo = _quick(client, who["bo"], 20).get_json()
    cy = _quick(client, who["cy"], None).get_json()
    assert len({ana["id"], bo["id"], cy["id"]}) == 3
    assert ana["state"]["stake"]["amount"] == 10 and cy["state"]["stake"] is None
    di = _quick(client, who["di"], 10).get_json()
    ed = _quick(client, who["ed"], 20).get_json()
    assert di["id"] == ana["id"] and ed["id"] == bo["id"]
    assert di["state"]["status"] == ed["state"]["status"] == "active"
    assert wallet(app, *players) == [90, 80, 100, 90, 80]
    assert holds(app, ana["id"]) == {"ana": "held", "di": "held"}
    again = _quick(client, who["cy"], None).get_json()
    assert again["id"] == cy["id"]
    other = _quick(client, who["cy"], 5).get_json()
    assert other["id"] != cy["id"] and wallet(app, "cy") == [95]
    same = _quick(client, who["cy"], 5).get_json()
    assert same["id"] == other["id"] and wallet(app, "cy") == [95]


def test_quick_play_at_a_stake_refuses_who_cannot_hold_it(app: Flask, client: FlaskClient) -> None:
    """Short of coins: 409 insufficient_funds, no table opened or joined; an anonymous
    caller: 422 stake_needs_players; an unknown currency: 422 unknown_currency."""
    currency(app)
    grant(app, "ana", 10)
    grant(app, "bo", 9)
    ana = _quick(client, token(client, "ana"), 10).get_json()
    r = _quick(client, token(client, "bo"), 10)
    assert r.status_code == 409 and r.get_json()["reason"] == "insufficient_funds"
    assert client.get(f"/v1/matches/{ana['id']}").get_json()["seats"][1]["open"] is True
    assert wallet(app, "bo") == [9]
    anonymous = client.post("/v1/matches/quick", json={"name": "x",
                                                       "stake": {"currency": "COINS",
                                                                 "amount": 10}})
    assert anonymous.status_code == 422
    assert anonymous.get_json()["reason"] == "stake_needs_players"
    r = _quick(client, token(client, "bo"), 1, code="GEMS")
    assert r.status_code == 422 and r.get_json()["reason"] == "unknown_currency"


def test_a_staked_challenge_seats_both_holding_the_stake(app: Flask, client: FlaskClient) -> None:
    """A challenge at a stake shows it; accepted while the challenger is short, it is
    refused (409 insufficient_funds) and stays open; once they can, the match is made
    with both holding it; an unknown currency is refused at once."""
    currency(app)
    grant(app, "ana", 5)
    grant(app, "bo", 50)
    ana, bo = token(client, "ana"), token(client, "bo")
    bad = client.post("/v1/challenges", headers=ana, json={
        "to": "bo", "stake": {"currency": "GEMS", "amount": 1}})
    assert bad.status_code == 422 and bad.get_json()["reason"] == "unknown_currency"
    made = client.post("/v1/challenges", headers=ana, json={
        "to": "bo", "stake": {"currency": "COINS", "amount": 10}})
    assert made.status_code == 201, made.get_json()
    challenge = made.get_json()
    assert challenge["stake"] == {"currency": "COINS", "amount": 10}
    r = client.post(f"/v1/challenges/{challenge['id']}/accept", headers=bo)
    assert r.status_code == 409 and r.get_json()["reason"] == "insufficient_funds"
    assert client.get(f"/v1/challenges/{challenge['id']}", headers=bo) \
        .get_json()["status"] == "open"
    assert wallet(app, "ana", "bo") == [5, 50]
    grant(app, "ana", 5)
    r = client.post(f"/v1/challenges/{challenge['id']}/accept", headers=bo)
    assert r.status_code == 201, r.get_json()
    match = r.get_json()["match_id"]
    assert wallet(app, "ana", "bo") == [0, 40]
    assert holds(app, match) == {"ana": "held", "bo": "held"}
    plain = client.post("/v1/challenges", headers=ana, json={"to": "bo"}).get_json()
    assert plain["stake"] is None


def test_a_rematch_of_a_staked_table_is_staked_and_each_seat_holds(
        app: Flask, client: FlaskClient) -> None:
    currency(app)
    grant(app, "ana", 30)
    grant(app, "bo", 30)
    match = staked(client, 10, "ana", "bo").get_json()
    toks = tokens(match)
    client.post(f"/v1/matches/{match['id']}/resign", headers=auth(toks[1]))
    assert wallet(app, "ana", "bo") == [40, 20]
    first = client.post(f"/v1/matches/{match['id']}/rematch", headers=auth(toks[0]))
    assert first.status_code == 201, first.get_json()
    follow = first.get_json()
    assert follow["state"]["stake"]["amount"] == 10 and wallet(app, "ana") == [30]
    second = client.post(f"/v1/matches/{match['id']}/rematch", headers=auth(toks[1]))
    assert second.status_code == 201 and second.get_json()["id"] == follow["id"]
    assert wallet(app, "ana", "bo") == [30, 10]
    assert holds(app, follow["id"]) == {"ana": "held", "bo": "held"}
