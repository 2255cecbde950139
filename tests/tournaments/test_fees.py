"""Tournaments with an entry fee and prizes (issue 57, item 4): the fee held in the
tournament's escrow as a player joins (refused before the entry is made when short),
given back on a withdrawal before the start or a cancel, and the pool paid by the
distribution at the end, exactly once however often the end is taken or however many
workers race it. The ledger's checker runs after every test."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from service.coins import accounts, ledger
from service.storage.base import utcnow
from service.storage.db import db, transaction
from service.tournaments import purse
from service.tournaments.models import Tournament
from service.tournaments.standings import load, standings_of
from tests.client import auth
from tests.coins.helpers import balances, currency, grant
from tests.tournaments.helpers import create, mint, read, resign, work
from tests.tournaments.test_workers import _race

pytestmark = pytest.mark.usefixtures("ledger_checked")

FEE = {"currency": "COINS", "amount": 100}


def _funded(app: Flask, client: FlaskClient, players: list[str],
            coins: int = 250) -> dict[str, str]:
    """The currency named, each player granted ``coins``; their tokens."""
    currency(app)
    for p in players:
        grant(app, p, coins)
    return {p: mint(client, p) for p in players}


def _join(client: FlaskClient, tid: str, token: str) -> Any:
    return client.post(f"/v1/tournaments/{tid}/join", headers=auth(token), json={})


def _entered(app: Flask, client: FlaskClient, players: list[str],
             **body: Any) -> tuple[str, dict[str, str]]:
    tokens = _funded(app, client, players)
    body.setdefault("entry_fee", FEE)
    tid = str(create(client, **body)["id"])
    for p in players:
        assert _join(client, tid, tokens[p]).status_code == 200
    return tid, tokens


def _play_round(client: FlaskClient, t: dict[str, Any], tokens: dict[str, str],
                loser_seat: int = 1) -> None:
    """Every game of the last round resigned by its ``loser_seat``."""
    for pairing in t["rounds"][-1]["pairings"]:
        resign(client, pairing["match_id"], tokens[pairing["players"][loser_seat]])


def test_an_entry_fee_and_prizes_are_shown_and_checked(app: Flask, client: FlaskClient) -> None:
    currency(app)
    t = create(client, entry_fee=FEE, prizes=[50, 30, 20])
    assert (t["entry_fee"], t["prizes"], t["pool"], t["payouts"]) == (FEE, [50, 30, 20], 0, {})
    assert create(client, entry_fee=FEE)["prizes"] == [100], "winner takes all by default"
    free = create(client)
    assert (free["entry_fee"], free["prizes"], free["pool"]) == (None, None, 0)
    for body, field in (({"entry_fee": FEE, "prizes": [60, 50]}, "prizes"),
                        ({"prizes": [100]}, "prizes"),
                        ({"entry_fee": {"currency": "COINS", "amount": 0}}, "entry_fee"),
                        ({"entry_fee": {"currency": "coins", "amount": 5}}, "entry_fee")):
        r = client.post("/v1/tournaments", json={
            "name": "x", "system": "swiss", "rounds": 1, **body,
            "starts_at": datetime.now(UTC).isoformat(),
            "clock": {"move_seconds": 60, "timeout": "forfeit"}})
        assert r.status_code == 422 and field in str(r.get_json()), (body, r.get_json())
    r = client.post("/v1/tournaments", json={
        "name": "x", "system": "swiss", "rounds": 1,
        "entry_fee": {"currency": "GEMS", "amount": 5},
        "starts_at": datetime.now(UTC).isoformat(),
        "clock": {"move_seconds": 60, "timeout": "forfeit"}})
    assert r.status_code == 422 and r.get_json()["reason"] == "unknown_currency"


def test_joining_holds_the_fee_and_short_of_it_enters_nobody(
        app: Flask, client: FlaskClient) -> None:
    tokens = _funded(app, client, ["f1", "f2"])
    grant(app, "f3", 99)
    tokens["f3"] = mint(client, "f3")
    tid = create(client, entry_fee=FEE)["id"]
    assert _join(client, tid, tokens["f1"]).status_code == 200
    assert _join(client, tid, tokens["f1"]).status_code == 200, "joining twice pays once"
    short = _join(client, tid, tokens["f3"])
    assert short.status_code == 409 and short.get_json()["reason"] == "insufficient_funds"
    t = read(client, tid)
    assert t["entrants"] == ["f1"] and t["pool"] == 100
    held = balances(app)
    assert (held["player:f1"], held["player:f3"], held[accounts.tournament(tid)]) == (150, 99, 100)


def test_a_withdrawal_before_the_start_gives_the_fee_back_and_a_rejoin_holds_it_again(
        app: Flask, client: FlaskClient) -> None:
    tokens = _funded(app, client, ["g1", "g2"])
    later = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    tid = create(client, entry_fee=FEE, starts_at=later)["id"]
    assert _join(client, tid, tokens["g1"]).status_code == 200
    r = client.post(f"/v1/tournaments/{tid}/withdraw", headers=auth(tokens["g1"]), json={})
    assert r.status_code == 200 and r.get_json()["pool"] == 0
    assert balances(app)["player:g1"] == 250
    assert _join(client, tid, tokens["g1"]).status_code == 200
    assert balances(app)["player:g1"] == 150 and read(client, tid)["pool"] == 100


def test_an_arena_withdrawal_once_running_leaves_the_fee_in_the_pool(
        app: Flask, client: FlaskClient) -> None:
    tid, tokens = _entered(app, client, ["h1", "h2", "h3"], system="arena",
                           duration_minutes=5)
    work(app)
    r = client.post(f"/v1/tournaments/{tid}/withdraw", headers=auth(tokens["h3"]), json={})
    assert r.status_code == 200 and r.get_json()["pool"] == 300
    assert _join(client, tid, tokens["h3"]).status_code == 200, "back in, paid already"
    assert balances(app)["player:h3"] == 150 and read(client, tid)["pool"] == 300


def test_a_cancel_gives_every_fee_back(app: Flask, client: FlaskClient) -> None:
    tid, tokens = _entered(app, client, ["c1", "c2", "c3", "c4"], rounds=2)
    work(app)  # running: its first round's games under way
    r = client.post(f"/v1/tournaments/{tid}/cancel")
    assert r.status_code == 200 and r.get_json()["pool"] == 0
    after = balances(app)
    assert all(after[f"player:c{n}"] == 250 for n in range(1, 5))
    assert after[accounts.tournament(tid)] == 0


def test_below_min_players_the_start_cancels_and_gives_the_fees_back(
        app: Flask, client: FlaskClient) -> None:
    tid, _ = _entered(app, client, ["m1", "m2"], min_players=3)
    work(app)
    assert read(client, tid)["status"] == "cancelled"
    assert balances(app)["player:m1"] == 250 and balances(app)["player:m2"] == 250


def test_the_pool_is_paid_by_place_and_players_level_share_their_places(
        app: Flask, client: FlaskClient) -> None:
    players = ["p1", "p2", "p3", "p4", "p5"]
    tid, tokens = _entered(app, client, players, rounds=1, prizes=[50, 30, 20])
    work(app)
    t = read(client, tid)
    _play_round(client, t, tokens)  # two winners on 1 point, the bye's on 1, two on 0
    work(app)
    t = read(client, tid)
    assert t["status"] == "finished" and t["pool"] == 500
    top = [row["player_id"] for row in t["standings"] if row["points"] == 1]
    bottom = [row["player_id"] for row in t["standings"] if row["points"] == 0]
    assert len(top) == 3 and len(bottom) == 2
    # three level on 1 point share 50 + 30 + 20: 166 each, the odd 2 coins the house's
    assert t["payouts"] == {p: 166 for p in top}
    after = balances(app)
    assert all(after[f"player:{p}"] == 150 + 166 for p in top)
    assert all(after[f"player:{p}"] == 150 for p in bottom)
    assert after[accounts.HOUSE] == 2 and after[accounts.tournament(tid)] == 0


def test_places_nobody_holds_and_what_does_not_divide_go_to_the_house(
        app: Flask, client: FlaskClient) -> None:
    tid, tokens = _entered(app, client, ["q1", "q2"], rounds=1, prizes=[45, 30, 20],
                           entry_fee={"currency": "COINS", "amount": 33})
    work(app)
    t = read(client, tid)
    loser = t["rounds"][0]["pairings"][0]["players"][1]
    winner = t["rounds"][0]["pairings"][0]["players"][0]
    _play_round(client, t, tokens)
    work(app)
    t = read(client, tid)
    assert t["payouts"] == {winner: 29, loser: 19}  # 45% and 30% of 66, rounded down
    after = balances(app)
    assert after[accounts.HOUSE] == 66 - 29 - 19
    assert after[f"player:{loser}"] == 250 - 33 + 19


def _finish_round_one(app: Flask, client: FlaskClient) -> str:
    """A one-round Swiss of four with a fee, its games over, its end still to take."""
    tid, tokens = _entered(app, client, ["e1", "e2", "e3", "e4"], rounds=1,
                           prizes=[60, 40])
    work(app)
    _play_round(client, read(client, tid), tokens)
    return tid


def test_the_end_taken_twice_pays_once(app: Flask, client: FlaskClient) -> None:
    tid = _finish_round_one(app, client)
    work(app, passes=3)
    once = balances(app)
    assert read(client, tid)["status"] == "finished"
    with app.app_context():  # the pool's payout asked again of the same tournament
        with transaction(write=True):
            t = db.session.execute(select(Tournament).where(Tournament.id == tid)).scalar_one()
            assert purse.close(t, "finished", standings_of(t, load(t)), utcnow()) == {}
            assert ledger.holds_in(t.tenant_pk, accounts.tournament(tid)) == []
        db.session.remove()
    assert balances(app) == once
    assert sum(v for k, v in once.items() if k.startswith("player:")) == 1000


def test_workers_racing_the_end_pay_the_pool_once(app: Flask, client: FlaskClient) -> None:
    tid = _finish_round_one(app, client)
    _race(app)
    t = read(client, tid)
    assert t["status"] == "finished"
    after = balances(app)
    assert sum(t["payouts"].values()) == 400  # two level on top share 60 + 40
    assert sum(v for k, v in after.items() if k.startswith("player:")) == 1000
    assert after[accounts.tournament(tid)] == 0 and after[accounts.HOUSE] == 0


def test_a_cancel_racing_the_end_either_pays_or_gives_back(
        app: Flask, client: FlaskClient) -> None:
    tid = _finish_round_one(app, client)
    answers: list[int] = []

    def cancel() -> None:
        answers.append(app.test_client().post(f"/v1/tournaments/{tid}/cancel").status_code)

    canceller = threading.Thread(target=cancel)
    canceller.start()
    work(app)
    canceller.join(30)
    t = read(client, tid)
    after = balances(app)
    assert after[accounts.tournament(tid)] == 0
    if t["status"] == "cancelled":
        assert answers == [200] and all(after[f"player:e{n}"] == 250 for n in range(1, 5))
    else:
        assert answers == [409] and sum(t["payouts"].values()) == 400


def test_the_winners_ledger_shows_the_fee_and_the_prize(app: Flask, client: FlaskClient) -> None:
    tid, tokens = _entered(app, client, ["l1", "l2"], rounds=1, prizes=[100])
    work(app)
    t = read(client, tid)
    winner = t["rounds"][0]["pairings"][0]["players"][0]
    _play_round(client, t, tokens)
    work(app)
    page = client.get(f"/v1/players/{winner}/wallet/transfers").get_json()["transfers"]
    assert [(e["kind"], e["change"]) for e in page[:2]] == [("prize", 200), ("fee", -100)]
    assert page[0]["from"] == {"account": "tournament", "tournament_id": tid}
    wallet = client.get(f"/v1/players/{winner}/wallet").get_json()["balances"]
    assert [(b["currency"], b["balance"], b["held"]) for b in wallet] == [("COINS", 350, 0)]
