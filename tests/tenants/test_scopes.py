"""What a key may do (docs/operations.md, "Keys and what they may do"): a browser key what a
player may do, the server key also what administers the front end."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from flask import Flask

from service.storage.db import db
from service.tournaments.models import Tournament
from service.webhooks.models import Webhook
from tests.client import auth
from tests.conftest import api_key, make_app
from tests.tournaments.helpers import create as create_tournament

ORIGIN = "https://play.example"
_LATER = (datetime.now(UTC) + timedelta(days=1)).isoformat()


@pytest.fixture
def keyed(backend: str, tmp_path: Path) -> Flask:
    return make_app(backend, tmp_path, BASRA_API_KEYS="required",
                    BASRA_WEBHOOKS_ALLOW_PRIVATE=True)


def _counts(app: Flask) -> tuple[int, int]:
    with app.app_context():
        return (db.session.query(Webhook).count(), db.session.query(Tournament).count())


def test_a_browser_key_is_refused_what_administers_the_front_end(keyed: Flask) -> None:
    """With the browser key (its Origin sent or not, a body valid or not): minting,
    webhooks (create, list, delete, deliveries), creating and cancelling tournaments are
    403 server_key_required before the body is read, and change nothing; the server key
    does them all."""
    client = keyed.test_client()
    browser = api_key(keyed, "acme", ORIGIN)
    server = api_key(keyed, "acme")
    hook = client.post("/v1/webhooks", headers=server, json={
        "url": "http://127.0.0.1:9/hook", "events": ["match.finished"]})
    assert hook.status_code == 201, hook.get_json()
    tid = create_tournament(client, headers=server, starts_at=_LATER)["id"]
    before = _counts(keyed)
    calls = [
        ("POST", "/v1/players/ali/tokens", {"ttl_seconds": 60}),
        ("POST", "/v1/players/ali/tokens", {"ttl_seconds": "nonsense"}),
        ("POST", "/v1/webhooks", {"url": "https://evil.example/", "events": ["match.move"]}),
        ("POST", "/v1/webhooks", {}),
        ("GET", "/v1/webhooks", None),
        ("DELETE", f"/v1/webhooks/{hook.get_json()['id']}", None),
        ("GET", f"/v1/webhooks/{hook.get_json()['id']}/deliveries", None),
        ("GET", f"/v1/webhooks/{hook.get_json()['id']}/deliveries/msg_0", None),
        ("POST", f"/v1/webhooks/{hook.get_json()['id']}/deliveries/msg_0/retry", None),
        ("POST", f"/v1/webhooks/{hook.get_json()['id']}/recover", {"since": _LATER}),
        ("POST", f"/v1/webhooks/{hook.get_json()['id']}/pause", None),
        ("POST", f"/v1/webhooks/{hook.get_json()['id']}/resume", None),
        ("POST", "/v1/tournaments", {"name": "mine", "system": "swiss", "rounds": 1,
                                     "starts_at": _LATER, "clock": {"move_seconds": 30}}),
        ("POST", "/v1/tournaments", {"rounds": 2.5}),
        ("POST", f"/v1/tournaments/{tid}/cancel", None),
        ("PUT", "/v1/players/ali/suspension", {"reason": "cheating"}),
        ("DELETE", "/v1/players/ali/suspension", None),
        ("GET", "/v1/players/ali/export", None),
        ("DELETE", "/v1/players/ali", None),
        ("POST", "/v1/matches/nope/void", {"reason": "collusion"}),
        ("GET", "/v1/audit", None),
        ("GET", "/v1/reports", None),
        ("GET", "/v1/reports/nope", None),
        ("POST", "/v1/reports/nope/resolve", {"action": "dismiss"}),
        ("PUT", "/v1/currencies/COINS", {"name": "Coins"}),
        ("POST", "/v1/transfers", {"currency": "COINS", "amount": 5, "to": "ali",
                                   "reason": "gift"}),
        ("POST", "/v1/players/ali/wallet/adjustments", {"currency": "COINS", "amount": 5,
                                                         "reason": "gift"}),
        ("GET", "/v1/settings", None),
        ("PUT", "/v1/settings", {"rake": {"share": "0.5", "cap": None}}),
    ]
    calls += [("HEAD", "/v1/webhooks", None),  # HEAD runs the get: the same rule
              ("HEAD", f"/v1/webhooks/{hook.get_json()['id']}/deliveries", None)]
    for origin in ({"Origin": ORIGIN}, {}):
        for method, url, body in calls:
            r = client.open(url, method=method, json=body, headers={**browser, **origin})
            assert r.status_code == 403, (method, url, r.get_json())
            if method != "HEAD":  # an answer to HEAD has no body
                assert r.get_json()["reason"] == "server_key_required"
    assert _counts(keyed) == before
    assert client.get(f"/v1/tournaments/{tid}", headers=browser).get_json()["status"] \
        == "scheduled"
    # what a player may do stays open to the browser key
    token = client.post("/v1/players/ali/tokens", headers=server,
                        json={"ttl_seconds": 600}).get_json()["token"]
    assert client.post(f"/v1/tournaments/{tid}/join", json={},
                       headers={**browser, **auth(token)}).status_code == 200
    assert client.get("/v1/tournaments", headers=browser).status_code == 200
    assert client.post("/v1/matches", headers=browser, json={
        "players": [{"name": "a"}, {"bot": "greedy"}]}).status_code == 201
    # and the server key administers
    assert client.get("/v1/webhooks", headers=server).status_code == 200
    assert client.post(f"/v1/tournaments/{tid}/cancel", headers=server).status_code == 200


def test_the_rule_is_documented_with_each_route_it_covers(keyed: Flask) -> None:
    """Every route marked for the server key says so in the OpenAPI document (a 403
    naming server_key_required), and those are exactly the administering ones."""
    spec = keyed.test_client().get("/openapi.json").get_json()
    marked = {(method.upper(), path) for path, item in spec["paths"].items()
              for method, op in item.items() if isinstance(op, dict)
              if "server_key_required" in str(op.get("responses", {}).get("403", ""))}
    assert marked == {
        ("POST", "/v1/players/{player_id}/tokens"),
        ("POST", "/v1/players/{player_id}/tokens/revoke"), ("GET", "/v1/webhooks"),
        ("POST", "/v1/webhooks"), ("DELETE", "/v1/webhooks/{webhook_id}"),
        ("GET", "/v1/webhooks/{webhook_id}/deliveries"), ("POST", "/v1/tournaments"),
        ("POST", "/v1/tournaments/{tournament_id}/cancel"),
        ("PUT", "/v1/players/{player_id}/suspension"),
        ("DELETE", "/v1/players/{player_id}/suspension"),
        ("GET", "/v1/players/{player_id}/export"), ("DELETE", "/v1/players/{player_id}"),
        ("POST", "/v1/matches/{match_id}/void"), ("GET", "/v1/audit"),
        ("GET", "/v1/reports"), ("GET", "/v1/reports/{report_id}"),
        ("POST", "/v1/reports/{report_id}/resolve"), ("PUT", "/v1/chat/settings"),
        ("GET", "/v1/webhooks/{webhook_id}/deliveries/{delivery_id}"),
        ("POST", "/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry"),
        ("POST", "/v1/webhooks/{webhook_id}/recover"), ("POST", "/v1/webhooks/{webhook_id}/pause"),
        ("POST", "/v1/webhooks/{webhook_id}/resume"), ("GET", "/v1/players"),
        ("GET", "/v1/console/overview"), ("GET", "/v1/keys"), ("POST", "/v1/keys"),
        ("POST", "/v1/keys/staff"), ("POST", "/v1/keys/revoke"),
        ("POST", "/v1/keys/secret/rotate"), ("POST", "/v1/matches/{match_id}/seats/{seat}/drop"),
        ("PUT", "/v1/currencies/{code}"), ("POST", "/v1/transfers"),
        ("POST", "/v1/players/{player_id}/wallet/adjustments"), ("GET", "/v1/settings"),
        ("PUT", "/v1/settings"), ("GET", "/v1/players/{player_id}/fair-play"),
    }
