"""Duplicate events: every table of a round deals the same cards (one seed, the same
commitment), each deal scored against the others who held the same seats' cards
(matchpoints); for two players and for four, played to the end over HTTP."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import combinations
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.client import auth
from tests.conftest import api_key
from tests.tournaments.helpers import create, entered, read, work

PLAYERS = [f"p{i}" for i in range(8)]


def _play_round(client: FlaskClient, tour: dict[str, Any], tokens: dict[str, str]) -> None:
    """Every table of the round under way played to its end, each player playing their
    first legal move."""
    [current] = [r for r in tour["rounds"] if r["round"] == tour["round"]]
    for table in current["pairings"]:
        match, seats = table["match_id"], table["players"]
        while True:  # a seat's view: spectators see a tournament game some plays late
            state = client.get(f"/v1/matches/{match}", headers=auth(tokens[seats[0]])).get_json()
            if state["status"] != "active":
                break
            token = tokens[seats[state["turn"]]]
            mine = client.get(f"/v1/matches/{match}", headers=auth(token)).get_json()
            move = mine["legal_moves"][0]
            r = client.post(f"/v1/matches/{match}/moves", headers=auth(token),
                            json={"card": move["card"], "capture": move["capture"]})
            assert r.status_code == 201, r.get_json()


def _run_event(app: Flask, client: FlaskClient, **body: Any) -> tuple[dict[str, Any],
                                                                       dict[str, str]]:
    tid, tokens = entered(client, PLAYERS, system="duplicate", **body)
    work(app)  # starts it: the first round's tables
    tour = read(client, tid)
    while tour["status"] == "running":
        _play_round(client, tour, tokens)
        _sealed_until_the_round_is_over(client, tour, tokens)
        work(app)  # the next round, or the end
        tour = read(client, tid)
    return tour, tokens


def _sealed_until_the_round_is_over(client: FlaskClient, tour: dict[str, Any],
                                    tokens: dict[str, str]) -> None:
    """Every table of the round has ended, and the worker has not yet seen it: nobody
    sees its seed (every table holds the same cards); its seats and the front end's
    server (this keyless client) see its plays and its end (a browser key's view:
    ``test_sealing.py``)."""
    [current] = [r for r in tour["rounds"] if r["round"] == tour["round"]]
    table = current["pairings"][0]
    match, seat0 = table["match_id"], tokens[table["players"][0]]
    watching = client.get(f"/v1/matches/{match}").get_json()
    assert watching["status"] == "finished" and watching["seed"] is None
    assert watching["last_move"] is not None and watching["sealed"] is True
    logs = [client.get(f"/v1/matches/{match}/moves", headers=asking).get_json()
            for asking in (auth(seat0), {})]
    assert logs[0] == logs[1] and logs[0]["moves"] and logs[0]["seed"] is None


def _same_cards_at_every_table(client: FlaskClient, tour: dict[str, Any]) -> None:
    """Each round's tables were dealt from one seed: the round's commitment is every
    table's, and each revealed seed hashes to it; rounds differ."""
    seeds = []
    for rnd in tour["rounds"]:
        logs = [client.get(f"/v1/matches/{t['match_id']}/moves").get_json()
                for t in rnd["pairings"]]
        assert {log["commitment"] for log in logs} == {rnd["commitment"]}
        assert len({log["seed"] for log in logs}) == 1 and logs[0]["seed"]
        seeds.append(logs[0]["seed"])
        # the same seat's first cards at every table: the first play's seat and deal
        firsts = [next(m for m in log["moves"] if m["kind"] == "play")["seat"] for log in logs]
        assert len(set(firsts)) == 1
        for table in rnd["pairings"]:  # each ended by its deals, not a target
            state = client.get(f"/v1/matches/{table['match_id']}").get_json()
            assert state["end_reason"] == "deals" and len(state["rounds"]) == tour["deals"]
    assert len(set(seeds)) == len(seeds)


def test_a_two_player_duplicate_event_of_eight_players(app: Flask, client: FlaskClient) -> None:
    tour, _ = _run_event(app, client, rounds=2, deals=1)
    assert tour["status"] == "finished" and tour["deals"] == 1
    assert [len(r["pairings"]) for r in tour["rounds"]] == [4, 4]
    assert all(len(t["players"]) == 2 for r in tour["rounds"] for t in r["pairings"])
    assert all(r["byes"] == [] for r in tour["rounds"])
    _same_cards_at_every_table(client, tour)
    # per round, deal and team: the four tables compared in pairs, 2 matchpoints a pair
    points = {row["player_id"]: row["points"] for row in tour["standings"]}
    assert sum(points.values()) == 2 * 1 * 2 * 2 * len(list(combinations(range(4), 2)))
    assert [row["rank"] for row in tour["standings"]] == list(range(1, 9))
    assert [row["points"] for row in tour["standings"]] == sorted(points.values(), reverse=True)
    assert all(row["games"] == 2 for row in tour["standings"])


def test_a_four_player_duplicate_event_of_eight_players(app: Flask, client: FlaskClient) -> None:
    tour, _ = _run_event(app, client, variant="egyptian-4p", rounds=1, deals=1)
    assert tour["status"] == "finished"
    [rnd] = tour["rounds"]
    assert len(rnd["pairings"]) == 2 and all(len(t["players"]) == 4 for t in rnd["pairings"])
    _same_cards_at_every_table(client, tour)
    # one deal, two teams, the two tables compared once: 2 matchpoints to each pair of
    # partners, both scoring them
    rows = {row["player_id"]: row for row in tour["standings"]}
    assert sum(row["points"] for row in rows.values()) == 1 * 2 * 2 * 2
    for table in rnd["pairings"]:
        seats = table["players"]
        assert rows[seats[0]]["points"] == rows[seats[2]]["points"]  # partners
        assert rows[seats[1]]["points"] == rows[seats[3]]["points"]


def test_the_players_left_over_sit_the_round_out(app: Flask, client: FlaskClient) -> None:
    tid, _ = entered(client, [*PLAYERS, "p8", "p9"], system="duplicate",
                     variant="egyptian-4p", rounds=1)
    work(app)
    [rnd] = read(client, tid)["rounds"]
    assert len(rnd["pairings"]) == 2 and len(rnd["byes"]) == 2
    assert rnd["bye"] == rnd["byes"][0]


def test_a_single_table_is_not_an_event(app: Flask, client: FlaskClient) -> None:
    """One table has nobody to be compared with: an event needs two at the start."""
    tid, _ = entered(client, PLAYERS[:6], system="duplicate", variant="egyptian-4p",
                     rounds=1)
    work(app)
    assert read(client, tid)["status"] == "cancelled"


def test_what_a_duplicate_event_needs(client: FlaskClient) -> None:
    soon = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    base = {"name": "d", "starts_at": soon,
            "clock": {"move_seconds": 60, "timeout": "bot"}}
    for body, field in (({"system": "duplicate"}, "rounds"),
                        ({"system": "duplicate", "rounds": 2, "duration_minutes": 10},
                         "duration_minutes"),
                        ({"system": "swiss", "rounds": 2, "deals": 2}, "deals"),
                        ({"system": "duplicate", "rounds": 2, "deals": 11}, "deals")):
        r = client.post("/v1/tournaments", json={**base, **body})
        assert r.status_code == 422, body
        assert field in [e["field"] for e in r.get_json()["errors"]], r.get_json()
    r = client.post("/v1/tournaments", json={**base, "system": "swiss", "rounds": 2,
                                             "variant": "egyptian-4p"})
    assert r.status_code == 422 and r.get_json()["reason"] == "two_players_only"
    made = create(client, system="duplicate", rounds=2, variant="egyptian-4p")
    assert made["system"] == "duplicate" and made["deals"] == 1


def test_a_browser_key_sees_nothing_of_a_sealed_table(keyed: Flask) -> None:
    """While its round goes on, a spectator with a browser key reads a table's log with
    no play in it and its view as dealt; a seat reads its own plays."""
    server = api_key(keyed, "fe")
    browser = {**api_key(keyed, "fe", "https://fe.example"), "Origin": "https://fe.example"}
    client = keyed.test_client()
    client.environ_base["HTTP_X_API_KEY"] = server["X-API-Key"]
    tid, tokens = entered(client, PLAYERS[:4], system="duplicate", rounds=1)
    work(keyed)
    table = read(client, tid)["rounds"][0]["pairings"][0]
    match = table["match_id"]
    for _ in range(3):
        state = client.get(f"/v1/matches/{match}",
                           headers=auth(tokens[table["players"][0]])).get_json()
        token = tokens[table["players"][state["turn"]]]
        move = client.get(f"/v1/matches/{match}", headers=auth(token)).get_json()["legal_moves"][0]
        assert client.post(f"/v1/matches/{match}/moves", headers=auth(token), json={
            "card": move["card"], "capture": move["capture"]}).status_code == 201
    log = client.get(f"/v1/matches/{match}/moves", headers=browser).get_json()
    assert log["moves"] == [] and log["behind"] == 0 and log["version"] == 0
    view = client.get(f"/v1/matches/{match}", headers=browser).get_json()
    assert view["last_move"] is None and view["behind"] == 0 and view["seed"] is None
    assert view["version"] == 0 and view["sealed"] is True
    mine = client.get(f"/v1/matches/{match}/moves",
                      headers={**browser, **auth(tokens[table["players"][1]])}).get_json()
    assert len(mine["moves"]) == 3
