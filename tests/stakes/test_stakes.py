"""Staked tables (issue 57, "Stakes"): the stake and the rake kept with a match, each seat
holding the stake in the table's escrow as it is taken (refused before anything changes
when the player is short or in debt), and the end settling the escrow in the save that
records it: a win pays the pot less the rake, a draw and an abort give the stakes back,
a forfeit pays the other side, a void reverses it all. Each test ends with the ledger's
checker."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.coins import accounts
from service.matches import changes, endings, store
from service.matches.changes import Change
from service.matches.enums import MoveKind
from service.storage.db import transaction
from service.tenants.models import LOCAL_TENANT
from tests.client import auth, tokens, view
from tests.stakes.conftest import (
    balance,
    currency,
    grant,
    holds,
    rake,
    staked,
    take,
    token,
    transfers,
    wallet,
)

pytestmark = pytest.mark.usefixtures("ledger_checked")
TABLE = accounts.table


def _resign(client: FlaskClient, match: dict, seat: int) -> dict:
    r = client.post(f"/v1/matches/{match['id']}/resign", headers=auth(tokens(match)[seat]))
    assert r.status_code == 200, r.get_json()
    return r.get_json()["state"]


def test_a_staked_match_keeps_its_stake_and_rake_and_each_seat_holds_it(
        app: Flask, client: FlaskClient) -> None:
    """The match shows its stake and the rake of its creation; each seat's stake moved
    to the table's escrow, the holds held; a rake changed later does not alter it."""
    currency(app)
    rake(app, 500, cap=7)
    grant(app, "ana", 100)
    grant(app, "bo", 50)
    r = staked(client, 30, "ana", "bo")
    assert r.status_code == 201, r.get_json()
    match = r.get_json()
    assert match["state"]["stake"] == {"currency": "COINS", "amount": 30,
                                       "rake": {"share_bp": 500, "cap": 7}}
    assert wallet(app, "ana", "bo") == [70, 20]
    assert balance(app, TABLE(match["id"])) == 60
    assert holds(app, match["id"]) == {"ana": "held", "bo": "held"}
    rake(app, 1000)
    assert view(client, match["id"])["stake"]["rake"] == {"share_bp": 500, "cap": 7}
    assert view(client, match["id"], tokens(match)[0])["stake"]["amount"] == 30
    plain = client.post("/v1/matches", json={"players": [{"name": "x"}, {"bot": "random"}]})
    assert plain.get_json()["state"]["stake"] is None


def test_a_stake_nobody_can_hold_makes_nothing(app: Flask, client: FlaskClient) -> None:
    """Short of coins: 409 insufficient_funds, no match, no coin moved; an unknown
    currency: 422 unknown_currency; a bot, an anonymous seat or a player twice at a
    staked table: 422 stake_needs_players."""
    currency(app)
    grant(app, "ana", 100)
    grant(app, "bo", 29)
    r = staked(client, 30, "ana", "bo")
    assert r.status_code == 409 and r.get_json()["reason"] == "insufficient_funds"
    assert client.get("/v1/matches").get_json()["matches"] == []
    assert wallet(app, "ana", "bo") == [100, 29]
    r = staked(client, 1, "ana", "bo", code="GEMS")
    assert r.status_code == 422 and r.get_json()["reason"] == "unknown_currency"
    stake = {"currency": "COINS", "amount": 1}
    for players in ([{"name": "ana", "player_id": "ana"}, {"bot": "random"}],
                    [{"name": "ana", "player_id": "ana"}, {"name": "anonymous"}],
                    [{"name": "ana", "player_id": "ana"}, {"name": "ana", "player_id": "ana"}]):
        r = client.post("/v1/matches", json={"players": players, "stake": stake})
        assert r.status_code == 422 and r.get_json()["reason"] == "stake_needs_players", players
    r = client.post("/v1/matches", json={"players": [{"name": "ana", "player_id": "ana"},
                                                      {"open": True}], "stake": stake})
    assert r.status_code == 201  # an open seat is for a vouched player to take
    anonymous = client.post(f"/v1/matches/{r.get_json()['id']}/join", json={"name": "z"})
    assert anonymous.status_code == 422
    assert anonymous.get_json()["reason"] == "stake_needs_players"
    assert wallet(app, "ana") == [99]
    for amount in (0, -5, 10**16):
        r = staked(client, amount, "ana", "bo")
        assert r.status_code == 422, amount


def test_a_win_pays_the_pot_less_the_rake_and_the_house_what_does_not_divide(
        app: Flask, client: FlaskClient) -> None:
    """1v1 at 30, a 5% rake: the winner takes 60 - 3 = 57, the house 3; both holds
    settled in the resignation's own save."""
    currency(app)
    rake(app, 500)
    grant(app, "ana", 100)
    grant(app, "bo", 100)
    match = staked(client, 30, "ana", "bo").get_json()
    state = _resign(client, match, 1)
    assert state["winner"] == 0
    assert wallet(app, "ana", "bo") == [127, 70]
    assert balance(app, accounts.HOUSE) == 3
    assert balance(app, TABLE(match["id"])) == 0
    assert holds(app, match["id"]) == {"ana": "settled", "bo": "settled"}
    kinds = [t[0] for t in transfers(app, match["id"])]
    assert sorted(kinds) == ["hold", "hold", "pot", "rake"]


def test_a_2v2_side_splits_the_pot_evenly_and_odd_coins_go_to_the_house(
        app: Flask, client: FlaskClient) -> None:
    """Four players at 5 and a 5% rake capped at 10: a pot of 20, a rake of 1, 19 split
    between the two winners (9 each), the odd coin to the house."""
    currency(app)
    rake(app, 500, cap=10)
    players = ["p0", "p1", "p2", "p3"]
    for p in players:
        grant(app, p, 10)
    match = staked(client, 5, *players, variant="egyptian-v2-4p").get_json()
    assert wallet(app, *players) == [5, 5, 5, 5]
    _resign(client, match, 1)  # team 1 (seats 1, 3) concedes
    assert wallet(app, *players) == [14, 5, 14, 5]
    assert balance(app, accounts.HOUSE) == 2
    pays = sorted((k, credit, amount) for k, _, credit, amount in transfers(app, match["id"])
                  if k != "hold")
    assert pays == [("pot", "player:p0", 9), ("pot", "player:p2", 9),
                    ("rake", "house", 1), ("rake", "house", 1)]


def test_the_rake_cap_bounds_the_house_take(app: Flask, client: FlaskClient) -> None:
    currency(app)
    rake(app, 5000, cap=4)
    grant(app, "ana", 100)
    grant(app, "bo", 100)
    match = staked(client, 50, "ana", "bo").get_json()
    _resign(client, match, 0)
    assert wallet(app, "ana", "bo") == [50, 146]
    assert balance(app, accounts.HOUSE) == 4


def test_a_draw_gives_the_stakes_back(app: Flask, client: FlaskClient) -> None:
    """A finish with no winner (a drawn last deal) releases every hold."""
    currency(app)
    rake(app, 500)
    grant(app, "ana", 40)
    grant(app, "bo", 40)
    match = staked(client, 40, "ana", "bo").get_json()
    with app.app_context(), transaction(write=True):
        row, state = store.read(match["id"], LOCAL_TENANT, lock=True)
        drawn = state._replace(finished=True, draw=True, winner=None, turn=None)
        changes.save(row, drawn, Change([changes.log(MoveKind.RESIGN, 0, state)]))
    assert view(client, match["id"])["draw"] is True
    assert wallet(app, "ana", "bo") == [40, 40]
    assert balance(app, accounts.HOUSE) == 0
    assert holds(app, match["id"]) == {"ana": "released", "bo": "released"}


def test_an_abort_and_a_table_left_give_the_stakes_back(app: Flask, client: FlaskClient) -> None:
    """An active match aborted before anyone played releases every hold; a seat left
    at a waiting table gives its stake back, and taken again holds it again."""
    currency(app)
    grant(app, "ana", 10)
    grant(app, "bo", 10)
    match = staked(client, 10, "ana", "bo").get_json()
    r = client.post(f"/v1/matches/{match['id']}/abort", headers=auth(tokens(match)[0]))
    assert r.status_code == 200 and r.get_json()["state"]["status"] == "aborted"
    assert wallet(app, "ana", "bo") == [10, 10]
    assert holds(app, match["id"]) == {"ana": "released", "bo": "released"}
    r = client.post("/v1/matches", json={"players": [{"name": "ana", "player_id": "ana"},
                                                      {"open": True}],
                                         "stake": {"currency": "COINS", "amount": 4}})
    table = r.get_json()
    assert wallet(app, "ana") == [6]
    left = client.post(f"/v1/matches/{table['id']}/leave", headers=auth(tokens(table)[0]))
    assert left.status_code == 200
    assert wallet(app, "ana") == [10] and holds(app, table["id"]) == {"ana": "released"}
    ana = token(client, "ana")
    again = client.post(f"/v1/matches/{table['id']}/join", headers=ana, json={})
    assert again.status_code == 201, again.get_json()
    assert wallet(app, "ana") == [6] and holds(app, table["id"]) == {"ana": "held"}
    bo = client.post(f"/v1/matches/{table['id']}/join", headers=token(client, "bo"), json={})
    assert bo.status_code == 201 and bo.get_json()["state"]["status"] == "active"
    assert balance(app, TABLE(table["id"])) == 8


def test_a_join_short_of_coins_takes_no_seat(app: Flask, client: FlaskClient) -> None:
    currency(app)
    grant(app, "ana", 10)
    grant(app, "bo", 3)
    table = client.post("/v1/matches", json={
        "players": [{"name": "ana", "player_id": "ana"}, {"open": True}],
        "stake": {"currency": "COINS", "amount": 4}}).get_json()
    r = client.post(f"/v1/matches/{table['id']}/join", headers=token(client, "bo"), json={})
    assert r.status_code == 409 and r.get_json()["reason"] == "insufficient_funds"
    seen = view(client, table["id"])
    assert seen["seats"][1]["open"] is True and seen["version"] == 0
    assert wallet(app, "bo") == [3] and holds(app, table["id"]) == {"ana": "held"}


def test_a_table_nobody_fills_gives_the_stakes_back(backend: str, tmp_path) -> None:
    """The worker's abort of an unfilled staked table releases its holds."""
    import time

    from service import worker
    from tests.conftest import make_app

    app = make_app(backend, tmp_path, BASRA_WAITING_MINUTES=0.5 / 60)
    client = app.test_client()
    currency(app)
    grant(app, "ana", 10)
    table = client.post("/v1/matches", json={
        "players": [{"name": "ana", "player_id": "ana"}, {"open": True}],
        "stake": {"currency": "COINS", "amount": 4}}).get_json()
    assert wallet(app, "ana") == [6]
    time.sleep(0.7)
    with app.app_context():
        worker.run_once()
    assert view(client, table["id"])["status"] == "aborted"
    assert wallet(app, "ana") == [10] and holds(app, table["id"]) == {"ana": "released"}


def test_a_forfeit_pays_the_other_side(app: Flask, client: FlaskClient) -> None:
    """A suspended player's matches are forfeited: the other side takes the pot."""
    currency(app)
    grant(app, "ana", 20)
    grant(app, "bo", 20)
    match = staked(client, 20, "ana", "bo").get_json()
    r = client.put("/v1/players/ana/suspension", json={"reason": "cheating", "forfeit": True})
    assert r.status_code in (200, 201), r.get_json()
    state = view(client, match["id"])
    assert state["status"] == "finished" and state["end_reason"] == "suspended"
    assert wallet(app, "ana", "bo") == [0, 40]


def test_a_void_reverses_the_settlement_and_a_spent_win_is_a_debt(
        app: Flask, client: FlaskClient) -> None:
    """Voiding a won staked table: the winner pays back what they took (they spent it:
    their balance goes below zero by that much, no more), the house its rake, and every
    stake goes back to its holder; in debt, the player cannot stake (409 in_debt) until
    repaid; a void again is refused and moves nothing."""
    currency(app)
    rake(app, 1000)
    grant(app, "ana", 50)
    grant(app, "bo", 50)
    match = staked(client, 50, "ana", "bo").get_json()
    _resign(client, match, 1)
    assert wallet(app, "ana", "bo") == [90, 0]
    take(app, "ana", 85)  # ana spends her winnings
    r = client.post(f"/v1/matches/{match['id']}/void", json={"reason": "collusion"})
    assert r.status_code == 200, r.get_json()
    assert wallet(app, "ana", "bo") == [-35, 50]  # 5 - 90 + 50
    assert balance(app, accounts.HOUSE) == 0
    assert balance(app, TABLE(match["id"])) == 0
    kinds = [t[0] for t in transfers(app, match["id"])]
    assert kinds.count("refund_pot") == 2 and kinds.count("release") == 2
    again = client.post(f"/v1/matches/{match['id']}/void", json={"reason": "again"})
    assert again.status_code == 409 and again.get_json()["reason"] == "match_voided"
    assert wallet(app, "ana", "bo") == [-35, 50]
    r = staked(client, 1, "ana", "bo")
    assert r.status_code == 409 and r.get_json()["reason"] == "in_debt"
    grant(app, "ana", 36)
    assert staked(client, 1, "ana", "bo").status_code == 201


def test_a_voided_draw_moves_nothing(app: Flask, client: FlaskClient) -> None:
    currency(app)
    grant(app, "ana", 5)
    grant(app, "bo", 5)
    match = staked(client, 5, "ana", "bo").get_json()
    with app.app_context(), transaction(write=True):
        row, state = store.read(match["id"], LOCAL_TENANT, lock=True)
        changes.save(row, state._replace(finished=True, draw=True, winner=None, turn=None),
                     Change([changes.log(MoveKind.RESIGN, 0, state)]))
    with app.app_context():
        endings.void_match(match["id"], LOCAL_TENANT, "test", "staff")
    assert wallet(app, "ana", "bo") == [5, 5]
