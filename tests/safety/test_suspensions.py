"""Suspensions (issue 42, item 1): a suspended player's tokens are refused on every
instance within about a second, their streams end, no token is minted for them, their
waiting tables and tournament entries are released, their active matches go on or are
forfeited, and lifting it lets them back; every step is in the audit log."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, update

from service.players import cache as players_cache
from service.players import service as players
from service.players.models import Player
from service.storage.base import utcnow
from service.storage.db import db, transaction
from service.tenants.models import LOCAL_TENANT
from tests.client import auth
from tests.tournaments.helpers import create as create_tournament
from tests.tournaments.helpers import join as join_tournament
from tests.tournaments.helpers import mint


def _record(client: FlaskClient, token: str, player: str = "ali") -> int:
    return client.get(f"/v1/players/{player}", headers=auth(token)).status_code


def _suspend(client: FlaskClient, player: str = "ali", **body: object) -> dict[str, object]:
    r = client.put(f"/v1/players/{player}/suspension", json={"reason": "cheating", **body})
    assert r.status_code == 200, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def test_a_suspension_refuses_tokens_and_mints_and_releases_tables_and_entries(
    client: FlaskClient,
) -> None:
    token, other = mint(client, "ali"), mint(client, "badr")
    quick = client.post("/v1/matches/quick", headers=auth(token), json={"variant": "egyptian-v2"})
    assert quick.status_code in (200, 201), quick.get_json()
    table = quick.get_json()["id"]
    later = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    tournament = create_tournament(client, starts_at=later)["id"]
    join_tournament(client, tournament, token)
    until = (datetime.now(UTC) + timedelta(hours=2)).replace(microsecond=0)

    held = _suspend(client, until=until.isoformat(), reason="collusion with badr")
    assert held["player_id"] == "ali" and held["reason"] == "collusion with badr"
    assert held["until"] == until.isoformat()
    assert held["tables_left"] == [table] and held["tournaments_left"] == [tournament]

    refused = client.get("/v1/players/ali", headers=auth(token))
    assert refused.status_code == 403 and refused.get_json()["reason"] == "player_suspended"
    assert "until" in refused.get_json()["detail"]
    minted = client.post("/v1/players/ali/tokens", json={})
    assert minted.status_code == 403 and minted.get_json()["reason"] == "player_suspended"
    seated = client.post("/v1/matches", json={"players": [
        {"name": "Ali", "player_id": "ali"}, {"bot": "greedy"}]})
    assert seated.status_code == 403  # a server key seats them nowhere either
    assert _record(client, other, "badr") == 200
    seats = client.get(f"/v1/matches/{table}").get_json()["seats"]
    assert all(s["player_id"] != "ali" for s in seats)
    entry = client.get(f"/v1/tournaments/{tournament}").get_json()
    assert "ali" not in entry["entrants"]

    again = _suspend(client, reason="for good now")  # a change: for good
    assert again["until"] is None and again["since"] == held["since"]
    assert client.delete("/v1/players/ali/suspension").status_code == 204
    assert _record(client, token) == 200  # lifted: the same token works again
    assert client.delete("/v1/players/ali/suspension").status_code == 204  # again: fine
    audit = client.get("/v1/audit").get_json()["entries"]
    assert [e["action"] for e in audit if e["subject"] == "player:ali"] == [
        "player.suspension_lifted", "player.suspended", "player.suspended"]
    assert all(e["actor"] == "local" for e in audit)


def test_a_suspension_lets_active_matches_go_on_or_forfeits_them(client: FlaskClient) -> None:
    seat_tokens = {}

    def match() -> str:
        r = client.post("/v1/matches", json={"players": [
            {"name": "Ali", "player_id": "ali"}, {"name": "Badr", "player_id": "badr"}]})
        assert r.status_code == 201, r.get_json()
        seat_tokens[r.get_json()["id"]] = r.get_json()["seats"][0]["token"]
        return str(r.get_json()["id"])

    goes_on, lost = match(), match()
    assert _suspend(client)["matches_forfeited"] == []
    assert client.get(f"/v1/matches/{goes_on}").get_json()["status"] == "active"
    acted = client.post(f"/v1/matches/{goes_on}/resign", headers=auth(seat_tokens[goes_on]))
    assert acted.status_code == 403 and acted.get_json()["reason"] == "player_suspended"
    assert _suspend(client, forfeit=True)["matches_forfeited"] == [goes_on, lost]
    ended = client.get(f"/v1/matches/{lost}").get_json()
    assert ended["status"] == "finished" and ended["end_reason"] == "suspended"
    assert ended["winner"] == 1  # ali held seat 0: their side lost
    totals = client.get("/v1/players/badr").get_json()["totals"]
    assert totals["wins"] == 2


def test_bad_suspensions_are_refused_and_change_nothing(client: FlaskClient) -> None:
    token = mint(client, "ali")
    past = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    for body, field in (({"reason": "x", "until": past}, "until"), ({}, "reason"),
                        ({"reason": ""}, "reason"), ({"reason": "x" * 501}, "reason")):
        r = client.put("/v1/players/ali/suspension", json=body)
        assert r.status_code == 422, (body, r.get_json())
        assert field in str(r.get_json()["errors"])
    r = client.put("/v1/players/nobody/suspension", json={"reason": "x"})
    assert r.status_code == 404 and r.get_json()["reason"] == "player_not_found"
    assert _record(client, token) == 200


def test_a_suspension_written_by_another_instance_is_refused_here_within_two_seconds(
    app: Flask, client: FlaskClient,
) -> None:
    token = mint(client, "ali")
    headers = auth(token)
    stream = client.get("/v1/players/ali/events", headers=headers, buffered=False)
    assert stream.status_code == 200
    chunks = iter(stream.response)
    assert b"connected" in next(chunks)
    with app.app_context(), transaction(write=True):  # only the database tells
        db.session.execute(update(Player).where(Player.player_id == "ali").values(
            suspended_at=utcnow(), access_changed_at=utcnow(), suspension_reason="abuse"))
    started = time.monotonic()
    for _ in chunks:
        assert time.monotonic() - started < 4, "the stream outlived the suspension"
    assert time.monotonic() - started <= 2.5
    stream.close()
    assert _record(client, token) == 403


def test_a_check_inside_a_write_transaction_keeps_it(app: Flask, client: FlaskClient) -> None:
    """A seat's check reads the players' access when its copy is old, inside the use
    case's write transaction: on a connection of its own, the transaction (its locks,
    its writes) left as it was."""
    mint(client, "ali")
    with app.app_context():
        with transaction(write=True):
            db.session.execute(update(Player).where(Player.player_id == "ali")
                               .values(name="Kept"))
            players_cache.reset()  # the next check reads the database
            players.check_player(LOCAL_TENANT, "ali")
            assert db.session().in_transaction()
        name = db.session.execute(select(Player.name).where(
            Player.player_id == "ali")).scalar_one()
        db.session.remove()
    assert name == "Kept"


def test_hostile_ends_are_refused(client: FlaskClient) -> None:
    mint(client, "ali")
    for until in ("9999-12-31T23:59:59-12:00", "2200-01-01T00:00:00Z", "not a date"):
        r = client.put("/v1/players/ali/suspension", json={"reason": "x", "until": until})
        assert r.status_code == 422, (until, r.get_json())
    assert client.get("/v1/players/ali/export").get_json()["suspension"] is None
