"""A tournament's webhooks (issue "Tournaments", item 2): tournament.started,
tournament.round with its pairings, tournament.finished with the final standings, each
as the OpenAPI document's `webhooks` describe it, and each player's stream gets theirs."""

from __future__ import annotations

from pathlib import Path

import yaml
from jsonschema import Draft202012Validator
from standardwebhooks import Webhook as Verifier

from service.players import events as player_events
from service.players.models import PlayerEvent
from service.storage.db import db
from tests.client import auth
from tests.servers import ROOT
from tests.tournaments.helpers import create, read, work
from tests.webhooks.test_webhooks import Receiver, deliver_all, hooked, key_of, pending, subscribe

KINDS = ["tournament.started", "tournament.round", "tournament.finished"]


def test_a_tournament_sends_its_webhooks_and_its_players_events(
        backend: str, tmp_path: Path, receiver: Receiver) -> None:
    app = hooked(backend, tmp_path)
    client = app.test_client()
    key = key_of(app)
    hook = subscribe(client, key, receiver.url, KINDS)
    tokens = {}
    names = {"h1": "Hoda", "h2": "Hany", "h3": "Hala"}
    for p in names:
        r = client.post(f"/v1/players/{p}/tokens", headers=key, json={"name": names[p]})
        tokens[p] = r.get_json()["token"]
    tid = create(client, key, rounds=1)["id"]
    for p in tokens:
        r = client.post(f"/v1/tournaments/{tid}/join", headers={**key, **auth(tokens[p])},
                        json={})
        assert r.status_code == 200, r.get_json()
    work(app)
    (pairing,) = read(client, tid, key)["rounds"][0]["pairings"]
    first, second = pairing["players"]
    r = client.post(f"/v1/matches/{pairing['match_id']}/resign",
                    headers={**key, **auth(tokens[second])})
    assert r.status_code == 200
    work(app)
    final = client.get(f"/v1/tournaments/{tid}", headers=key).get_json()
    assert final["status"] == "finished"

    deliver_all(app, lambda: pending(app) == 0)
    verifier = Verifier(hook["secret"])
    payloads = [verifier.verify(r.body, r.headers) for r in receiver.got]
    assert sorted(p["type"] for p in payloads) == sorted(KINDS)
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    for p in payloads:
        assert p["data"]["tournament_id"] == tid
        body = spec["webhooks"][p["type"]]["post"]["requestBody"]["content"]
        Draft202012Validator({**body["application/json"]["schema"],
                              "components": spec["components"]}).validate(p)
    by_kind = {p["type"]: p["data"] for p in payloads}
    assert by_kind["tournament.round"]["pairings"] == [
        {"match_id": pairing["match_id"], "players": [first, second]}]
    bye = by_kind["tournament.round"]["bye"]
    assert bye not in (first, second)
    standings = by_kind["tournament.finished"]["standings"]
    assert standings == final["standings"]
    assert {s["player_id"]: s["points"] for s in standings} == {first: 1, bye: 1, second: 0}
    # display names beside ids, in one shape: a line's own name, a payload's names by id
    assert {s["player_id"]: s["name"] for s in standings} == names
    assert final["names"] == names
    assert by_kind["tournament.started"]["names"] == names
    assert by_kind["tournament.round"]["names"] == names  # both players and the bye
    assert by_kind["tournament.finished"]["names"] == names

    with app.app_context():  # each player's own stream: their round and their result
        def kinds(player: str) -> list[tuple[str, dict]]:
            rows = db.session.query(PlayerEvent).filter_by(player_id=player) \
                .order_by(PlayerEvent.pk).all()
            return [(r.type, player_events.json.loads(r.body)) for r in rows]
        mine = kinds(second)
        assert [k for k, _ in mine] == ["tournament.started", "match.started",
                                        "tournament.round", "match.finished",
                                        "tournament.finished"]
        rounds = [d for k, d in mine if k == "tournament.round"]
        assert rounds == [{"tournament_id": tid, "round": 1, "bye": False,
                           "match_id": pairing["match_id"], "seat": 1, "opponent": first,
                           "opponent_name": names[first]}]
        finished = [d for k, d in mine if k == "tournament.finished"]
        assert finished == [{"tournament_id": tid, "status": "finished", "rank": 3,
                             "points": 0.0}]
        byes = [d for k, d in kinds(bye) if k == "tournament.round"]
        assert byes == [{"tournament_id": tid, "round": 1, "bye": True, "match_id": None}]
