"""Fair play in the service (issue 58, items 1 to 3): the worker grades each finished
rated match (nothing else), a player's picture at ``GET /v1/players/{id}/fair-play``
(server key and staff), and a player past the front end's thresholds flagged once as a
report by the service in the reports queue, with the evidence, its matches kept."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from service.fairplay import service as fair_play
from service.fairplay.models import FairPlaySeat
from service.matches.models import Match
from service.settings import settings_of
from service.storage.db import db
from tests.client import play_to_end
from tests.conftest import api_key, use_settings
from tests.stakes.conftest import currency, grant, staked

SHORT = {"target_score": 1}
"""One round a match: the tests' matches stay short."""


def _rated(client: FlaskClient, a: str, b: str, rated: bool = True) -> dict[str, Any]:
    r = client.post("/v1/matches", json={"rated": rated, "rules": SHORT, "players": [
        {"name": a.upper(), "player_id": a}, {"name": b.upper(), "player_id": b}]})
    assert r.status_code == 201, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def _grade_all(app: Flask) -> int:
    graded = 0
    with app.app_context():
        while fair_play.grade_next(settings_of(app)):
            graded += 1
    return graded


@pytest.mark.long  # handed out first: the core's tail is then short tests
def test_the_worker_grades_each_finished_rated_match_once(app: Flask,
                                                         client: FlaskClient) -> None:
    use_settings(app, bot_cpu_ms=5.0, bot_processes=0)
    rated = _rated(client, "ann", "bob")
    play_to_end(client, rated)
    play_to_end(client, _rated(client, "cid", "dee", rated=False))  # unrated: left alone
    waiting = _rated(client, "eve", "fay")  # still in play: graded once it ends
    assert _grade_all(app) == 1 and _grade_all(app) == 0
    with app.app_context():
        seats = db.session.execute(select(FairPlaySeat)).scalars().all()
        assert {(s.match_id, s.player_id) for s in seats} == {
            (rated["id"], "ann"), (rated["id"], "bob")}
        signals = seats[0].signals
        assert signals["plays"] >= signals["mattered"] >= signals["agreed"] >= 0
        assert signals["plays"] >= 20 and signals["time_cv"] is not None
        assert signals["mattered"] >= signals["deep"] >= signals["deep_agreed"] >= 0
        assert signals["lost"] >= signals["capped"] >= 0
    play_to_end(client, waiting)
    assert _grade_all(app) == 1

    r = client.get("/v1/players/ann/fair-play")
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["player_id"] == "ann" and body["enabled"] and body["flags"] == []
    [pool] = body["pools"]
    assert pool["pool"] == "egyptian-v2" and pool["picture"]["matches"] == 1
    assert pool["picture"]["flagged"] is False
    empty = client.get("/v1/players/nobody/fair-play").get_json()
    assert empty["pools"] == [] and empty["flags"] == []


def test_fair_play_can_be_turned_off_by_the_front_end(app: Flask, client: FlaskClient) -> None:
    use_settings(app, bot_cpu_ms=5.0, bot_processes=0)
    assert client.put("/v1/settings", json={"fair_play": {"enabled": False}}).status_code == 200
    play_to_end(client, _rated(client, "ann", "bob"))
    assert _grade_all(app) == 0
    assert client.get("/v1/players/ann/fair-play").get_json()["enabled"] is False


def test_a_player_past_the_thresholds_is_flagged_once_as_a_report_with_evidence(
        app: Flask, client: FlaskClient) -> None:
    use_settings(app, bot_cpu_ms=5.0, bot_processes=0)
    # thresholds no honest player would see: every graded player is past them
    r = client.put("/v1/settings", json={"fair_play": {"z": -1000, "min_plays": 0,
                                                        "band": 10000, "lift": 1.5,
                                                        "meetings": 1000}})
    assert r.status_code == 200
    ids = []
    for a, b in (("p1", "p2"), ("p3", "p4"), ("p5", "p6"), ("p7", "p8")):
        created = _rated(client, a, b)
        ids.append(created["id"])
        play_to_end(client, created)
    assert _grade_all(app) == 4
    reports = client.get("/v1/reports").get_json()["reports"]
    flagged = {r["player_id"] for r in reports}
    assert flagged and flagged <= {f"p{i}" for i in range(1, 9)}
    report = reports[0]
    assert report["reporter"] == "fair-play" and report["reason"] == "fair_play"
    assert report["details"]["kind"] == "player"
    assert report["details"]["picture"]["player"] == report["player_id"]
    assert report["match_id"] in report["details"]["matches"]
    with app.app_context():
        kept = db.session.execute(select(Match.id).where(Match.kept.is_(True))).scalars().all()
    assert report["match_id"] in kept  # kept whatever the retention
    again = fair_play.judge  # judged again: never filed twice
    with app.app_context():
        fair = fair_play.settings_of(1)
        assert (fair.thresholds.band, fair.thresholds.lift) == (10000.0, 1.5)
        assert again(1, "egyptian-v2", sorted(flagged), fair) == 0
    shown = client.get(f"/v1/players/{report['player_id']}/fair-play").get_json()
    assert [f["report_id"] for f in shown["flags"]] == [report["id"]]


def test_the_picture_takes_the_server_key_or_staff(keyed: Flask) -> None:
    server = api_key(keyed, "fe")
    browser = {**api_key(keyed, "fe", "https://fe.example"), "Origin": "https://fe.example"}
    client = keyed.test_client()
    assert client.get("/v1/players/ann/fair-play", headers=server).status_code == 200
    assert client.get("/v1/players/ann/fair-play", headers=browser).status_code == 403
    assert client.get("/v1/players/ann/fair-play").status_code == 401


@pytest.mark.usefixtures("ledger_checked")
def test_a_staked_table_is_graded_with_the_coins_between_the_pair(
        app: Flask, client: FlaskClient) -> None:
    use_settings(app, bot_cpu_ms=5.0, bot_processes=0)
    currency(app)
    for p in ("gus", "hal"):
        grant(app, p, 100)
    r = staked(client, 30, "gus", "hal", rules=SHORT)  # unrated: graded as staked
    assert r.status_code == 201, r.get_json()
    ended = play_to_end(client, r.get_json())
    assert _grade_all(app) == 1
    with app.app_context():
        coins = {s.player_id: s.coins for s in
                 db.session.execute(select(FairPlaySeat)).scalars()}
    if ended["draw"]:
        assert coins == {"gus": 0, "hal": 0}
    else:
        winner = ["gus", "hal"][ended["winner"]]
        loser = "hal" if winner == "gus" else "gus"
        assert coins == {winner: 30, loser: -30}
