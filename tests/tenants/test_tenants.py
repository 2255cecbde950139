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


def test_a_seat_token_alone_speaks_for_its_matchs_front_end(keyed: Flask) -> None:
    """A seat token sent with no key works on its match's routes as with the key (it was
    404 match_not_found): view, 304, move, log, event stream; as a browser key, never a
    server key's rights. A token that holds no seat of the match is a keyless request:
    401 missing_api_key naming the key, whether the match exists or not."""
    client = keyed.test_client()
    acme = api_key(keyed, "acme")
    r = client.post("/v1/matches", headers=acme,
                    json={"players": [{"name": "ann"}, {"name": "bob"}]})
    created = r.get_json()
    match, (ann, bob) = created["id"], tokens(created).values()
    mine = client.get(f"/v1/matches/{match}", headers=auth(ann))
    assert mine.status_code == 200, mine.get_json()
    assert mine.get_json() == client.get(f"/v1/matches/{match}",
                                         headers={**acme, **auth(ann)}).get_json()
    again = client.get(f"/v1/matches/{match}",
                       headers={**auth(ann), "If-None-Match": mine.headers["ETag"]})
    assert again.status_code == 304
    move = mine.get_json()["legal_moves"][0]
    r = client.post(f"/v1/matches/{match}/moves", json=move, headers=auth(ann))
    assert r.status_code == 201, r.get_json()
    assert client.get(f"/v1/matches/{match}/moves", headers=auth(bob)).get_json()["version"] == 1
    stream = client.get(f"/v1/matches/{match}/events", headers=auth(bob), buffered=False)
    assert stream.status_code == 200 and b"event: state" in next(stream.response)
    stream.close()
    r = client.post(f"/v1/matches/{match}/seats/1/drop", headers=auth(ann))
    assert r.status_code == 403 and r.get_json()["reason"] == "server_key_required"
    other = client.post("/v1/matches", headers=acme,
                        json={"players": [{"name": "cy"}, {"name": "di"}]}).get_json()
    for url in (f"/v1/matches/{other['id']}", "/v1/matches/no-such-match"):
        r = client.get(url, headers=auth(ann))
        assert r.status_code == 401 and r.get_json()["reason"] == "missing_api_key", url
        assert "seat token alone" in r.get_json()["detail"]
    assert client.get("/v1/matches", headers=auth(ann)).status_code == 401
