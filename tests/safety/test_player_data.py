"""A player's data (issue 42, item 7): the export holds all the service keeps of them;
an erasure revokes their tokens, replaces their id in every stored match and tournament
by a pseudonym that leads nowhere, removes their ratings, records, blocks and reports,
and leaves their opponents' records and ratings as they were."""

from __future__ import annotations

import json

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, text

from service.storage.db import db
from tests.client import auth, tokens
from tests.tournaments.helpers import entered, mint, read, resign, work


def _rated(client: FlaskClient, *players: str) -> dict[str, object]:
    r = client.post("/v1/matches", json={"rated": True, "players": [
        {"name": p.upper(), "player_id": p} for p in players]})
    assert r.status_code == 201, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def _dump(app: Flask, but: str) -> str:
    """Every row of every table the service keeps, as text, but player ``but``'s own
    row (the tombstone that refuses their old tokens)."""
    with app.app_context():
        rows = [repr(tuple(r)) for t in db.metadata.sorted_tables
                for r in db.session.execute(select(t))
                if not (t.name == "players" and r.player_id == but)]
        db.session.remove()
    return "\n".join(rows)


def test_an_export_holds_what_the_service_keeps_of_the_player(client: FlaskClient) -> None:
    ana = mint(client, "ana")
    mint(client, "cy")
    created = _rated(client, "ana", "bo")
    resign(client, str(created["id"]), tokens(created)[1])
    assert client.put("/v1/players/ana/blocks/cy", headers=auth(ana)).status_code == 200
    client.put("/v1/players/ana/suspension", json={"reason": "spam", "until": None})
    r = client.get("/v1/players/ana/export")
    assert r.status_code == 200, r.get_json()
    data = r.get_json()
    assert data["player_id"] == "ana" and data["name"] == "ANA"
    assert data["totals"]["wins"] == 1
    assert [m["id"] for m in data["matches"]] == [created["id"]]
    assert data["ratings"][0]["pool"] == "egyptian-v2"
    assert len(data["ratings"][0]["history"]) == 1
    assert [b["player_id"] for b in data["blocks"]] == ["cy"]
    assert data["suspension"]["reason"] == "spam"
    assert [a["action"] for a in data["actions"]] == ["player.blocked", "player.suspended"]
    assert client.get("/v1/players/nobody/export").status_code == 404


def test_an_erasure_leaves_no_trace_of_the_player_and_opponents_as_they_were(
    app: Flask, client: FlaskClient,
) -> None:
    ana, bo = mint(client, "ana"), mint(client, "bo")
    created = _rated(client, "ana", "bo")
    said = client.post(f"/v1/matches/{created['id']}/chat", json={"phrase": "hello"},
                       headers=auth(ana))
    assert said.status_code == 201, said.get_json()
    resign(client, str(created["id"]), tokens(created)[0])  # bo wins
    tid, toks = entered(client, ["ana", "cy"], rounds=1)
    work(app)
    game = read(client, tid)["rounds"][0]["pairings"][0]
    resign(client, game["match_id"], toks["cy"])
    work(app, 2)
    assert client.put("/v1/players/bo/blocks/ana", headers=auth(bo)).status_code == 200
    report = client.post("/v1/reports", headers=auth(bo), json={
        "match_id": created["id"], "player_id": "ana", "reason": "abuse"})
    assert report.status_code == 201
    opponent = client.get("/v1/players/bo").get_json()

    r = client.delete("/v1/players/ana")
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["matches"] == 2
    assert client.get("/v1/players/ana", headers=auth(ana)).status_code == 401
    after = client.get("/v1/players/bo").get_json()
    assert after["ratings"] == opponent["ratings"] and after["totals"] == opponent["totals"]
    seats = client.get(f"/v1/matches/{created['id']}").get_json()["seats"]
    assert seats[0]["name"] == "Erased player"
    pseudonym = seats[0]["player_id"]
    assert pseudonym.startswith("erased-")
    changes = client.get(f"/v1/matches/{created['id']}").get_json()["rating_changes"]
    assert changes[0]["player_id"] == pseudonym
    standings = read(client, tid)["standings"]
    assert "ana" not in {s["player_id"] for s in standings}
    assert client.get("/v1/players/bo/blocks").get_json()["blocks"] == []
    assert client.get("/v1/reports").get_json()["reports"] == []
    dumped = _dump(app, but="ana")
    assert "'ana'" not in dumped and '"ana"' not in dumped and "ANA" not in dumped
    with app.app_context():  # the tombstone holds the id alone (its tokens refused)
        row = db.session.execute(text(
            "SELECT name, matches, signed_out_at FROM players WHERE player_id = 'ana'")).one()
        db.session.remove()
    assert row[0] is None and row[1] == 0 and row[2] is not None
    audit = client.get("/v1/audit").get_json()["entries"]
    assert audit[0]["action"] == "player.erased"
    assert "ana" not in json.dumps(audit)
    assert client.delete("/v1/players/nobody").status_code == 404


def test_an_erasure_rewrites_only_where_events_name_the_player(
    app: Flask, client: FlaskClient,
) -> None:
    """An id that is also a word events use ("finished") and a name another player shares
    ("Ali"): the others' events keep their statuses and their own names."""
    for player, name in (("finished", "Ali"), ("ali2", "Ali")):
        r = client.post(f"/v1/players/{player}/tokens", json={"name": name})
        assert r.status_code == 201
    created = client.post("/v1/matches", json={"players": [
        {"name": "Ali", "player_id": "finished"}, {"name": "Ali", "player_id": "ali2"}]})
    resign(client, created.get_json()["id"], tokens(created.get_json())[0])
    assert client.delete("/v1/players/finished").status_code == 200
    with app.app_context():
        kept = [json.loads(body) for body in db.session.execute(text(
            "SELECT body FROM player_events WHERE player_id = 'ali2' ORDER BY pk")).scalars()]
        db.session.remove()
    ended = next(e for e in kept if e.get("status"))
    assert ended["status"] == "finished"
    started = next(e for e in kept if "seats" in e)
    assert [(s["player_id"], s["name"]) for s in started["seats"]][1] == ("ali2", "Ali")
    assert started["seats"][0]["player_id"].startswith("erased-")
    assert started["seats"][0]["name"] == "Erased player"
