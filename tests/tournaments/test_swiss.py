"""Swiss tournaments (issue "Tournaments", item 2): a 7-player 3-round event played to
the end by the worker, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.client import auth
from tests.tournaments.helpers import create, entered, join, mint, read, resign, work

PLAYERS = [f"p{i}" for i in range(1, 8)]


def _beats(a: str, b: str) -> bool:
    """Who wins a pairing in these tests: the lower number, except that p7 beats p1 (so
    the standings are not simply the numbers)."""
    if {a, b} == {"p1", "p7"}:
        return a == "p7"
    return int(a[1:]) < int(b[1:])


def _play_round(client: FlaskClient, tokens: dict[str, str], round_: dict[str, Any]) -> None:
    for pairing in round_["pairings"]:
        first, second = pairing["players"]
        match = client.get(f"/v1/matches/{pairing['match_id']}",
                           headers=auth(tokens[first])).get_json()
        # the seats are bound to the players: each acts with their player token
        assert [s["player_id"] for s in match["seats"]] == [first, second]
        active = client.get(f"/v1/players/{second}/matches?status=active").get_json()
        assert [m["id"] for m in active["matches"]] == [pairing["match_id"]]
        loser = second if _beats(first, second) else first
        resign(client, pairing["match_id"], tokens[loser])


def _recomputed(rounds: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Points, Buchholz and Sonneborn-Berger worked out from the rounds as served."""
    points: dict[str, float] = defaultdict(float)
    played: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for r in rounds:
        if r["bye"]:
            points[r["bye"]] += 1
        for p in r["pairings"]:
            a, b = p["players"]
            assert p["status"] == "finished"
            for me, other in ((a, b), (b, a)):
                got = 1.0 if p["winner"] == me else 0.0
                points[me] += got
                played[me].append((other, got))
    return {me: {"points": points[me],
                 "buchholz": sum(points[o] for o, _ in played[me]),
                 "sonneborn_berger": sum(points[o] * got for o, got in played[me])}
            for me in PLAYERS}


def test_a_seven_player_three_round_swiss_is_played_to_the_end(
        app: Flask, client: FlaskClient) -> None:
    tokens = {p: mint(client, p) for p in PLAYERS}
    created = create(client, rounds=3, min_players=4)
    assert created["status"] == "scheduled" and created["planned_rounds"] == 3
    tid = created["id"]
    for p in PLAYERS:
        join(client, tid, tokens[p])
    assert sorted(read(client, tid)["entrants"]) == PLAYERS
    (line,) = client.get("/v1/tournaments").get_json()["tournaments"]
    assert line["entrant_count"] == len(PLAYERS) and "entrants" not in line

    for number in (1, 2, 3):
        work(app)
        t = read(client, tid)
        assert t["status"] == "running" and t["round"] == number
        this = t["rounds"][-1]
        assert this["round"] == number and len(this["pairings"]) == 3 and this["bye"]
        seated = [p for pairing in this["pairings"] for p in pairing["players"]]
        assert sorted([*seated, this["bye"]]) == PLAYERS  # everybody once
        work(app)  # nothing finished yet: nothing new
        assert len(read(client, tid)["rounds"]) == number
        _play_round(client, tokens, this)
    work(app)
    final = read(client, tid)
    assert final["status"] == "finished" and final["finished_at"]

    rounds = final["rounds"]
    met = Counter(frozenset(p["players"]) for r in rounds for p in r["pairings"])
    assert max(met.values()) == 1, "no two players met twice"
    byes = [r["bye"] for r in rounds]
    assert len(set(byes)) == 3, f"byes to three different players: {byes}"
    firsts = Counter(p["players"][0] for r in rounds for p in r["pairings"])
    seconds = Counter(p["players"][1] for r in rounds for p in r["pairings"])
    assert all(abs(firsts[p] - seconds[p]) <= 1 for p in PLAYERS), (firsts, seconds)

    expected = _recomputed(rounds)
    standings = final["standings"]
    assert [s["rank"] for s in standings] == list(range(1, 8))
    for s in standings:
        mine = expected[s["player_id"]]
        assert (s["points"], s["buchholz"], s["sonneborn_berger"]) == (
            mine["points"], mine["buchholz"], mine["sonneborn_berger"]), s["player_id"]
    order = [(-s["points"], -s["buchholz"], -s["sonneborn_berger"]) for s in standings]
    assert order == sorted(order)
    assert sum(s["points"] for s in standings) == 3 * 3 + 3  # 3 games and a bye a round

    work(app)  # over: nothing more happens
    assert read(client, tid)["rounds"] == rounds


def test_players_in_score_groups_play_each_other(app: Flask, client: FlaskClient) -> None:
    """Round 2 pairs winners with winners where it can: 8 players, 4 winners."""
    players = [f"s{i}" for i in range(8)]
    tid, tokens = entered(client, players, rounds=2)
    work(app)
    first = read(client, tid)["rounds"][0]
    winners = set()
    for pairing in first["pairings"]:
        a, b = pairing["players"]
        resign(client, pairing["match_id"], tokens[b])
        winners.add(a)
    work(app)
    second = read(client, tid)["rounds"][1]
    assert second["bye"] is None
    for pairing in second["pairings"]:
        a, b = pairing["players"]
        assert (a in winners) == (b in winners), pairing


def test_a_withdrawn_player_gets_no_further_pairings(app: Flask, client: FlaskClient) -> None:
    players = ["w1", "w2", "w3", "w4"]
    tid, tokens = entered(client, players, rounds=3)
    work(app)
    first = read(client, tid)["rounds"][0]
    r = client.post(f"/v1/tournaments/{tid}/withdraw", headers=auth(tokens["w4"]), json={})
    assert r.status_code == 200 and r.get_json()["withdrawn"] == ["w4"]
    for pairing in first["pairings"]:
        resign(client, pairing["match_id"], tokens[pairing["players"][1]])
    work(app)
    second = read(client, tid)["rounds"][1]
    assert "w4" not in [p for x in second["pairings"] for p in x["players"]]
    assert second["bye"] is not None and second["bye"] != "w4"
    again = client.post(f"/v1/tournaments/{tid}/withdraw", headers=auth(tokens["w4"]), json={})
    assert again.status_code == 409 and again.get_json()["reason"] == "not_entered"
    late = client.post(f"/v1/tournaments/{tid}/join", headers=auth(mint(client, "w5")), json={})
    assert late.status_code == 409 and late.get_json()["reason"] == "entry_closed"
    standings = {s["player_id"]: s for s in read(client, tid)["standings"]}
    assert standings["w4"]["withdrawn"] and standings["w4"]["games"] == 1


def test_below_min_players_it_is_cancelled(app: Flask, client: FlaskClient) -> None:
    tid = create(client, min_players=3)["id"]
    join(client, tid, mint(client, "c1"))
    join(client, tid, mint(client, "c2"))
    work(app)
    t = read(client, tid)
    assert t["status"] == "cancelled" and t["rounds"] == [] and t["finished_at"]
    assert client.get("/v1/tournaments?status=cancelled").get_json()["tournaments"][0]["id"] == tid


@pytest.mark.parametrize(("body", "field"), [
    ({"system": "swiss", "rounds": 21}, "rounds"),
    ({"system": "swiss", "rounds": 0}, "rounds"),
    ({"system": "arena", "duration_minutes": 4}, "duration_minutes"),
    ({"system": "arena", "duration_minutes": 721}, "duration_minutes"),
    ({"system": "swiss"}, "rounds"),
    ({"system": "arena"}, "duration_minutes"),
    ({"system": "knockout", "rounds": 3}, "system"),
    ({"system": "swiss", "rounds": 3, "clock": None}, "clock"),
    ({"system": "swiss", "rounds": 3, "min_players": 9, "max_players": 8}, "min_players"),
    ({"system": "swiss", "rounds": 3, "starts_at": "2099-01-01T00:00:00Z"}, "starts_at"),
])
def test_a_bad_tournament_is_refused_naming_the_field(
        client: FlaskClient, body: dict[str, Any], field: str) -> None:
    payload = {"name": "x", "starts_at": "2026-01-01T00:00:00Z",
               "clock": {"move_seconds": 30}, **body}
    if payload.get("clock") is None:
        del payload["clock"]
    r = client.post("/v1/tournaments", json=payload)
    assert r.status_code == 422, r.get_json()
    assert field in str(r.get_json()), r.get_json()
    assert client.get("/v1/tournaments").get_json()["tournaments"] == []


def test_joining_needs_a_player(client: FlaskClient) -> None:
    """Without a player token (or a server key naming one) a join is 401 with the
    challenge a client needs, and nobody is entered."""
    tid = create(client)["id"]
    r = client.post(f"/v1/tournaments/{tid}/join", json={})
    assert r.status_code == 401 and r.get_json()["reason"] == "player_required"
    assert r.headers["WWW-Authenticate"].startswith("Bearer")
    assert read(client, tid)["entrants"] == []


def test_four_player_rules_are_refused(client: FlaskClient) -> None:
    r = client.post("/v1/tournaments", json={
        "name": "x", "system": "swiss", "rounds": 2, "variant": "egyptian-4p",
        "starts_at": "2026-01-01T00:00:00Z", "clock": {"move_seconds": 30}})
    assert r.status_code == 422, r.get_json()


def test_a_rated_tournament_rates_its_matches(app: Flask, client: FlaskClient) -> None:
    tokens = {p: mint(client, p) for p in ("q1", "q2")}
    tid = create(client, rounds=1, rated=True)["id"]
    for p in tokens:
        join(client, tid, tokens[p])
    work(app)
    (pairing,) = read(client, tid)["rounds"][0]["pairings"]
    match = client.get(f"/v1/matches/{pairing['match_id']}").get_json()
    assert match["rated"] is True
    resign(client, pairing["match_id"], tokens[pairing["players"][1]])
    work(app)
    final = read(client, tid)
    assert final["status"] == "finished"
    by_id = {s["player_id"]: s for s in final["standings"]}
    winner, loser = pairing["players"]
    assert by_id[winner]["rating"] > by_id[loser]["rating"]  # the last tie-break
    record = client.get(f"/v1/players/{winner}").get_json()
    assert record["ratings"][0]["games"] == 1
    assert by_id[winner]["rating"] == record["ratings"][0]["display"]  # the number shown
    # a rated match after the event moves their ratings, not its final standings
    after = client.post("/v1/matches", headers=auth(tokens[winner]), json={
        "rated": True, "players": [{"name": "W", "player_id": winner},
                                   {"name": "L", "player_id": loser}]}).get_json()
    resign(client, after["id"], tokens[winner])
    assert client.get(f"/v1/players/{winner}").get_json()["ratings"][0]["games"] == 2
    assert read(client, tid)["standings"] == final["standings"]


def test_a_games_result_counts_as_its_match_ends(app: Flask, client: FlaskClient) -> None:
    """A pairing's result is written with its match's finish (no worker pass needed): the
    standings show it at once. A seat that has not played cannot wipe its game by
    aborting it (its opponent would lose the win a forfeit gives): 409, still playing."""
    tokens = {p: mint(client, p) for p in PLAYERS[:4]}
    tid = create(client, rounds=1, min_players=4)["id"]
    for p in PLAYERS[:4]:
        join(client, tid, tokens[p])
    work(app)
    won, kept = read(client, tid)["rounds"][0]["pairings"]
    first, second = won["players"]
    resign(client, won["match_id"], tokens[second])
    for seat in (0, 1):
        r = client.post(f"/v1/matches/{kept['match_id']}/abort",
                        headers=auth(tokens[kept["players"][seat]]))
        assert r.status_code == 409 and "tournament" in r.get_json()["detail"]
    t = read(client, tid)  # before any worker pass
    games = {p["match_id"]: p for p in t["rounds"][0]["pairings"]}
    assert games[won["match_id"]]["status"] == "finished"
    assert games[won["match_id"]]["winner"] == first
    assert games[kept["match_id"]]["status"] == "playing"
    assert client.get(f"/v1/matches/{kept['match_id']}").get_json()["status"] == "active"
    points = {s["player_id"]: s["points"] for s in t["standings"]}
    assert points[first] == 1 and points[second] == 0


def test_a_result_an_older_process_did_not_write_is_given_by_the_next_pass(
        app: Flask, client: FlaskClient) -> None:
    """A game whose match ended without its result (saved by a process of a version
    before results went with the match, as during a rolling upgrade) gets it from the
    worker's next pass, and the round goes on."""
    from sqlalchemy import update

    from service.storage.db import db
    from service.tournaments.models import Pairing

    tokens = {p: mint(client, p) for p in PLAYERS[:2]}
    tid = create(client, rounds=2, min_players=2)["id"]
    for p in PLAYERS[:2]:
        join(client, tid, tokens[p])
    work(app)
    game = read(client, tid)["rounds"][0]["pairings"][0]
    first, second = game["players"]
    resign(client, game["match_id"], tokens[first])
    with app.app_context():  # as an older process left it: the match over, the game not
        db.session.execute(update(Pairing).values(status="playing", winner=None))
        db.session.commit()
    work(app)
    t = read(client, tid)
    assert t["rounds"][0]["pairings"][0]["status"] == "finished"
    assert t["rounds"][0]["pairings"][0]["winner"] == second
    assert t["round"] == 2  # the next round was paired in the same pass
