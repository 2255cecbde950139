"""Parties for 2v2 (issue 43, item 4): a leader invites a player who joins; quick play
with the party seats both as partners, against another party or two players alone;
the partner hears where they sit; refusals each a problem with its reason."""

from __future__ import annotations

from typing import Any

import jwt
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from service.players.models import PlayerEvent
from service.storage.db import db
from tests.client import auth
from tests.tournaments.helpers import mint

FOUR = "egyptian-4p"


def _party(client: FlaskClient, leader: str, partner: str) -> str:
    """A party of two: ``leader`` (a token) invites ``partner`` (a token), who joins."""
    made = client.post("/v1/parties", headers=auth(leader))
    assert made.status_code == 201, made.get_json()
    party = made.get_json()["id"]
    partner_id = jwt.decode(partner, options={"verify_signature": False})["sub"]
    r = client.post(f"/v1/parties/{party}/invite", headers=auth(leader),
                    json={"player_id": partner_id})
    assert r.status_code == 200, r.get_json()
    r = client.post(f"/v1/parties/{party}/join", headers=auth(partner))
    assert r.status_code == 200, r.get_json()
    return str(party)


def _quick(client: FlaskClient, token: str, **body: Any) -> dict[str, Any]:
    r = client.post("/v1/matches/quick", headers=auth(token), json={"variant": FOUR, **body})
    assert r.status_code == 201, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def _seats(client: FlaskClient, match_id: str) -> list[str | None]:
    return [s["player_id"] for s in client.get(f"/v1/matches/{match_id}").get_json()["seats"]]


def test_a_party_sits_as_partners_against_two_players_alone(
    app: Flask, client: FlaskClient,
) -> None:
    ana, bo, cy, dee = (mint(client, p) for p in ("ana", "bo", "cy", "dee"))
    party = _party(client, ana, bo)
    seated = _quick(client, ana, party=party)
    match_id = seated["id"]
    assert seated["seat"] == 0 and _seats(client, match_id) == ["ana", None, "bo", None]
    with app.app_context():
        told = db.session.execute(select(PlayerEvent.body).where(
            PlayerEvent.player_id == "bo", PlayerEvent.type == "party.seated")).scalars().all()
        db.session.remove()
    assert len(told) == 1 and match_id in told[0]
    assert _quick(client, cy)["id"] == match_id  # players alone fill the other team
    last = _quick(client, dee)
    assert last["id"] == match_id and last["state"]["status"] == "active"
    assert _seats(client, match_id) == ["ana", "cy", "bo", "dee"]
    mine = client.get(f"/v1/matches/{match_id}", headers=auth(bo)).get_json()
    assert mine["seat"] == 2  # the partner's player token acts for their seat


def test_two_parties_meet_and_players_alone_fill_a_team_first(client: FlaskClient) -> None:
    tokens = {p: mint(client, p) for p in ("a1", "a2", "b1", "b2", "c1", "c2")}
    first = _quick(client, tokens["c1"])  # alone: seat 0, then its partner seat 2
    assert _quick(client, tokens["c2"])["seat"] == 2
    party = _party(client, tokens["a1"], tokens["a2"])
    seated = _quick(client, tokens["a2"], party=party)  # any member may ask
    assert seated["id"] == first["id"] and seated["seat"] == 3
    assert _seats(client, first["id"]) == ["c1", "a1", "c2", "a2"]
    one = _party(client, tokens["b1"], tokens["b2"])
    table = _quick(client, tokens["b1"], party=one)
    assert table["id"] != first["id"] and table["seat"] == 0


def test_party_refusals(client: FlaskClient) -> None:
    ana, bo, cy = (mint(client, p) for p in ("ana", "bo", "cy"))
    party = client.post("/v1/parties", headers=auth(ana)).get_json()["id"]
    again = client.post("/v1/parties", headers=auth(ana))
    assert again.status_code == 409 and again.get_json()["reason"] == "party_refused"
    not_full = client.post("/v1/matches/quick", headers=auth(ana),
                           json={"variant": FOUR, "party": party})
    assert not_full.status_code == 409 and not_full.get_json()["reason"] == "party_refused"
    not_leader = client.post(f"/v1/parties/{party}/invite", headers=auth(bo),
                             json={"player_id": "cy"})
    assert not_leader.status_code == 409
    uninvited = client.post(f"/v1/parties/{party}/join", headers=auth(cy))
    assert uninvited.status_code == 404 and uninvited.get_json()["reason"] == "party_not_found"
    client.put("/v1/players/cy/blocks/ana", headers=auth(cy))
    blocked = client.post(f"/v1/parties/{party}/invite", headers=auth(ana),
                          json={"player_id": "cy"})
    assert blocked.status_code == 409 and blocked.get_json()["reason"] == "player_blocked"
    client.post(f"/v1/parties/{party}/invite", headers=auth(ana), json={"player_id": "bo"})
    client.post(f"/v1/parties/{party}/join", headers=auth(bo))
    two = client.post("/v1/matches/quick", headers=auth(ana),
                      json={"variant": "egyptian-v2", "party": party})
    assert two.status_code == 422 and two.get_json()["reason"] == "wrong_player_count"
    outsider = client.get(f"/v1/parties/{party}", headers=auth(cy))
    assert outsider.status_code == 404
    assert client.post(f"/v1/parties/{party}/leave", headers=auth(ana)).status_code == 204
    assert client.get(f"/v1/parties/{party}", headers=auth(bo)).status_code == 404  # disbanded
    assert client.post("/v1/parties", headers=auth(bo)).status_code == 201  # free again


def test_a_member_waiting_alone_is_brought_to_the_partys_table(client: FlaskClient) -> None:
    ana, bo = mint(client, "ana"), mint(client, "bo")
    alone = _quick(client, bo)  # bo waits alone at a table of his own ...
    assert _seats(client, alone["id"]) == ["bo", None, None, None]
    party = _party(client, ana, bo)
    seated = _quick(client, ana, party=party)  # ... leaves it, and the party, finding it
    assert seated["id"] == alone["id"]         # the oldest table with a team open, sits
    assert _seats(client, seated["id"]) == ["ana", None, "bo", None]
    again = _quick(client, bo, party=party)  # asked again: the same table
    assert again["id"] == seated["id"] and again["seat"] == 2
