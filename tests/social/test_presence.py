"""Presence (issue 43, item 2): online while a player stream is open, playing while
seated in an active match, offline after; friends hear each change once (a reconnect
within the grace is none), strangers never; the same across instances."""

from __future__ import annotations

import json
import time
import uuid
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, update

from service.players.models import PlayerEvent, PresenceLease
from service.social import presence
from service.storage.base import utcnow
from service.storage.db import db
from service.webhooks.models import WebhookMessage
from tests.client import auth
from tests.conftest import api_key, require_postgres, use_settings
from tests.servers import call, gunicorn, sse_events
from tests.tournaments.helpers import mint, resign


def _heard(app: Flask, player: str) -> list[tuple[str, str | None]]:
    """The presence events on the player's stream: (whose, status)."""
    with app.app_context():
        bodies = db.session.execute(select(PlayerEvent.body).where(
            PlayerEvent.player_id == player, PlayerEvent.type == "presence")
            .order_by(PlayerEvent.pk)).scalars().all()
        db.session.remove()
    return [(json.loads(b)["player_id"], json.loads(b)["status"]) for b in bodies]


def _befriend(client: FlaskClient, one: tuple[str, str], other: tuple[str, str]) -> None:
    for (me, token), (them, _) in ((one, other), (other, one)):
        assert client.put(f"/v1/players/{me}/friends/{them}", headers=auth(token)) \
            .status_code == 200


def _sweep(app: Flask) -> int:
    with app.app_context():
        swept = presence.sweep()
        db.session.remove()
    return swept


def _friend_presence(client: FlaskClient, token: str, player: str) -> dict[str, Any]:
    listed = client.get(f"/v1/players/{player}/friends", headers=auth(token)).get_json()
    return {f["player_id"]: (f["presence"], f["match_id"]) for f in listed["friends"]}


def test_a_stream_makes_a_player_online_to_friends_only(
    app: Flask, client: FlaskClient,
) -> None:
    use_settings(app, presence_grace_seconds=0)
    ana, bo = ("ana", mint(client, "ana")), ("bo", mint(client, "bo"))
    mint(client, "cy")
    _befriend(client, ana, bo)
    client.put("/v1/players/cy/friends/bo", headers=auth(mint(client, "cy")))  # asks only
    assert _friend_presence(client, ana[1], "ana") == {"bo": ("offline", None)}
    stream = client.get("/v1/players/bo/events", headers=auth(bo[1]), buffered=False)
    assert stream.status_code == 200
    assert _heard(app, "ana") == [("bo", "online")]
    assert _heard(app, "cy") == []  # a request is no friendship: cy sees nothing
    assert _friend_presence(client, ana[1], "ana") == {"bo": ("online", None)}
    assert _sweep(app) == 0  # the lease holds
    stream.close()
    assert _sweep(app) == 1
    assert _heard(app, "ana") == [("bo", "online"), ("bo", "offline")]
    assert _friend_presence(client, ana[1], "ana") == {"bo": ("offline", None)}
    assert _sweep(app) == 0  # told once


def test_a_reconnect_within_the_grace_is_no_change(
    app: Flask, client: FlaskClient,
) -> None:
    use_settings(app, presence_grace_seconds=60)
    ana, bo = ("ana", mint(client, "ana")), ("bo", mint(client, "bo"))
    _befriend(client, ana, bo)
    first = client.get("/v1/players/bo/events", headers=auth(bo[1]), buffered=False)
    first.close()
    assert _sweep(app) == 0  # within the grace: still online
    second = client.get("/v1/players/bo/events", headers=auth(bo[1]), buffered=False)
    third = client.get("/v1/players/bo/events", headers=auth(bo[1]), buffered=False)
    third.close()  # one stream still open (closed last-in first-out: one thread here)
    assert _sweep(app) == 0
    assert _heard(app, "ana") == [("bo", "online")]
    second.close()
    with app.app_context():  # the grace runs out
        db.session.execute(update(PresenceLease).values(expires_at=utcnow()))
        db.session.commit()
        db.session.remove()
    assert _sweep(app) == 1
    assert _heard(app, "ana") == [("bo", "online"), ("bo", "offline")]


def test_a_dead_instances_lease_runs_out(app: Flask, client: FlaskClient) -> None:
    ana, bo = ("ana", mint(client, "ana")), ("bo", mint(client, "bo"))
    _befriend(client, ana, bo)
    stream = client.get("/v1/players/bo/events", headers=auth(bo[1]), buffered=False)
    assert _heard(app, "ana") == [("bo", "online")]
    with app.app_context():  # its process stops renewing: the lease runs out
        db.session.execute(update(PresenceLease).values(
            expires_at=utcnow() - timedelta(seconds=1)))
        db.session.commit()
        db.session.remove()
    assert _sweep(app) == 1
    assert _heard(app, "ana")[-1] == ("bo", "offline")
    stream.close()


def test_playing_while_seated_in_an_active_match(
    app: Flask, client: FlaskClient,
) -> None:
    use_settings(app, presence_grace_seconds=0)
    ana, bo = ("ana", mint(client, "ana")), ("bo", mint(client, "bo"))
    _befriend(client, ana, bo)
    stream = client.get("/v1/players/ana/events", headers=auth(ana[1]), buffered=False)
    made = client.post("/v1/challenges", headers=auth(ana[1]), json={"to": "bo"}).get_json()
    accepted = client.post(f"/v1/challenges/{made['id']}/accept", headers=auth(bo[1]))
    match_id = accepted.get_json()["match_id"]
    assert _heard(app, "bo") == [("ana", "online"), ("ana", "playing")]
    assert _heard(app, "ana") == [("bo", "playing")]
    assert _friend_presence(client, bo[1], "bo") == {"ana": ("playing", match_id)}
    assert _sweep(app) == 0  # playing is no lease's to end
    resign(client, match_id, bo[1])
    assert _heard(app, "bo")[-1] == ("ana", "online")  # her stream is still open
    assert _heard(app, "ana")[-1] == ("bo", "offline")  # he has none
    stream.close()
    assert _sweep(app) == 1
    assert _heard(app, "bo")[-1] == ("ana", "offline")


def test_presence_is_told_as_a_webhook(
    app: Flask, client: FlaskClient,
) -> None:
    use_settings(app, webhooks_allow_private=True)
    key = api_key(app, "acme")
    made = client.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/hooks",
                                             "events": ["presence"]}, headers=key)
    assert made.status_code == 201, made.get_json()
    ana, bo = ("ana", mint(client, "ana", key)), ("bo", mint(client, "bo", key))
    _befriend(client, ana, bo)
    stream = client.get("/v1/players/bo/events", headers={**key, **auth(bo[1])},
                        buffered=False)
    with app.app_context():
        bodies = db.session.execute(select(WebhookMessage.body).where(
            WebhookMessage.type == "presence")).scalars().all()
        db.session.remove()
    assert [json.loads(b)["data"] for b in bodies] == [
        {"player_id": "bo", "status": "online", "match_id": None}]
    stream.close()


@pytest.mark.process
def test_presence_heard_across_instances() -> None:
    url = require_postgres()
    ana, bo = f"ana-{uuid.uuid4().hex[:8]}", f"bo-{uuid.uuid4().hex[:8]}"
    with gunicorn(url, workers=1) as a, gunicorn(url, workers=1) as b:
        tokens = {p: call(a, "POST", f"/v1/players/{p}/tokens", {})[1]["token"]
                  for p in (ana, bo)}
        for me, them in ((ana, bo), (bo, ana)):
            status, _ = call(a, "PUT", f"/v1/players/{me}/friends/{them}", None, tokens[me])
            assert status == 200
        heard = sse_events(a, f"/v1/players/{ana}/events",
                           {"Authorization": f"Bearer {tokens[ana]}"})
        assert next(heard) == {"comment": "connected"}
        his = sse_events(b, f"/v1/players/{bo}/events",
                         {"Authorization": f"Bearer {tokens[bo]}"})
        assert next(his) == {"comment": "connected"}
        event = next(e for e in heard if "comment" not in e)
        assert event["event"] == "presence"
        assert event["data"] == {"player_id": bo, "status": "online", "match_id": None}
        status, listed = call(b, "GET", f"/v1/players/{ana}/friends", None, tokens[ana])
        assert status == 200 and listed["friends"][0]["presence"] == "online"
        his.close()  # bo's phone drops: no goodbye, and nothing to write him for 15 s
        started = time.monotonic()
        while not _lease_cut(url, bo):  # the instance noticed and started the grace
            assert time.monotonic() - started < 3.0, "a hung-up stream kept its lease"
            time.sleep(0.1)


def _lease_cut(url: str, player: str) -> bool:
    """Whether the player's lease ends within the grace (5 s), not the lease (30 s)."""
    with psycopg.connect(url.replace("+psycopg", "")) as conn:
        row = conn.execute("SELECT max(expires_at) < now() + interval '10 seconds' "
                           "FROM presence_leases WHERE player_id = %s", (player,)).fetchone()
    return bool(row and row[0])
