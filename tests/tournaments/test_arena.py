"""Arena tournaments (issue "Tournaments", item 2): free players paired as they come
free, never with their last opponent while another is free, 2 points a win and 4 on a
streak, unfinished matches not counted at the end."""

from __future__ import annotations

from datetime import timedelta

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update

from service.storage.base import utcnow
from service.storage.db import db
from service.tournaments import pairing
from service.tournaments.models import Pairing, Tournament
from service.tournaments.pairing import Standing
from tests.tournaments.helpers import create, join, mint, read, resign, work


def _playing(t: dict) -> list[dict]:
    return [p for p in t["pairings"] if p["status"] == "playing"]


def _settle_all(client: FlaskClient, tokens: dict[str, str], t: dict) -> None:
    """Every game under way ends: a1 always wins, otherwise the lower number."""
    for p in _playing(t):
        a, b = p["players"]
        winner = "a1" if "a1" in (a, b) else min(a, b)
        resign(client, p["match_id"], tokens[b if winner == a else a])


def test_an_arena_pairs_free_players_scores_streaks_and_ends_on_time(
        app: Flask, client: FlaskClient) -> None:
    players = ["a1", "a2", "a3", "a4"]
    tokens = {p: mint(client, p) for p in players}
    tid = create(client, system="arena", duration_minutes=5)["id"]
    for p in players[:3]:
        join(client, tid, tokens[p])
    work(app)
    t = read(client, tid)
    assert t["status"] == "running" and t["ends_at"] and t["rounds"] is None
    assert len(_playing(t)) == 1  # three entrants: one waits
    join(client, tid, tokens["a4"])  # an arena takes entrants while it runs
    work(app)
    t = read(client, tid)
    assert len(_playing(t)) == 2
    last: dict[str, str] = {}
    for _ in range(3):
        for p in _playing(t):
            a, b = p["players"]
            last[a], last[b] = b, a
        _settle_all(client, tokens, t)
        work(app)
        t = read(client, tid)
        for p in _playing(t):
            a, b = p["players"]
            assert last[a] != b, "paired with the last opponent while another was free"
    assert len(_playing(t)) == 2
    standings = {s["player_id"]: s for s in t["standings"]}
    a1 = standings["a1"]
    assert (a1["wins"], a1["losses"]) == (3, 0) and a1["streak"] == 3
    assert a1["points"] == 2 + 2 + 4  # the third win in a row counts double
    assert t["standings"][0]["player_id"] == "a1"
    for s in t["standings"]:  # nobody else won three in a row: 2 a win
        if s["player_id"] != "a1":
            assert s["points"] == 2 * s["wins"]

    with app.app_context():  # the clock runs out with two games under way
        db.session.execute(update(Tournament).where(Tournament.id == tid)
                           .values(ends_at=utcnow() - timedelta(seconds=1)))
        db.session.commit()
    work(app)
    final = read(client, tid)
    assert final["status"] == "finished"
    assert [p["status"] for p in final["pairings"]].count("void") == 2
    assert {s["player_id"]: s["points"] for s in final["standings"]} == \
        {s["player_id"]: s["points"] for s in t["standings"]}


def test_last_opponents_meet_again_only_after_waiting(app: Flask, client: FlaskClient) -> None:
    tokens = {p: mint(client, p) for p in ("b1", "b2")}
    tid = create(client, system="arena", duration_minutes=5)["id"]
    for p in tokens:
        join(client, tid, tokens[p])
    work(app)
    first = _playing(read(client, tid))[0]
    resign(client, first["match_id"], tokens["b2"])
    work(app)
    assert _playing(read(client, tid)) == []  # only each other free, just now
    with app.app_context():
        db.session.execute(update(Pairing).values(finished_at=utcnow() - timedelta(seconds=4)))
        db.session.commit()
    work(app)
    assert len(_playing(read(client, tid))) == 1


def test_the_nearest_free_player_in_standing_is_chosen() -> None:
    rows = [Standing(p, points=float(10 - i)) for i, p in enumerate("abcdef")]
    assert pairing.arena_pairs(rows, {}, {}, 3.0) == [("a", "b"), ("c", "d"), ("e", "f")]
    # a's last opponent was b: a takes c, b takes d
    pairs = pairing.arena_pairs(rows, {"a": "b", "b": "a"}, {}, 3.0)
    assert sorted(map(sorted, pairs)) == [["a", "c"], ["b", "d"], ["e", "f"]]
