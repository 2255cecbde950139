"""Creates with an Idempotency-Key (a retry answers the match it made, only to the caller
that sent it), and the view a create answers with."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from service.matches.models import CreateKey, Match
from service.storage.base import utcnow
from service.storage.db import db, transaction
from tests.client import auth, tokens, view
from tests.conftest import api_key, make_app

BODY = {"variant": "egyptian-v2", "players": [{"name": "ann"}, {"name": "bob"}]}


def _create(client: FlaskClient, key: str | None, headers: Mapping[str, str] | None = None,
            body: dict[str, Any] | None = None) -> Any:
    sent = {**(headers or {}), **({"Idempotency-Key": key} if key else {})}
    return client.post("/v1/matches", json=body or BODY, headers=sent)


def _matches(app: Flask) -> int:
    with app.app_context():
        return int(db.session.query(Match).count())


def _mint(client: FlaskClient, player_id: str, **headers: str) -> str:
    r = client.post(f"/v1/players/{player_id}/tokens", json={}, headers=headers)
    assert r.status_code == 201, r.get_json()
    return str(r.get_json()["token"])


def test_a_retried_create_answers_the_first_match_and_its_tokens(
    app: Flask, client: FlaskClient,
) -> None:
    """The same key and body: 201 with the same match, Location and seat tokens (which
    play), and one match made; the key with another body is 422
    `idempotency_key_reused`, as for moves; another key makes another match."""
    first = _create(client, "create-1")
    again = _create(client, "create-1")
    assert first.status_code == again.status_code == 201
    assert again.get_json() == first.get_json()
    assert again.headers["Location"] == first.headers["Location"]
    assert again.headers["ETag"] == first.headers["ETag"]
    assert _matches(app) == 1
    created = again.get_json()
    assert len(view(client, created["id"], tokens(created)[0])["hand"]) == 4
    other = _create(client, "create-1",
                    body={**BODY, "players": [{"name": "ann"}, {"bot": "greedy"}]})
    assert other.status_code == 422 and other.get_json()["reason"] == "idempotency_key_reused"
    assert _create(client, "create-2").get_json()["id"] != created["id"]
    assert _create(client, None).get_json()["id"] != created["id"]
    assert _matches(app) == 3


def test_a_retry_after_the_match_moved_on_answers_it_as_it_is(client: FlaskClient) -> None:
    """A retry once the match has moved (the first answer was lost, a seat played
    meanwhile) answers the same match and tokens, as the match is now."""
    created = _create(client, "k").get_json()
    toks = tokens(created)
    move = view(client, created["id"], toks[0])["legal_moves"][0]
    r = client.post(f"/v1/matches/{created['id']}/moves", json=move, headers=auth(toks[0]))
    assert r.status_code == 201
    again = _create(client, "k")
    assert again.status_code == 201
    assert tokens(again.get_json()) == toks and again.get_json()["state"]["version"] == 1


def test_a_create_key_never_answers_another_front_end_or_caller(keyed: Flask) -> None:
    """The same key and body from another front end, another server key of the same front
    end, another browser visitor or another player makes a match of its own: nobody
    reads another's answer (and its tokens)."""
    client = keyed.test_client()
    acme, globex = api_key(keyed, "acme"), api_key(keyed, "globex")
    acme_again = api_key(keyed, "acme")
    browser = api_key(keyed, "acme", "https://acme.example")
    ids = [
        _create(client, "same", acme).get_json()["id"],
        _create(client, "same", globex).get_json()["id"],
        _create(client, "same", acme_again).get_json()["id"],
    ]
    page = {**browser, "Origin": "https://acme.example"}
    for address in ("10.0.0.1", "10.0.0.2"):
        r = client.post("/v1/matches", json=BODY, headers={**page, "Idempotency-Key": "same"},
                        environ_base={"REMOTE_ADDR": address})
        assert r.status_code == 201, r.get_json()
        ids.append(r.get_json()["id"])
    for player in ("p1", "p2"):
        token = _mint(client, player, **acme)
        ids.append(_create(client, "same", auth(token)).get_json()["id"])
    assert len(set(ids)) == len(ids) == 7
    # and each caller's own retry is its own first answer
    assert _create(client, "same", globex).get_json()["id"] == ids[1]
    assert _create(client, "same", acme).get_json()["id"] == ids[0]


def test_create_keys_expire_and_are_purged(backend: str, tmp_path: Path) -> None:
    """A create's key is honoured for BASRA_IDEMPOTENCY_HOURS, as a move's: after that
    the same key makes a new match, and expired records are purged with the moves'."""
    from service.matches import idempotency

    app = make_app(backend, tmp_path, BASRA_IDEMPOTENCY_HOURS=0.5 / 3600)  # half a second
    client = app.test_client()
    first = _create(client, "k1").get_json()
    assert _create(client, "k1").get_json()["id"] == first["id"]
    time.sleep(0.6)
    late = _create(client, "k1")
    assert late.status_code == 201 and late.get_json()["id"] != first["id"]
    assert _create(client, "k1").get_json()["id"] == late.get_json()["id"]
    time.sleep(0.6)
    with app.app_context():
        with transaction(write=True):
            assert idempotency.purge_idempotency(utcnow()) == 1
        assert db.session.query(CreateKey).count() == 0


def test_a_bad_idempotency_key_on_a_create_is_refused(client: FlaskClient) -> None:
    """An Idempotency-Key of more than 255 characters (or none) is a 422 naming it, as
    on moves."""
    r = _create(client, "k" * 256)
    assert r.status_code == 422 and r.get_json()["errors"][0]["field"] == "Idempotency-Key"


def test_a_seated_player_creating_sees_their_own_hand(client: FlaskClient) -> None:
    """A player token whose player takes a seat is answered that seat's view, its hand
    (after a leading bot's move); a server key seating others, a spectator's."""
    token = _mint(client, "ann")
    for players in ([{"bot": "greedy"}, {"name": "Ann", "player_id": "ann"}],
                    [{"name": "Bob"}, {"name": "Ann", "player_id": "ann"}]):
        r = client.post("/v1/matches", headers=auth(token), json={"players": players})
        assert r.status_code == 201, r.get_json()
        state = r.get_json()["state"]
        assert state["seat"] == 1 and len(state["hand"]) == 4
        assert "legal_moves" in state
    r = client.post("/v1/matches", json={"players": [
        {"name": "Bob", "player_id": "bob"}, {"name": "Ann", "player_id": "ann"}]})
    assert r.status_code == 201 and "hand" not in r.get_json()["state"]
    # a player token that seats others only stays a spectator
    r = client.post("/v1/matches", headers=auth(token), json={"players": [
        {"name": "Bob"}, {"name": "Cy"}]})
    assert r.status_code == 201 and r.get_json()["state"]["seat"] is None
