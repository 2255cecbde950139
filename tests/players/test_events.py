"""A player's own event stream (issue "Tournaments", item 1): their matches starting,
their turns, their matches ending, with ids to resume from, on SQLite and PostgreSQL,
and woken across instances."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update

from service.players import events
from service.players.models import PlayerEvent
from service.storage.base import utcnow
from service.storage.db import db
from tests.client import auth, play
from tests.conftest import make_app, require_postgres, use_settings
from tests.servers import call, gunicorn, sse_events


def _mint(client: FlaskClient, player_id: str) -> str:
    r = client.post(f"/v1/players/{player_id}/tokens", json={})
    assert r.status_code == 201, r.get_json()
    return str(r.get_json()["token"])


def _parsed(chunks: Iterator[bytes]) -> Iterator[dict[str, Any]]:
    """SSE events ({'id', 'event', 'data'}) and comments ({'comment'}) of a streamed body."""
    buffer = ""
    for chunk in chunks:
        buffer += chunk.decode()
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            if block.startswith(":"):
                yield {"comment": block[1:].strip()}
                continue
            event = dict(line.split(": ", 1) for line in block.split("\n"))
            event["data"] = json.loads(event["data"])
            yield event


def _take(events: Iterator[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """The next ``n`` events, heartbeats skipped."""
    got: list[dict[str, Any]] = []
    for event in events:
        if "comment" not in event:
            got.append(event)
            if len(got) == n:
                return got
    raise AssertionError(f"the stream ended after {got}")


def _match(client: FlaskClient, token: str) -> dict[str, Any]:
    r = client.post("/v1/matches", headers=auth(token), json={
        "players": [{"name": "Ev", "player_id": "ev"}, {"name": "Other"}]})
    assert r.status_code == 201, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def test_a_player_stream_has_their_start_turns_and_finish_and_resumes(
        app: Flask, client: FlaskClient) -> None:
    use_settings(app, heartbeat_seconds=0.3)
    token = _mint(client, "ev")
    opened = client.get("/v1/players/ev/events", headers=auth(token), buffered=False)
    assert opened.status_code == 200 and opened.mimetype == "text/event-stream"
    events = _parsed(iter(opened.response))
    assert next(events) == {"comment": "connected"}
    created = _match(client, token)
    match_id, other = created["id"], created["seats"][1]["token"]
    started, turn = _take(events, 2)
    assert started["event"] == "match.started" and started["data"]["match_id"] == match_id
    assert started["data"]["seat"] == 0
    assert turn["event"] == "match.turn" and turn["data"]["seat"] == 0
    assert "deadline" in turn["data"]
    move = client.get(f"/v1/matches/{match_id}", headers=auth(token)).get_json()
    card = move["legal_moves"][0]
    assert play(client, match_id, token, card["card"], card["capture"]).status_code == 201
    reply = client.get(f"/v1/matches/{match_id}", headers=auth(other)).get_json()
    card = reply["legal_moves"][0]
    assert play(client, match_id, other, card["card"], card["capture"]).status_code == 201
    (again,) = _take(events, 1)  # the other seat's turn is not on this stream
    assert again["event"] == "match.turn" and again["data"]["version"] == 2
    assert client.post(f"/v1/matches/{match_id}/resign", headers=auth(token)).status_code == 200
    (finished,) = _take(events, 1)
    assert finished["event"] == "match.finished" and finished["data"]["winner"] == 1
    ids = [int(e["id"]) for e in (started, turn, again, finished)]
    assert ids == sorted(ids)
    opened.close()

    resumed = client.get("/v1/players/ev/events", buffered=False,
                         headers={**auth(token), "Last-Event-ID": str(ids[0])})
    replay = _parsed(iter(resumed.response))
    assert [e["id"] for e in _take(replay, 3)] == [str(i) for i in ids[1:]]
    resumed.close()


def test_a_player_stream_ends_after_its_most_life_and_resumes_without_a_gap(
        app: Flask, client: FlaskClient) -> None:
    """Streams end after 75-100% of BASRA_STREAM_MAX_SECONDS, so that after an instance
    restarts its clients spread again; the reconnection resumes where it left off."""
    use_settings(app, heartbeat_seconds=0.1, stream_max_seconds=1.0)
    token = _mint(client, "ev")
    began = time.monotonic()
    opened = client.get("/v1/players/ev/events", headers=auth(token), buffered=False)
    events = _parsed(iter(opened.response))
    created = _match(client, token)
    started, turn = _take(events, 2)
    rest = list(events)  # to its end: heartbeats only
    lived = time.monotonic() - began
    assert rest and all("comment" in e for e in rest)
    assert 0.7 <= lived < 5.0, lived
    opened.close()
    assert client.post(f"/v1/matches/{created['id']}/resign",
                       headers=auth(token)).status_code == 200  # while it was closed
    resumed = client.get("/v1/players/ev/events", buffered=False,
                         headers={**auth(token), "Last-Event-ID": turn["id"]})
    (finished,) = _take(_parsed(iter(resumed.response)), 1)
    assert finished["event"] == "match.finished"
    assert finished["data"]["match_id"] == started["data"]["match_id"] == created["id"]
    resumed.close()


def test_only_the_players_own_token_follows_their_stream(client: FlaskClient) -> None:
    mine, theirs = _mint(client, "ev"), _mint(client, "someone")
    assert client.get("/v1/players/ev/events").status_code == 401
    r = client.get("/v1/players/ev/events", headers=auth(theirs))
    assert r.status_code == 403 and r.get_json()["reason"] == "not_this_player"
    seat = _match(client, mine)["seats"][1]["token"]  # a seat token is not a player's
    assert client.get("/v1/players/ev/events", headers=auth(seat)).status_code == 403


@pytest.mark.process
@pytest.mark.alone
def test_a_player_stream_wakes_on_a_move_made_at_another_instance() -> None:
    url = require_postgres()
    with gunicorn(url, workers=1, BASRA_HEARTBEAT_SECONDS="1") as a, \
            gunicorn(url, workers=1, BASRA_HEARTBEAT_SECONDS="1") as b:
        _, minted = call(a, "POST", "/v1/players/ev/tokens", {})
        token = minted["token"]
        stream = sse_events(b, "/v1/players/ev/events", {"Authorization": f"Bearer {token}"})
        assert next(stream) == {"comment": "connected"}
        _, created = call(a, "POST", "/v1/matches", {
            "players": [{"name": "Ev", "player_id": "ev"}, {"name": "Other"}]}, token)
        lags = []
        for kind in ("match.started", "match.turn"):
            event = next(e for e in stream if "comment" not in e)
            assert event["event"] == kind and event["data"]["match_id"] == created["id"]
        sent = time.monotonic()
        call(a, "POST", f"/v1/matches/{created['id']}/resign", None, token)
        event = next(e for e in stream if "comment" not in e)
        lags.append(time.monotonic() - sent)
        assert event["event"] == "match.finished"
        assert lags[0] < 0.5, f"woken by the NOTIFY, not a heartbeat: {lags[0]:.3f} s"


def test_a_player_stream_takes_one_of_the_clients_waiter_places(tmp_path: Path) -> None:
    """A player's stream counts against the same waiter limits as long polls: with one
    place a client, a second stream (or a long poll) from that client is 429, and the
    place is free again once the first stream closes."""
    app = make_app("sqlite", tmp_path, BASRA_MAX_WAITERS_PER_CLIENT=1)
    client = app.test_client()
    token = _mint(client, "ev")
    here = {"REMOTE_ADDR": "10.0.0.7"}
    first = client.get("/v1/players/ev/events", headers=auth(token), buffered=False,
                       environ_base=here)
    assert first.status_code == 200
    second = client.get("/v1/players/ev/events", headers=auth(token), environ_base=here)
    assert second.status_code == 429 and second.get_json()["reason"] == "too_many_waiters"
    elsewhere = client.get("/v1/players/ev/events", headers=auth(token), buffered=False,
                           environ_base={"REMOTE_ADDR": "10.0.0.8"})
    assert elsewhere.status_code == 200
    elsewhere.close()
    first.close()
    again = client.get("/v1/players/ev/events", headers=auth(token), buffered=False,
                       environ_base=here)
    assert again.status_code == 200
    again.close()


def test_old_events_are_purged_after_a_week(app: Flask, client: FlaskClient) -> None:
    token = _mint(client, "ev")
    _match(client, token)  # match.started and match.turn for ev
    with app.app_context():
        first = db.session.query(PlayerEvent).order_by(PlayerEvent.pk).first()
        db.session.execute(update(PlayerEvent).where(PlayerEvent.pk == first.pk)
                           .values(created_at=utcnow() - timedelta(days=events.EVENT_DAYS + 1)))
        db.session.commit()
        assert events.purge(utcnow() - timedelta(days=events.EVENT_DAYS)) == 1
        assert db.session.query(PlayerEvent).count() == 1
