"""Erasure finds every id (issue 53, item 2): each event kind declares its payload's shape
(`service/events.py`), the event door refuses an event it does not declare, and an erasure
rewrites every kept event from those shapes: other players' streams and pending webhook
messages keep no id, name or words of the erased player; only the erasure's own notice
names the id it erased."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, update

from service import events
from service.players.models import PlayerEvent
from service.social.models import Challenge
from service.storage.base import utcnow
from service.storage.db import db
from service.webhooks import service as webhooks
from service.webhooks.models import WebhookMessage
from tests.client import auth, play, tokens, view
from tests.conftest import api_key, use_settings
from tests.players.test_events import _parsed, _take
from tests.tournaments.helpers import entered, mint, read, resign, work


def _hooked(app: Flask, client: FlaskClient, kinds: list[str] | None = None) -> None:
    """A front end whose server key every request of ``client`` sends, with a webhook on
    ``kinds`` (nothing delivers it: its messages stay pending)."""
    use_settings(app, webhooks_allow_private=True)
    client.environ_base["HTTP_X_API_KEY"] = api_key(app, "acme")["X-API-Key"]
    r = client.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/hook",
                                          "events": kinds or list(webhooks.EVENTS)})
    assert r.status_code == 201, r.get_json()


def _messages(app: Flask) -> list[tuple[str, dict[str, Any]]]:
    with app.app_context():
        rows = db.session.execute(select(WebhookMessage.type, WebhookMessage.body)
                                  .order_by(WebhookMessage.pk)).all()
        db.session.remove()
    return [(kind, json.loads(body)["data"]) for kind, body in rows]


def _stream_events(app: Flask) -> list[tuple[str, str, str]]:
    with app.app_context():
        rows = db.session.execute(select(PlayerEvent.player_id, PlayerEvent.type,
                                         PlayerEvent.body).order_by(PlayerEvent.pk)).all()
        db.session.remove()
    return [(p, k, b) for p, k, b in rows]


def test_another_players_stream_replays_a_friend_request_without_the_erased_id(
        client: FlaskClient) -> None:
    ana, bo = mint(client, "ana"), mint(client, "bo")
    assert client.put("/v1/players/ana/friends/bo", headers=auth(ana)).status_code == 200
    assert client.delete("/v1/players/ana").status_code == 200
    replay = client.get("/v1/players/bo/events", buffered=False,
                        headers={**auth(bo), "Last-Event-ID": "0"})
    (requested,) = _take(_parsed(iter(replay.response)), 1)
    replay.close()
    assert requested["event"] == "friend.requested"
    assert requested["data"]["to"] == "bo"
    assert requested["data"]["from"].startswith("erased-")


def test_a_pending_challenge_message_loses_the_erased_id(
        app: Flask, client: FlaskClient) -> None:
    _hooked(app, client, ["challenge.created"])
    bo = mint(client, "bo")
    mint(client, "ana")
    r = client.post("/v1/challenges", headers=auth(bo), json={"to": "ana"})
    assert r.status_code == 201, r.get_json()
    assert client.delete("/v1/players/ana").status_code == 200
    ((kind, data),) = _messages(app)
    assert kind == "challenge.created" and data["challenger"] == "bo"
    assert data["challenged"].startswith("erased-")


def test_the_event_door_refuses_an_event_kind_or_field_the_registry_does_not_declare(
        app: Flask) -> None:
    with app.app_context():
        with pytest.raises(events.UndeclaredEvent, match="friend.poked"):
            events.told(1, [events.event("friend.poked", {"player_id": "ana"})])
        with pytest.raises(events.UndeclaredEvent, match="chat"):  # webhooks only
            events.told(1, [events.event("chat", {"match_id": "m"}, ["bo"])])
        with pytest.raises(events.UndeclaredEvent, match="inviter"):
            events.told(1, [events.event("party.invited", {
                "party_id": "p", "leader": "ana", "player_id": "bo", "inviter": "ana"}, ["bo"])])
        with pytest.raises(events.UndeclaredEvent, match="inviter"):  # a player's own data
            events.told(1, [events.event("party.invited", {"party_id": "p"}, {
                "bo": {"party_id": "p", "inviter": "ana"}})])
    assert set(webhooks.EVENTS) == {k.name for k in events.KINDS.values() if k.webhook}


def test_the_webhook_docs_list_every_kind_from_the_registry() -> None:
    page = (Path(__file__).parents[2] / "docs" / "operations.md").read_text()
    listed = "\n".join("  " + line for line in events.table().splitlines())
    assert listed in page, "docs/operations.md: paste service.events.table() again"


@pytest.mark.usefixtures("ledger_checked")
def test_every_event_kind_the_service_emits_is_declared_and_erased_from(
        app: Flask, client: FlaskClient) -> None:
    """The erased player in every role each kind has: after the erasure no kept event
    (webhook message or other player's stream event) holds their id, name or words but
    the erasure's own notice; and every declared kind was emitted (each through a
    door that refuses an undeclared one)."""
    _hooked(app, client)
    ana, bo, cy, dee = (mint(client, p) for p in ("ana", "bo", "cy", "dee"))
    assert client.put("/v1/chat/settings", json={"mode": "text"}).status_code == 200

    # friends: a request kept, a friendship (dee), one ended (bo)
    for token, me, other in ((ana, "ana", "cy"), (dee, "dee", "ana"), (ana, "ana", "dee"),
                             (ana, "ana", "bo"), (bo, "bo", "ana")):
        assert client.put(f"/v1/players/{me}/friends/{other}", headers=auth(token)) \
            .status_code == 200
    assert client.delete("/v1/players/bo/friends/ana", headers=auth(bo)).status_code == 204

    # coins: granted to ana and to bo (wallet.changed, on their streams and webhooks)
    assert client.put("/v1/currencies/COINS", json={"name": "Coins"}).status_code == 201
    for n, who in enumerate(("ana", "bo")):
        r = client.post("/v1/transfers", headers={"Idempotency-Key": f"grant-{n}"}, json={
            "currency": "COINS", "amount": 5, "to": who, "reason": "welcome"})
        assert r.status_code == 201, r.get_json()

    # a tournament
    tid, toks = entered(client, ["ana", "cy"], rounds=1)
    work(app)
    game = read(client, tid)["rounds"][0]["pairings"][0]
    resign(client, game["match_id"], toks["cy"])
    work(app, 2)

    # a rated match: started, turns, a drop and back, chat, a move, the finish, a void
    r = client.post("/v1/matches", json={"rated": True, "stand_in": "random", "players": [
        {"name": "ANA", "player_id": "ana"}, {"name": "BO", "player_id": "bo"}]})
    assert r.status_code == 201, r.get_json()
    match_id = r.get_json()["id"]
    first = tokens(r.get_json())[0]  # ana plays, then drops and is back on bo's turn
    move = view(client, match_id, first)["legal_moves"][0]
    assert play(client, match_id, first, move["card"], move["capture"]).status_code == 201
    assert client.post(f"/v1/matches/{match_id}/seats/0/drop").status_code == 200
    assert client.post(f"/v1/matches/{match_id}/back", headers=auth(ana)).status_code == 200
    said = client.post(f"/v1/matches/{match_id}/chat", json={"text": "ana says hi"},
                       headers=auth(ana))
    assert said.status_code == 201, said.get_json()
    resign(client, match_id, bo)
    assert client.post(f"/v1/matches/{match_id}/void", json={"reason": "test"}) \
        .status_code == 200
    for reporter, reported, token in (("bo", "ana", bo), ("ana", "bo", ana)):
        r = client.post("/v1/reports", headers=auth(token), json={
            "match_id": match_id, "player_id": reported, "reason": "abuse",
            "text": f"{reporter} wrote this"})
        assert r.status_code == 201, r.get_json()

    # challenges: made to ana and declined, made by ana and cancelled, accepted, expired
    def challenge(token: str, to: str) -> str:
        r = client.post("/v1/challenges", headers=auth(token), json={"to": to})
        assert r.status_code == 201, r.get_json()
        return str(r.get_json()["id"])

    declined, cancelled = challenge(cy, "ana"), challenge(ana, "bo")
    assert client.post(f"/v1/challenges/{declined}/decline", headers=auth(ana)) \
        .status_code == 200
    assert client.post(f"/v1/challenges/{cancelled}/cancel", headers=auth(ana)) \
        .status_code == 200
    expiring = challenge(ana, "dee")
    with app.app_context():
        db.session.execute(update(Challenge).where(Challenge.id == expiring).values(
            expires_at=utcnow() - timedelta(seconds=1)))
        db.session.commit()
        db.session.remove()
    work(app)
    accepted = challenge(bo, "ana")
    assert client.post(f"/v1/challenges/{accepted}/accept", headers=auth(ana)) \
        .status_code == 201

    # parties: invited, joined, seated by quick play, left; one disbanded
    party = client.post("/v1/parties", headers=auth(ana)).get_json()["id"]
    assert client.post(f"/v1/parties/{party}/invite", headers=auth(ana),
                       json={"player_id": "bo"}).status_code == 200
    assert client.post(f"/v1/parties/{party}/join", headers=auth(bo)).status_code == 200
    r = client.post("/v1/matches/quick", headers=auth(ana),
                    json={"variant": "egyptian-4p", "party": party})
    assert r.status_code == 201, r.get_json()
    assert client.post(f"/v1/parties/{party}/leave", headers=auth(bo)).status_code == 204
    assert client.post(f"/v1/parties/{party}/leave", headers=auth(ana)).status_code == 204
    other = client.post("/v1/parties", headers=auth(cy)).get_json()["id"]
    assert client.post(f"/v1/parties/{other}/invite", headers=auth(cy),
                       json={"player_id": "ana"}).status_code == 200
    assert client.post(f"/v1/parties/{other}/join", headers=auth(ana)).status_code == 200
    assert client.post(f"/v1/parties/{other}/leave", headers=auth(cy)).status_code == 204

    # the player's access: suspended for a while, lifted, signed out
    until = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    assert client.put("/v1/players/ana/suspension", json={
        "reason": "spam", "until": until}).status_code == 200
    assert client.delete("/v1/players/ana/suspension").status_code == 204
    assert client.post("/v1/players/ana/tokens/revoke").status_code == 200

    assert client.delete("/v1/players/ana").status_code == 200

    sent = _messages(app)
    assert {kind for kind, _ in sent} == set(webhooks.EVENTS)  # every kind, walked
    kept = [(p, k, b) for p, k, b in _stream_events(app)]
    assert {k for _, k, _ in kept} == set(events.STREAM_KINDS)
    notices = [data for kind, data in sent if kind == "player.erased"]
    assert notices == [{"player_id": "ana", "matches": notices[0]["matches"]}]
    for kind, data in sent:
        if kind == "player.erased":
            continue
        text = json.dumps(data)
        assert '"ana"' not in text and "ANA" not in text and "ana says hi" not in text \
            and "ana wrote this" not in text, (kind, data)
    for player, kind, body in kept:
        assert player != "ana"
        assert '"ana"' not in body and "ANA" not in body, (kind, body)
    # what another player wrote about them goes too (issue 53, second read)
    assert [data["text"] for kind, data in sent if kind == "report.created"] \
        == ["(erased)", "(erased)"]
