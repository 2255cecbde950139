"""Challenges (issue 43, item 3): the challenged player hears it, accepts (the match is
made with both seated), declines, or lets it expire; the challenger cancels; refused
between players who block each other, to a suspended player, past the cap."""

from __future__ import annotations

import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, update

from service.players.models import PlayerEvent
from service.social.models import Challenge
from service.storage.base import utcnow
from service.storage.db import db
from tests.client import auth
from tests.conftest import make_app, require_postgres
from tests.servers import call, gunicorn, sse_events
from tests.tournaments.helpers import mint, work


def _challenge(client: FlaskClient, token: str, to: str, **body: Any) -> Any:
    return client.post("/v1/challenges", headers=auth(token), json={"to": to, **body})


def _events(app: Flask, player: str) -> list[tuple[str, str]]:
    with app.app_context():
        rows = db.session.execute(select(PlayerEvent.type, PlayerEvent.body).where(
            PlayerEvent.player_id == player).order_by(PlayerEvent.pk)).all()
        db.session.remove()
    return [(kind, body) for kind, body in rows]


def test_an_accepted_challenge_seats_both_players(app: Flask, client: FlaskClient) -> None:
    ana, bo = mint(client, "ana"), mint(client, "bo")
    r = _challenge(client, ana, "bo", rated=True, clock={"move_seconds": 30})
    assert r.status_code == 201, r.get_json()
    made = r.get_json()
    assert made["status"] == "open" and made["challenged"] == "bo" and made["rated"]
    assert [k for k, _ in _events(app, "bo")] == ["challenge.created"]
    listed = client.get("/v1/players/bo/challenges", headers=auth(bo)).get_json()
    assert [c["id"] for c in listed["challenges"]] == [made["id"]]
    theirs = client.post(f"/v1/challenges/{made['id']}/accept", headers=auth(ana))
    assert theirs.status_code == 409 and theirs.get_json()["reason"] == "not_your_challenge"
    accepted = client.post(f"/v1/challenges/{made['id']}/accept", headers=auth(bo))
    assert accepted.status_code == 201, accepted.get_json()
    body = accepted.get_json()
    match_id = body["match_id"]
    assert body["challenge"]["status"] == "accepted" and body["seat"] == 1 and body["token"]
    state = body["state"]
    assert state["rated"] and state["clock"]["move_seconds"] == 30
    assert [s["player_id"] for s in state["seats"]] == ["ana", "bo"]
    assert ("challenge.accepted", f'"match_id":"{match_id}"') in [
        (k, f'"match_id":"{match_id}"') for k, b in _events(app, "ana") if match_id in b]
    mine = client.get(f"/v1/matches/{match_id}", headers=auth(ana)).get_json()
    assert "hand" in mine  # the challenger's token acts for their seat
    again = client.post(f"/v1/challenges/{made['id']}/accept", headers=auth(bo))
    assert again.status_code == 409 and again.get_json()["reason"] == "challenge_closed"


def test_declined_cancelled_and_refused_challenges(client: FlaskClient) -> None:
    ana, bo, cy = mint(client, "ana"), mint(client, "bo"), mint(client, "cy")
    one = _challenge(client, ana, "bo").get_json()
    declined = client.post(f"/v1/challenges/{one['id']}/decline", headers=auth(bo))
    assert declined.status_code == 200 and declined.get_json()["status"] == "declined"
    two = _challenge(client, ana, "bo").get_json()
    assert client.post(f"/v1/challenges/{two['id']}/cancel", headers=auth(bo)).status_code \
        == 409
    cancelled = client.post(f"/v1/challenges/{two['id']}/cancel", headers=auth(ana))
    assert cancelled.get_json()["status"] == "cancelled"
    outsider = client.get(f"/v1/challenges/{two['id']}", headers=auth(cy))
    assert outsider.status_code == 404
    four = _challenge(client, ana, "bo", variant="egyptian-4p")
    assert four.status_code == 422
    bad = _challenge(client, ana, "bo", rules={"capture": {"mode": "nonsense"}})
    assert bad.status_code == 422 and bad.get_json()["reason"] == "invalid_rules"
    three = _challenge(client, ana, "bo").get_json()
    client.put("/v1/players/bo/blocks/ana", headers=auth(bo))
    since = client.post(f"/v1/challenges/{three['id']}/accept", headers=auth(bo))
    assert since.status_code == 409 and since.get_json()["reason"] == "player_blocked"
    assert client.post(f"/v1/challenges/{three['id']}/cancel",
                       headers=auth(ana)).status_code == 200
    blocked = _challenge(client, ana, "bo")
    assert blocked.status_code == 409 and blocked.get_json()["reason"] == "player_blocked"
    client.put("/v1/players/cy/suspension", json={"reason": "abuse"})
    suspended = _challenge(client, ana, "cy")
    assert suspended.status_code == 403 and suspended.get_json()["reason"] == "player_suspended"
    unsigned = client.post("/v1/challenges", json={"to": "bo"})
    assert unsigned.status_code == 401 and unsigned.get_json()["reason"] == "player_required"
    assert client.get("/v1/players/ana/challenges", headers=auth(ana)).get_json() \
        == {"challenges": []}


def test_challenges_expire_and_are_bounded(backend: str, tmp_path: Path) -> None:
    app = make_app(backend, tmp_path, BASRA_CHALLENGES_MAX=2)
    client = app.test_client()
    ana, bo = mint(client, "ana"), mint(client, "bo")
    mint(client, "cy")
    first = _challenge(client, ana, "bo").get_json()
    assert _challenge(client, ana, "cy").status_code == 201
    over = _challenge(client, ana, "bo")  # ana made two already
    assert over.status_code == 409 and over.get_json()["reason"] == "too_many_challenges"
    assert _challenge(client, bo, "ana").status_code == 201  # received ones never stop bo
    expires = first["expires_at"]
    assert client.get(f"/v1/challenges/{first['id']}", headers=auth(bo)).get_json()[
        "expires_at"] == expires
    with app.app_context():  # its minute passes
        db.session.execute(update(Challenge).where(Challenge.id == first["id"]).values(
            expires_at=utcnow() - timedelta(seconds=1)))
        db.session.commit()
        db.session.remove()
    assert client.get(f"/v1/challenges/{first['id']}", headers=auth(bo)).get_json()[
        "status"] == "expired"
    work(app)  # the worker marks it and tells both players, once
    work(app)
    for player in ("ana", "bo"):
        assert [k for k, _ in _events(app, player)].count("challenge.expired") == 1
    late = client.post(f"/v1/challenges/{first['id']}/accept", headers=auth(bo))
    assert late.status_code == 409 and late.get_json()["reason"] == "challenge_closed"
    assert _challenge(client, ana, "bo").status_code == 201  # expired ones free the cap


@pytest.mark.process
def test_a_challenge_made_on_one_instance_is_heard_and_accepted_on_another() -> None:
    url = require_postgres()
    ana, bo = f"ana-{uuid.uuid4().hex[:8]}", f"bo-{uuid.uuid4().hex[:8]}"
    with gunicorn(url, workers=1) as a, gunicorn(url, workers=1) as b:
        tokens = {p: call(a, "POST", f"/v1/players/{p}/tokens", {})[1]["token"]
                  for p in (ana, bo)}
        stream = sse_events(b, f"/v1/players/{bo}/events",
                            {"Authorization": f"Bearer {tokens[bo]}"})
        assert next(stream) == {"comment": "connected"}
        status, made = call(a, "POST", "/v1/challenges", {"to": bo}, tokens[ana])
        assert status == 201, made
        heard = next(e for e in stream if "comment" not in e)
        assert heard["event"] == "challenge.created"
        assert heard["data"]["challenge_id"] == made["id"]
        status, accepted = call(b, "POST", f"/v1/challenges/{made['id']}/accept", None,
                                tokens[bo])
        assert status == 201, accepted
        status, view = call(a, "GET", f"/v1/matches/{accepted['match_id']}", None, tokens[ana])
        assert status == 200 and view["seat"] == 0
