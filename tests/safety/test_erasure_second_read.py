"""What a second hostile read of erasure found (issue 53, item 2): a report's text about
the erased player is kept in no webhook message; the erasure tells only
``player.erased``; an erased entrant stands as "Erased player"; an erased id answers as
an unknown one and names no new row."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from tests.client import auth
from tests.safety.test_erasure_events import _hooked, _messages
from tests.tournaments.helpers import entered, mint, read, work


def _match(client: FlaskClient, *players: str) -> dict[str, object]:
    r = client.post("/v1/matches", json={"players": [
        {"name": p.upper(), "player_id": p} for p in players]})
    assert r.status_code == 201, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def test_a_kept_report_message_loses_the_text_about_the_erased_player(
        app: Flask, client: FlaskClient) -> None:
    _hooked(app, client, ["report.created"])
    bo = mint(client, "bo")
    mint(client, "ff-gone-42")
    created = _match(client, "bo", "ff-gone-42")
    r = client.post("/v1/reports", headers=auth(bo), json={
        "match_id": created["id"], "player_id": "ff-gone-42", "reason": "abuse",
        "text": "Fiona Gonewith aka ff-gone-42 said frobozz"})
    assert r.status_code == 201, r.get_json()
    assert client.delete("/v1/players/ff-gone-42").status_code == 200
    ((kind, data),) = _messages(app)
    assert kind == "report.created" and data["reporter"] == "bo"
    assert data["player_id"].startswith("erased-") and data["text"] == "(erased)"


def test_an_erasure_tells_only_player_erased(app: Flask, client: FlaskClient) -> None:
    _hooked(app, client, ["player.signed_out", "player.suspended", "player.erased"])
    mint(client, "ana")
    assert client.delete("/v1/players/ana").status_code == 200
    assert _messages(app) == [("player.erased", {"player_id": "ana", "matches": 0})]


def test_an_erased_entrant_stands_as_erased_player(app: Flask, client: FlaskClient) -> None:
    tid, _ = entered(client, ["ana", "cy"], rounds=1)
    work(app)
    assert client.delete("/v1/players/ana").status_code == 200  # their game forfeited
    running = read(client, tid)["standings"]
    assert {s["name"] for s in running} == {"Erased player", "CY"}
    work(app, 2)
    tour = read(client, tid)
    assert tour["status"] == "finished"
    assert {s["name"] for s in tour["standings"]} == {"Erased player", "CY"}
