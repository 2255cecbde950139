"""A front end's keys over the API (the console's Keys page): listed by prefix, made,
revoked, the player-token secret rotated; each audited under who did it."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask

from service.tenants import staff
from service.tenants.enums import StaffRole
from tests.client import auth
from tests.conftest import api_key, make_app


@pytest.fixture
def keyed(backend: str, tmp_path: Path) -> Flask:
    return make_app(backend, tmp_path, BASRA_API_KEYS="required", BASRA_KEY_CACHE_SECONDS=0)


def test_keys_are_made_listed_and_revoked(keyed: Flask) -> None:
    """A browser key made over the API works from its origin and is listed by prefix
    (never whole); a staff key made so signs in; revoked by prefix, each is refused;
    the audit log names the key that did it."""
    client = keyed.test_client()
    server = api_key(keyed, "acme")
    made = client.post("/v1/keys", headers=server,
                       json={"origins": ["https://play.example"]}).get_json()
    browser = {"X-API-Key": made["key"], "Origin": "https://play.example"}
    assert client.get("/v1/variants", headers=browser).status_code == 200
    person = client.post("/v1/keys/staff", headers=server,
                         json={"name": "sara", "role": "viewer"}).get_json()
    assert client.post("/v1/staff/sessions", json={"key": person["key"]}).status_code == 201
    listed = client.get("/v1/keys", headers=server).get_json()
    assert [k["origins"] for k in listed["keys"]] == [[], ["https://play.example"]]
    assert [(k["name"], k["role"]) for k in listed["staff"]] == [("sara", "viewer")]
    assert made["key"] not in str(listed) and person["key"] not in str(listed)
    for key in (made, person):
        r = client.post("/v1/keys/revoke", headers=server, json={"prefix": key["prefix"]})
        assert r.get_json() == {"revoked": 1}
    assert client.get("/v1/variants", headers=browser).status_code == 401
    r = client.post("/v1/staff/sessions", json={"key": person["key"]})
    assert r.get_json()["reason"] == "invalid_staff_key"
    r = client.post("/v1/keys", headers=server, json={"origins": ["javascript:alert(1)"]})
    assert r.status_code == 422 and "origins" in str(r.get_json())
    actions = [(e["actor"][:4], e["action"]) for e in
               client.get("/v1/audit", headers=server).get_json()["entries"]]
    assert ("key:", "keys.created") in actions and ("key:", "staff_key.created") in actions
    assert ("key:", "keys.revoked") in actions


def test_a_rotated_secret_refuses_the_old_tokens_and_a_moderator_may_not(keyed: Flask) -> None:
    """Rotating with no grace refuses tokens signed before; a moderator's session may not
    rotate (403 staff_role_too_low); an admin's may, audited as staff:<name>."""
    client = keyed.test_client()
    server = api_key(keyed, "acme")
    token = client.post("/v1/players/ana/tokens", headers=server,
                        json={"ttl_seconds": 600}).get_json()["token"]
    assert client.get("/v1/players/ana/blocks", headers=auth(token)).status_code == 200
    r = client.post("/v1/keys/secret/rotate", headers=server, json={"grace_seconds": 0})
    assert r.status_code == 200 and len(r.get_json()["secret"]) == 64
    assert client.get("/v1/players/ana/blocks", headers=auth(token)).status_code == 401
    with keyed.app_context():
        moderator = staff.create_staff_key("acme", "mona", StaffRole.MODERATOR)
        admin = staff.create_staff_key("acme", "adel", StaffRole.ADMIN)
    for key, expected in ((moderator, 403), (admin, 200)):
        console = keyed.test_client()
        csrf = console.post("/v1/staff/sessions", json={"key": key}).get_json()["csrf_token"]
        r = console.post("/v1/keys/secret/rotate", json={"grace_seconds": 60},
                         headers={"X-CSRF-Token": csrf})
        assert r.status_code == expected, r.get_json()
    entries = client.get("/v1/audit?action=secret.rotated", headers=server).get_json()["entries"]
    assert [e["actor"] for e in entries][0] == "staff:adel"
