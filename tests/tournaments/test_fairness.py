"""Tournaments shared fairly between front ends: a cap per front end, the worker's passes
in the front ends' turn, and a tournament called off by its front end."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from flask import Flask

from service.players import events as player_events
from service.players.models import PlayerEvent
from service.storage.db import db
from service.tournaments import scheduled
from service.webhooks.models import WebhookMessage
from tests.client import auth
from tests.conftest import api_key, make_app
from tests.tournaments.helpers import create, read, work
from tests.webhooks.test_webhooks import subscribe

LATER = (datetime.now(UTC) + timedelta(hours=1)).isoformat()


def _keyed(backend: str, tmp_path: Path, **settings: object) -> Flask:
    return make_app(backend, tmp_path, BASRA_API_KEYS="required",
                    BASRA_WEBHOOKS_ALLOW_PRIVATE=True, **settings)


def test_a_front_end_holds_at_most_its_cap_of_tournaments(backend: str,
                                                           tmp_path: Path) -> None:
    """Past BASRA_TOURNAMENTS_PER_FRONT_END scheduled or running: 409
    too_many_tournaments naming the setting; another front end is not counted with it;
    cancelling one makes room."""
    app = _keyed(backend, tmp_path, BASRA_TOURNAMENTS_PER_FRONT_END=2)
    client = app.test_client()
    acme, other = api_key(app, "acme"), api_key(app, "other")
    made = [create(client, acme, starts_at=LATER)["id"] for _ in range(2)]
    r = client.post("/v1/tournaments", headers=acme, json={
        "name": "one more", "system": "swiss", "rounds": 1, "starts_at": LATER,
        "clock": {"move_seconds": 30}})
    assert r.status_code == 409 and r.get_json()["reason"] == "too_many_tournaments"
    assert "BASRA_TOURNAMENTS_PER_FRONT_END" in r.get_json()["detail"]
    create(client, other, starts_at=LATER)
    assert client.post(f"/v1/tournaments/{made[0]}/cancel", headers=acme).status_code == 200
    create(client, acme, starts_at=LATER)


def test_one_front_ends_many_tournaments_do_not_push_out_anothers(
        backend: str, tmp_path: Path) -> None:
    """A pass looks at the front ends in turn: with a front end's many tournaments due
    first by id, another's is still among the first looked at; a worker alternates the
    front ends (the one served longest ago first) and takes each one's longest unserved
    tournament first."""
    app = _keyed(backend, tmp_path, BASRA_TOURNAMENTS_PER_FRONT_END=50)
    client = app.test_client()
    acme, other = api_key(app, "acme"), api_key(app, "other")
    now = (datetime.now(UTC) - timedelta(seconds=1)).isoformat()
    flood = [create(client, acme, starts_at=now)["id"] for _ in range(6)]
    mine = create(client, other, starts_at=now)["id"]
    with app.app_context():
        order = scheduled.due(datetime.now(UTC), limit=2)
        pks = {t.id: (t.pk, t.tenant_pk) for t in db.session.query(scheduled.Tournament)}
    assert order == [pks[flood[0]], pks[mine]]
    acme_pk, other_pk = pks[flood[0]][1], pks[mine][1]
    found = [pks[t] for t in [*flood, mine]]
    scheduled._served.clear()
    scheduled._front_ends_served.clear()
    # acme's first two were served lately, the others never; other's front end lately
    now = time.monotonic()
    scheduled._served.update({pks[flood[0]][0]: now, pks[flood[1]][0]: now - 1})
    scheduled._front_ends_served.update({acme_pk: now - 5, other_pk: now})
    order = scheduled.in_turn(found)
    # the front ends alternate, acme first (served longest ago), each one's longest
    # unserved tournament first: acme gets no more of the pass than other
    assert order[:4] == [pks[flood[2]][0], pks[mine][0], pks[flood[3]][0],
                         pks[flood[4]][0]]
    assert order[-2:] == [pks[flood[1]][0], pks[flood[0]][0]]
    scheduled._served.clear()
    scheduled._front_ends_served.clear()


def test_a_cancelled_tournament_aborts_its_games_and_tells_its_players(
        backend: str, tmp_path: Path) -> None:
    """POST .../cancel with the server key: `cancelled`, the game under way
    aborted (void, nobody scores), each entrant told on their stream and the front end by
    its webhook; a second cancel is 409; the worker leaves it alone."""
    app = _keyed(backend, tmp_path)
    client = app.test_client()
    key = api_key(app, "acme")
    subscribe(client, key, "http://127.0.0.1:9/hook", ["tournament.finished"])
    tokens = {p: client.post(f"/v1/players/{p}/tokens", headers=key, json={})
              .get_json()["token"] for p in ("c1", "c2")}
    tid = create(client, key, rounds=2)["id"]
    for p in tokens:
        assert client.post(f"/v1/tournaments/{tid}/join", json={},
                           headers={**key, **auth(tokens[p])}).status_code == 200
    work(app)
    (game,) = read(client, tid, key)["rounds"][0]["pairings"]
    r = client.post(f"/v1/tournaments/{tid}/cancel", headers=key)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["status"] == "cancelled"
    assert {s["points"] for s in r.get_json()["standings"]} == {0}
    match = client.get(f"/v1/matches/{game['match_id']}", headers=key).get_json()
    assert match["status"] == "aborted"
    assert read(client, tid, key)["rounds"][0]["pairings"][0]["status"] == "void"
    again = client.post(f"/v1/tournaments/{tid}/cancel", headers=key)
    assert again.status_code == 409
    work(app)
    assert read(client, tid, key)["status"] == "cancelled"
    with app.app_context():
        for player in tokens:
            told = [player_events.json.loads(e.body) for e in db.session.query(PlayerEvent)
                    .filter_by(player_id=player, type="tournament.finished")]
            assert told == [{"tournament_id": tid, "status": "cancelled", "rank": None,
                             "points": None}]
        sent = [m for m in db.session.query(WebhookMessage)
                if m.type == "tournament.finished"]
        assert len(sent) == 1 and f'"{tid}"' in sent[0].body
