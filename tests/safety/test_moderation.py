"""Moderation that fits the work (issue 54, item 5): a report suspends for a while and
forfeits, its resolution says so; a match is voided once; a player's export holds their
chat lines and an erasure replaces their words; the front end's webhooks hear of
suspensions, their lifting, sign-outs and erasures, naming the id it knows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from flask import Flask
from flask.testing import FlaskClient

from service.safety.service import ERASED_WORDS
from tests.client import auth
from tests.safety.test_erasure_events import _hooked, _messages
from tests.tournaments.helpers import mint, resign


def _match(client: FlaskClient, *players: str) -> dict[str, object]:
    r = client.post("/v1/matches", json={"players": [
        {"name": p.upper(), "player_id": p} for p in players]})
    assert r.status_code == 201, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def test_a_report_suspends_for_a_while_forfeits_and_says_so(client: FlaskClient) -> None:
    ana, _ = mint(client, "ana"), mint(client, "bo")
    played = _match(client, "ana", "bo")
    playing = _match(client, "bo", "ana")  # still going: the forfeit ends it
    report = client.post("/v1/reports", headers=auth(ana), json={
        "match_id": played["id"], "player_id": "bo", "reason": "abuse"}).get_json()
    until = (datetime.now(UTC) + timedelta(days=3)).replace(microsecond=0)
    r = client.post(f"/v1/reports/{report['id']}/resolve", json={
        "action": "suspend", "note": "three days", "until": until.isoformat(),
        "forfeit": True})
    assert r.status_code == 200, r.get_json()
    resolution = r.get_json()["resolution"]
    assert resolution["action"] == "suspend" and resolution["forfeit"] is True
    assert datetime.fromisoformat(resolution["until"]) == until
    held = client.get("/v1/players/bo/export").get_json()["suspension"]
    assert held["until"] is not None and held["reason"] == "three days"
    ended = client.get(f"/v1/matches/{playing['id']}").get_json()
    assert ended["status"] == "finished" and ended["winner"] == 1


def test_a_match_is_voided_once(client: FlaskClient) -> None:
    played = _match(client, "ana", "bo")
    resign(client, str(played["id"]), played["seats"][0]["token"])  # type: ignore[index]
    r = client.post(f"/v1/matches/{played['id']}/void", json={"reason": "collusion"})
    assert r.status_code == 200 and r.get_json()["voided"]["reason"] == "collusion"
    again = client.post(f"/v1/matches/{played['id']}/void", json={"reason": "again"})
    assert again.status_code == 409 and again.get_json()["reason"] == "match_voided"
    assert client.get(f"/v1/matches/{played['id']}").get_json()["voided"]["reason"] \
        == "collusion"


def test_an_export_holds_the_chat_lines_and_an_erasure_replaces_their_words(
        client: FlaskClient) -> None:
    ana, bo = mint(client, "ana"), mint(client, "bo")
    assert client.put("/v1/chat/settings", json={"mode": "text"}).status_code == 200
    played = _match(client, "ana", "bo")
    for token, said in ((ana, "good luck"), (bo, "you too")):
        r = client.post(f"/v1/matches/{played['id']}/chat", json={"text": said},
                        headers=auth(token))
        assert r.status_code == 201, r.get_json()
    exported = client.get("/v1/players/ana/export").get_json()["chat"]
    assert [(c["match_id"], c["text"]) for c in exported] == [(played["id"], "good luck")]
    assert client.delete("/v1/players/ana").status_code == 200
    lines = client.get(f"/v1/matches/{played['id']}/chat").get_json()["lines"]
    assert [line["text"] for line in lines] == [ERASED_WORDS, "you too"]
    assert lines[0]["player_id"].startswith("erased-")


def test_the_front_ends_webhooks_hear_suspensions_sign_outs_and_erasures(
        app: Flask, client: FlaskClient) -> None:
    _hooked(app, client, ["player.suspended", "player.suspension_lifted",
                          "player.signed_out", "player.erased"])
    mint(client, "ana")
    until = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    assert client.put("/v1/players/ana/suspension", json={
        "reason": "spam", "until": until, "forfeit": True}).status_code == 200
    assert client.delete("/v1/players/ana/suspension").status_code == 204
    assert client.post("/v1/players/ana/tokens/revoke").status_code == 200
    told = [(kind, data) for kind, data in _messages(app)]
    assert [kind for kind, _ in told] == [
        "player.suspended", "player.suspension_lifted", "player.signed_out"]
    suspended = told[0][1]
    assert suspended["player_id"] == "ana" and suspended["reason"] == "spam"
    assert suspended["until"] is not None and suspended["forfeit"] is True
    assert client.delete("/v1/players/ana").status_code == 200
    erased = [data for kind, data in _messages(app) if kind == "player.erased"]
    assert erased == [{"player_id": "ana", "matches": 0}]  # the id the front end knows
