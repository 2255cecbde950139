"""GET /v1/matches: history filters and keyset pagination."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta

from flask.testing import FlaskClient

from tests.client import auth, create, tokens


def test_history_is_newest_first_and_filtered(client: FlaskClient) -> None:
    """Filters by player (name or player_id), variant and status; newest first."""
    a = client.post("/v1/matches", json={
        "variant": "egyptian-v1",
        "players": [{"name": "alice", "player_id": "A1"}, {"name": "bob"}]}).get_json()
    b = client.post("/v1/matches", json={
        "variant": "egyptian-v2", "players": [{"name": "carol"}, {"name": "alice"}]}).get_json()
    c = client.post("/v1/matches", json={
        "variant": "egyptian-v2", "players": [{"name": "dave"}, {"name": "erin"}]}).get_json()
    client.post(f"/v1/matches/{c['id']}/resign", headers=auth(tokens(c)[0]))

    def ids(query: str) -> list[str]:
        r = client.get(f"/v1/matches?{query}")
        assert r.status_code == 200, r.get_json()
        return [m["id"] for m in r.get_json()["matches"]]

    assert ids("") == [c["id"], b["id"], a["id"]]
    assert ids("player=alice") == [b["id"], a["id"]]
    assert ids("player=A1") == [a["id"]]
    assert ids("variant=egyptian-v2") == [c["id"], b["id"]]
    assert ids("status=finished") == [c["id"]]
    assert ids("status=active&variant=egyptian-v2") == [b["id"]]
    now = datetime.now(UTC)
    assert ids(f"since={(now - timedelta(hours=1)).isoformat()}".replace("+", "%2B")) == [
        c["id"], b["id"], a["id"]]
    assert ids(f"until={(now - timedelta(hours=1)).isoformat()}".replace("+", "%2B")) == []
    first = client.get("/v1/matches?player=dave").get_json()["matches"][0]
    assert first["status"] == "finished" and first["winner"] == 1
    assert first["seats"][0]["name"] == "dave" and first["finished_at"]


def test_history_pages_with_a_cursor_and_link_header(client: FlaskClient) -> None:
    """limit + next cursor (body and Link header) walk every match exactly once."""
    made = [create(client)["id"] for _ in range(7)]
    seen: list[str] = []
    url = "/v1/matches?limit=3"
    pages = 0
    while url:
        r = client.get(url)
        body = r.get_json()
        seen += [m["id"] for m in body["matches"]]
        pages += 1
        if body["next"]:
            link = r.headers["Link"]
            assert link.endswith('>; rel="next"') and body["next"] in link
            url = link[1: link.index(">")]
        else:
            assert "Link" not in r.headers
            url = ""
    assert pages == 3 and seen == list(reversed(made))


def test_a_history_cursor_reveals_no_row_number(client: FlaskClient) -> None:
    """A cursor carries the id of its page's last match, which the page shows anyway:
    nothing that counts how many matches the service holds (its primary key did)."""
    made = [create(client)["id"] for _ in range(3)]
    body = client.get("/v1/matches?limit=2").get_json()
    opened = base64.urlsafe_b64decode(body["next"] + "=" * (-len(body["next"]) % 4)).decode()
    kind, value, _signature = opened.split(":")
    assert (kind, value) == ("m", made[1]) and body["matches"][-1]["id"] == made[1]
    assert not any(part.isdigit() for part in opened.split(":")[:2])
    rest = client.get(f"/v1/matches?limit=2&cursor={body['next']}").get_json()
    assert [m["id"] for m in rest["matches"]] == [made[0]] and rest["next"] is None


def test_history_rejects_bad_queries(client: FlaskClient) -> None:
    """Bad filters are 422 problems naming the field."""
    for query, field in (("limit=0", "limit"), ("limit=1000", "limit"), ("status=paused", "status"),
                         ("cursor=garbage", "cursor"), ("since=yesterday", "since")):
        r = client.get(f"/v1/matches?{query}")
        assert r.status_code == 422, query
        assert r.content_type == "application/problem+json"
        assert field in [e["field"] for e in r.get_json()["errors"]], r.get_json()
