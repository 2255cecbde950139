"""The console's pages and its overview (docs/console.md)."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.client import create
from tests.conftest import api_key


def test_the_console_is_served_and_may_not_be_framed(client: FlaskClient) -> None:
    """/console is the page (no other site may frame it, scripts only from here) and its
    script; a path outside its folder is a 404."""
    r = client.get("/console")
    assert r.status_code == 200 and b'src="/console/console.js"' in r.data
    assert r.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
    assert "script-src" not in r.headers["Content-Security-Policy"]  # default-src 'self'
    r = client.get("/console/console.js")
    assert r.status_code == 200 and r.mimetype == "text/javascript"
    assert b"X-CSRF-Token" in r.data
    assert client.get("/console/../app.py").status_code == 404


def test_the_overview_counts_the_front_ends_own(app: Flask, client: FlaskClient) -> None:
    """Active and waiting matches and today's finishes of this front end, none of
    another's; a browser key may not read it."""
    acme, other = api_key(app, "acme"), api_key(app, "other")
    for _ in range(2):
        client.post("/v1/matches", headers=acme, json={
            "players": [{"name": "a"}, {"bot": "greedy"}]})
    client.post("/v1/matches", headers=acme, json={"players": [{"name": "a"}, {"open": True}]})
    client.post("/v1/matches", headers=other, json={"players": [{"name": "a"}, {"bot": "greedy"}]})
    played = client.post("/v1/matches", headers=acme, json={
        "players": [{"name": "a"}, {"bot": "greedy"}]}).get_json()
    r = client.post(f"/v1/matches/{played['id']}/resign", headers={
        **acme, "Authorization": f"Bearer {played['seats'][0]['token']}"})
    assert r.status_code == 200, r.get_json()
    seen = client.get("/v1/console/overview", headers=acme).get_json()
    assert (seen["matches_active"], seen["matches_waiting"], seen["matches_finished_today"]) \
        == (2, 1, 1)
    assert seen["webhook_backlog"] == 0 and seen["reports_open"] == 0
    hours = seen["started_by_hour"]
    assert len(hours) == 12 and sum(h["matches"] for h in hours) == 4  # acme's four
    assert all(h["matches"] == 0 for h in hours[:10])  # (this hour's, or the last's)
    assert hours[-1]["hour"][14:19] == "00:00"  # each hour from its start
    browser = api_key(app, "acme", "https://play.example")
    r = client.get("/v1/console/overview", headers=browser)
    assert r.status_code == 403 and r.get_json()["reason"] == "server_key_required"
    assert create(client)["id"]  # the keyless local front end is another: unchanged
    assert client.get("/v1/console/overview", headers=acme).get_json()["matches_active"] == 2


def test_each_figure_is_counted_up_to_its_cap(app: Flask, client: FlaskClient,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Past COUNTED_UP_TO a figure stays at the cap, so the overview costs the same at
    any scale."""
    from service.console import service as console

    monkeypatch.setattr(console, "COUNTED_UP_TO", 2)
    acme = api_key(app, "acme")
    for _ in range(3):
        client.post("/v1/matches", headers=acme, json={
            "players": [{"name": "a"}, {"bot": "greedy"}]})
    assert client.get("/v1/console/overview", headers=acme).get_json()["matches_active"] == 2
