"""Reports (issue 42, item 5): a seated player reports another seat of the same match,
once; the front end reads the queue and each report with its evidence (the whole log,
every hand once over, the two players' other matches) and resolves it once; a
report.created webhook."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask.testing import FlaskClient
from sqlalchemy import select

from service.storage.db import db
from service.webhooks.models import WebhookMessage
from tests.client import auth, play_to_end
from tests.conftest import api_key, make_app
from tests.tournaments.helpers import mint


def _match(client: FlaskClient, *players: str, headers: dict[str, str] | None = None
           ) -> dict[str, Any]:
    """A match of these players (the server seats them, each then plays with their own
    token)."""
    variant = "egyptian-v2" if len(players) == 2 else "egyptian-4p"
    r = client.post("/v1/matches", headers=headers or {}, json={"variant": variant, "players": [
        {"name": p.upper(), "player_id": p} for p in players]})
    assert r.status_code == 201, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def _report(client: FlaskClient, token: str, match_id: str, player_id: str,
            headers: dict[str, str] | None = None, **body: Any) -> Any:
    return client.post("/v1/reports", headers={**(headers or {}), **auth(token)}, json={
        "match_id": match_id, "player_id": player_id, "reason": "cheating", **body})


def test_a_report_comes_with_its_evidence_and_is_resolved_once(client: FlaskClient) -> None:
    ana, bo, cy = mint(client, "ana"), mint(client, "bo"), mint(client, "cy")
    earlier = _match(client, "ana", "bo")
    play_to_end(client, earlier)
    created = _match(client, "ana", "bo")
    end = play_to_end(client, created)
    assert end["status"] == "finished"
    r = _report(client, ana, created["id"], "bo", text="he knew my cards")
    assert r.status_code == 201, r.get_json()
    report = r.get_json()
    assert report["status"] == "open" and report["reporter"] == "ana"
    again = _report(client, ana, created["id"], "bo")
    assert again.status_code == 409 and again.get_json()["reason"] == "already_reported"
    for token, about in ((cy, "bo"), (ana, "ana"), (ana, "cy")):
        refused = _report(client, token, created["id"], about)
        assert refused.status_code == 422 and refused.get_json()["reason"] == "not_reportable"
    unsigned = client.post("/v1/reports", json={"match_id": created["id"], "player_id": "bo",
                                                "reason": "cheating"})
    assert unsigned.status_code == 401 and unsigned.get_json()["reason"] == "player_required"
    bad = _report(client, bo, created["id"], "ana", reason="rude")
    assert bad.status_code == 422

    queue = client.get("/v1/reports", query_string={"status": "open"}).get_json()
    assert [q["id"] for q in queue["reports"]] == [report["id"]] and queue["next"] is None
    full = client.get(f"/v1/reports/{report['id']}").get_json()
    evidence = full["evidence"]
    assert evidence["match"]["state"]["id"] == created["id"]
    assert len(evidence["match"]["log"]["moves"]) == end["version"]
    first = evidence["match"]["deals"][0]
    assert len(first["hands"]) == 2 and all(len(h) == 4 for h in first["hands"])
    assert len(first["floor"]) == 4
    played = {m["card"] for m in evidence["match"]["log"]["moves"] if m["kind"] == "play"}
    assert set(first["hands"][0]) <= played  # every card dealt was played, as logged
    assert [m["id"] for m in evidence["together"]] == [earlier["id"]]
    assert [m["id"] for m in evidence["player_recent"]] == [earlier["id"]]

    resolved = client.post(f"/v1/reports/{report['id']}/resolve",
                           json={"action": "void", "note": "confirmed"})
    assert resolved.status_code == 200, resolved.get_json()
    assert resolved.get_json()["resolution"] == {"action": "void", "note": "confirmed",
                                                 "by": "local"}
    assert client.get(f"/v1/matches/{created['id']}").get_json()["voided"]["reason"] \
        == "confirmed"
    twice = client.post(f"/v1/reports/{report['id']}/resolve", json={"action": "dismiss"})
    assert twice.status_code == 409 and twice.get_json()["reason"] == "report_resolved"
    assert client.get("/v1/reports", query_string={"status": "open"}).get_json()["reports"] == []
    assert client.get("/v1/reports/nope").status_code == 404


def test_resolving_by_suspension_suspends_the_reported_player(client: FlaskClient) -> None:
    ana, bo = mint(client, "ana"), mint(client, "bo")
    created = _match(client, "ana", "bo")
    report = _report(client, bo, created["id"], "ana", reason="abuse").get_json()
    early = client.post(f"/v1/reports/{report['id']}/resolve", json={"action": "void"})
    assert early.status_code == 409 and early.get_json()["reason"] == "match_not_finished"
    assert client.get(f"/v1/reports/{report['id']}").get_json()["status"] == "open"
    r = client.post(f"/v1/reports/{report['id']}/resolve",
                    json={"action": "suspend", "forfeit": True})
    assert r.status_code == 200, r.get_json()
    assert client.get("/v1/players/ana", headers=auth(ana)).status_code == 403
    assert client.get(f"/v1/matches/{created['id']}").get_json()["end_reason"] == "suspended"
    assert client.get("/v1/players/bo", headers=auth(bo)).status_code == 200


def test_a_report_pages_by_cursor_and_tells_the_webhooks(backend: str, tmp_path: Path) -> None:
    app = make_app(backend, tmp_path, BASRA_WEBHOOKS_ALLOW_PRIVATE=True)
    client = app.test_client()
    key = api_key(app, "acme")
    assert client.post("/v1/webhooks", headers=key, json={
        "url": "http://127.0.0.1:9/hook", "events": ["report.created"]}).status_code == 201
    ana = mint(client, "ana", key)
    match_id = _match(client, "ana", "bo", "cy", "dee", headers=key)["id"]
    for about in ("bo", "cy", "dee"):
        assert _report(client, ana, match_id, about, headers=key).status_code == 201
    page = client.get("/v1/reports", headers=key, query_string={"limit": 2}).get_json()
    assert [r["player_id"] for r in page["reports"]] == ["bo", "cy"]
    rest = client.get("/v1/reports", headers=key,
                      query_string={"cursor": page["next"]}).get_json()
    assert [r["player_id"] for r in rest["reports"]] == ["dee"] and rest["next"] is None
    forged = client.get("/v1/reports", headers=key, query_string={"cursor": "abc"})
    assert forged.status_code == 422
    with app.app_context():
        sent = db.session.execute(select(WebhookMessage.type)).scalars().all()
        db.session.remove()
    assert sent == ["report.created"] * 3


def test_reports_are_listed_by_whom_they_are_about_and_who_filed_them(
        client: FlaskClient) -> None:
    """`player_id` lists the reports about a player, `reporter` those they filed."""
    ana, bo = mint(client, "ana"), mint(client, "bo")
    created = _match(client, "ana", "bo")
    play_to_end(client, created)
    assert _report(client, ana, created["id"], "bo").status_code == 201
    assert _report(client, bo, created["id"], "ana").status_code == 201

    def listed(**query: str) -> list[tuple[str, str]]:
        page = client.get("/v1/reports", query_string=query).get_json()
        return [(r["reporter"], r["player_id"]) for r in page["reports"]]

    assert listed(reporter="ana") == [("ana", "bo")]
    assert listed(player_id="ana") == [("bo", "ana")]
    assert listed(reporter="cy") == []
    assert client.get("/v1/reports?reporter=a%20b").status_code == 422
