"""Voided results (issue 42, item 6): a finished match's rating changes are taken back
(later matches' kept), its totals and tournament points taken out, it shows as voided
everywhere, a match.voided event goes out; again is 409 match_voided; two voids racing a
rated finish lose nothing."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from openskill.models import PlackettLuce
from sqlalchemy import select

from service.players.models import Player, PlayerEvent, Rating
from service.storage.db import db
from service.webhooks.models import WebhookMessage
from tests.client import auth, tokens
from tests.conftest import api_key, make_app
from tests.tournaments.helpers import entered, read, resign, work

MODEL = PlackettLuce()


def _rated(client: FlaskClient, *players: str) -> dict[str, Any]:
    r = client.post("/v1/matches", json={"rated": True, "players": [
        {"name": p.upper(), "player_id": p} for p in players]})
    assert r.status_code == 201, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def _ratings(app: Flask) -> dict[str, tuple[float, float, int]]:
    with app.app_context():
        rows = db.session.execute(select(Player.player_id, Rating.mu, Rating.sigma,
                                         Rating.games)
                                  .join(Rating, Rating.player_pk == Player.pk)).all()
        db.session.remove()
    return {p: (mu, sigma, games) for p, mu, sigma, games in rows}


def _void(client: FlaskClient, match_id: str, reason: str = "collusion") -> Any:
    return client.post(f"/v1/matches/{match_id}/void", json={"reason": reason})


def test_a_void_takes_back_what_the_match_gave_and_keeps_later_matches(
    app: Flask, client: FlaskClient,
) -> None:
    first = _rated(client, "ana", "bo")
    resign(client, first["id"], tokens(first)[1])  # ana wins
    changed = client.get(f"/v1/matches/{first['id']}").get_json()["rating_changes"]
    second = _rated(client, "ana", "bo")
    resign(client, second["id"], tokens(second)[0])  # bo wins
    before = _ratings(app)
    assert _void(client, second["id"], "too early").status_code == 200  # a clean slate
    r = _void(client, first["id"])
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["voided"]["reason"] == "collusion"
    after = _ratings(app)
    for change in changed:
        player = change["player_id"]
        moved = change["after"]["mu"] - change["before"]["mu"]
        assert moved != 0
        second_moved = before[player][0] - change["after"]["mu"]  # the second match's
        assert abs(after[player][0] - (before[player][0] - moved - second_moved)) < 1e-9
        assert after[player][2] == 0
        assert abs(after[player][0] - MODEL.mu) < 1e-9  # both voided: back to the start
    totals = client.get("/v1/players/ana").get_json()["totals"]
    assert totals["matches"] == totals["wins"] == totals["losses"] == 0
    spectator = client.get(f"/v1/matches/{first['id']}").get_json()
    assert spectator["voided"]["reason"] == "collusion" and spectator["status"] == "finished"
    listed = {m["id"]: m for m in client.get("/v1/matches").get_json()["matches"]}
    assert listed[first["id"]]["voided"]["reason"] == "collusion"
    again = _void(client, first["id"], "once more")  # voided once: no second void
    assert again.status_code == 409 and again.get_json()["reason"] == "match_voided"
    assert _ratings(app) == after  # nothing taken back twice
    audit = client.get("/v1/audit", query_string={"action": "match.voided"}).get_json()
    assert [e["subject"] for e in audit["entries"]] == [f"match:{first['id']}",
                                                        f"match:{second['id']}"]


def test_only_a_finished_match_is_voided(client: FlaskClient) -> None:
    active = _rated(client, "ana", "bo")
    r = _void(client, active["id"])
    assert r.status_code == 409 and r.get_json()["reason"] == "match_not_finished"
    assert client.get(f"/v1/matches/{active['id']}").get_json()["voided"] is None
    assert _void(client, "no-such-match").status_code == 404
    assert client.post(f"/v1/matches/{active['id']}/void", json={}).status_code == 422


def test_a_void_tells_the_webhooks_and_the_players(backend: str, tmp_path: Path) -> None:
    app = make_app(backend, tmp_path, BASRA_WEBHOOKS_ALLOW_PRIVATE=True)
    client = app.test_client()
    key = api_key(app, "acme")
    hook = client.post("/v1/webhooks", headers=key, json={
        "url": "http://127.0.0.1:9/hook", "events": ["match.voided"]})
    assert hook.status_code == 201, hook.get_json()
    r = client.post("/v1/matches", headers=key, json={"rated": True, "players": [
        {"name": "Ana", "player_id": "ana"}, {"name": "Bo", "player_id": "bo"}]})
    created = r.get_json()
    assert client.post(f"/v1/matches/{created['id']}/resign",
                       headers={**key, **auth(tokens(created)[0])}).status_code == 200
    voided = client.post(f"/v1/matches/{created['id']}/void", headers=key,
                         json={"reason": "collusion"})
    assert voided.status_code == 200, voided.get_json()
    with app.app_context():
        sent = db.session.execute(select(WebhookMessage.body)).scalars().all()
        told = db.session.execute(select(PlayerEvent.player_id).where(
            PlayerEvent.type == "match.voided")).scalars().all()
        db.session.remove()
    assert len(sent) == 1 and '"reason":"collusion"' in sent[0]
    assert sorted(told) == ["ana", "bo"]
    audit = client.get("/v1/audit", headers=key).get_json()["entries"]
    assert audit[0]["action"] == "match.voided"
    assert audit[0]["actor"] == "key:" + key["X-API-Key"][:10]


def test_a_voided_tournament_game_counts_no_more(app: Flask, client: FlaskClient) -> None:
    tid, toks = entered(client, ["ana", "bo"], rounds=1)
    work(app)
    game = read(client, tid)["rounds"][0]["pairings"][0]
    first = game["players"][0]
    resign(client, game["match_id"], toks[first])
    work(app, 2)
    over = read(client, tid)
    assert over["status"] == "finished"
    assert {s["player_id"]: s["points"] for s in over["standings"]}[game["players"][1]] == 1
    assert _void(client, game["match_id"]).status_code == 200
    again = read(client, tid)
    assert all(s["points"] == 0 for s in again["standings"]), again["standings"]
    assert again["rounds"][0]["pairings"][0]["status"] == "void"


def test_two_voids_racing_a_rated_finish_lose_nothing(tmp_path: Path) -> None:
    """On PostgreSQL: a resignation and two voids at once. Whatever the order (a void
    before the finish is refused, a second void too), the match ends voided once, every
    rating and total where it started: nothing was taken back twice, nothing kept."""
    pg_app = make_app("postgres", tmp_path)
    client = pg_app.test_client()
    for _ in range(3):
        created = _rated(client, "ana", "bo")
        barrier = threading.Barrier(3)
        codes: list[int] = []

        def act(call: str, created: dict[str, Any] = created,
                barrier: threading.Barrier = barrier, codes: list[int] = codes) -> None:
            mine = pg_app.test_client()
            barrier.wait()
            if call == "resign":
                r = mine.post(f"/v1/matches/{created['id']}/resign",
                              headers=auth(tokens(created)[0]))
            else:
                r = _void(mine, created["id"])
            codes.append(r.status_code)

        threads = [threading.Thread(target=act, args=(c,)) for c in ("resign", "void", "void")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert sorted(codes) in ([200, 200, 409], [200, 409, 409]), codes  # voided once
        last = _void(client, created["id"])  # voids it if neither void found it finished
        assert last.status_code == (409 if codes.count(200) == 2 else 200), last.get_json()
        assert client.get(f"/v1/matches/{created['id']}").get_json()["voided"] is not None
        ratings = _ratings(pg_app)
        assert all(abs(mu - MODEL.mu) < 1e-9 and abs(sigma - MODEL.sigma) < 1e-9 and games == 0
                   for mu, sigma, games in ratings.values()), ratings
        totals = client.get("/v1/players/ana").get_json()["totals"]
        assert totals["matches"] == 0 and totals["losses"] == 0
