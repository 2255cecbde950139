"""Looking players up by the start of their id (the console's Players page)."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from tests.conftest import api_key


def test_players_are_found_by_the_start_of_their_id(app: Flask, client: FlaskClient) -> None:
    """A prefix finds its players in id order, page by page; `_` and `%` are letters, not
    wildcards; another front end's players are never listed; a bad prefix is a 422."""
    key, other = api_key(app, "acme"), api_key(app, "other")
    for player in ("ana", "anab", "an_x", "anzz", "bob"):
        client.post(f"/v1/players/{player}/tokens", headers=key, json={"ttl_seconds": 60})
    client.post("/v1/players/anna/tokens", headers=other, json={"ttl_seconds": 60})
    page = client.get("/v1/players?prefix=an&limit=2", headers=key).get_json()
    assert [p["player_id"] for p in page["players"]] == ["an_x", "ana"]
    rest = client.get(f"/v1/players?prefix=an&after={page['next']}", headers=key).get_json()
    assert [p["player_id"] for p in rest["players"]] == ["anab", "anzz"]
    assert rest["next"] is None
    found = client.get("/v1/players?prefix=an_", headers=key).get_json()["players"]
    assert [p["player_id"] for p in found] == ["an_x"]
    assert found[0]["suspended"] is False and found[0]["matches"] == 0
    r = client.get("/v1/players?prefix=a%25", headers=key)
    assert r.status_code == 422 and "prefix" in str(r.get_json())
