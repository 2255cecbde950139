"""Front ends as tenants: API keys, scoping, origins (README "Running in production")."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from service.tenants import service as tenants
from tests.client import auth, create, tokens
from tests.conftest import api_key


def test_without_a_valid_key_every_v1_request_is_401(keyed: Flask) -> None:
    """BASRA_API_KEYS=required: no key, an unknown key, a revoked key: 401 problems; the
    health checks need none."""
    client = keyed.test_client()
    acme = api_key(keyed, "acme")
    assert client.get("/v1/variants", headers=acme).status_code == 200
    for headers, reason in (({}, "missing_api_key"),
                            ({"X-API-Key": "bk_nonsense"}, "invalid_api_key")):
        for url in ("/v1/variants", "/v1/matches", "/v1/matches/x"):
            r = client.get(url, headers=headers)
            assert r.status_code == 401 and r.get_json()["reason"] == reason, (url, headers)
            assert r.content_type == "application/problem+json"
            assert "X-API-Key" in r.headers["WWW-Authenticate"]
    r = client.post("/v1/matches", json={"players": [{"name": "a"}, {"name": "b"}]})
    assert r.status_code == 401
    assert client.get("/healthz").status_code == 200 and client.get("/readyz").status_code == 200
    with keyed.app_context():
        assert tenants.revoke_keys("acme") == 1
    r = client.get("/v1/variants", headers=acme)
    assert r.status_code == 401 and r.get_json()["reason"] == "invalid_api_key"


def test_a_tenant_sees_only_its_own_matches(keyed: Flask) -> None:
    """Another tenant's match is 404 on every route (view, 304 poll, moves, log, resign,
    hint), and history lists only the caller's own matches."""
    client = keyed.test_client()
    acme, zeta = api_key(keyed, "acme"), api_key(keyed, "zeta")
    r = client.post("/v1/matches", headers=acme,
                    json={"players": [{"name": "ann", "player_id": "p1"}, {"name": "bob"}]})
    assert r.status_code == 201
    created = r.get_json()
    match, token = created["id"], tokens(created)[0]
    mine = client.get(f"/v1/matches/{match}", headers={**acme, **auth(token)}).get_json()
    move = mine["legal_moves"][0]
    foreign = [
        client.get(f"/v1/matches/{match}", headers=zeta),
        client.get(f"/v1/matches/{match}", headers={**zeta, "If-None-Match": '"0-spectator"'}),
        client.get(f"/v1/matches/{match}", headers={**zeta, **auth(token)}),
        client.post(f"/v1/matches/{match}/moves", json=move, headers={**zeta, **auth(token)}),
        client.get(f"/v1/matches/{match}/moves", headers=zeta),
        client.post(f"/v1/matches/{match}/resign", headers={**zeta, **auth(token)}),
        client.get(f"/v1/matches/{match}/hint", headers={**zeta, **auth(token)}),
    ]
    for r in foreign:
        assert r.status_code == 404 and r.get_json()["reason"] == "match_not_found"
    assert client.get(f"/v1/matches/{match}", headers=acme).get_json()["version"] == 0
    assert [m["id"] for m in client.get("/v1/matches", headers=acme).get_json()["matches"]] \
        == [match]
    assert client.get("/v1/matches?player=p1", headers=zeta).get_json()["matches"] == []
    r = client.post(f"/v1/matches/{match}/moves", json=move, headers={**acme, **auth(token)})
    assert r.status_code == 201


def test_keyless_requests_belong_to_the_local_tenant(client: FlaskClient, app: Flask) -> None:
    """BASRA_API_KEYS=optional (make serve): no key is the built-in local tenant, which
    does not see a keyed tenant's matches (nor they its)."""
    local = create(client)
    acme = api_key(app, "acme")
    assert client.get(f"/v1/matches/{local['id']}", headers=acme).status_code == 404
    r = client.post("/v1/matches", headers=acme, json={"players": [{"name": "a"}, {"name": "b"}]})
    assert client.get(f"/v1/matches/{r.get_json()['id']}").status_code == 404
    assert [m["id"] for m in client.get("/v1/matches").get_json()["matches"]] == [local["id"]]
    bad = client.get("/v1/matches", headers={"X-API-Key": "bk_wrong"})
    assert bad.status_code == 401 and bad.get_json()["reason"] == "invalid_api_key"


def test_a_key_may_be_limited_to_browser_origins(keyed: Flask) -> None:
    """A tenant created with --origin answers only those browser origins (403 otherwise);
    requests without an Origin (servers, apps) are not browsers and pass."""
    client = keyed.test_client()
    key = api_key(keyed, "webapp", "https://play.example")
    ok = client.get("/v1/variants", headers={**key, "Origin": "https://play.example"})
    assert ok.status_code == 200
    assert ok.headers["Access-Control-Allow-Origin"] in ("https://play.example", "*")
    r = client.get("/v1/variants", headers={**key, "Origin": "https://evil.example"})
    assert r.status_code == 403 and r.get_json()["reason"] == "origin_not_allowed"
    assert client.get("/v1/variants", headers=key).status_code == 200
    preflight = client.options("/v1/matches", headers={
        "Origin": "https://play.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "X-API-Key, Content-Type"})
    assert preflight.status_code == 200
    assert "x-api-key" in preflight.headers["Access-Control-Allow-Headers"].lower()
