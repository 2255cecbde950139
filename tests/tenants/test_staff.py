"""The console's staff (docs/console.md): staff keys with a role, exchanged for a session
cookie with a CSRF token; a role does what it may and no more, on the API itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update

from service.storage.base import utcnow
from service.storage.db import db, transaction
from service.tenants import service as tenants
from service.tenants import staff
from service.tenants.enums import StaffRole
from service.tenants.models import StaffSession
from tests.conftest import api_key, make_app

SUSPEND = {"reason": "cheating", "until": None}
HOOK = {"url": "http://127.0.0.1:9/hook", "events": ["match.finished"]}


@pytest.fixture
def keyed(backend: str, tmp_path: Path) -> Flask:
    return make_app(backend, tmp_path, BASRA_API_KEYS="required", BASRA_KEY_CACHE_SECONDS=0,
                    BASRA_WEBHOOKS_ALLOW_PRIVATE=True)


def _staff_key(app: Flask, role: StaffRole, name: str) -> str:
    """A staff key of front end acme (made with its first key if new)."""
    with app.app_context():
        if "acme" not in {t.name for t in tenants.list_keys()}:
            tenants.create_key("acme", [])
        return staff.create_staff_key("acme", name, role)


def _signed_in(app: Flask, key: str) -> tuple[FlaskClient, dict[str, str]]:
    """A client holding the session cookie, and the headers a change needs."""
    client = app.test_client()
    r = client.post("/v1/staff/sessions", json={"key": key})
    assert r.status_code == 201, r.get_json()
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    assert staff.SESSION_COOKIE not in r.get_data(as_text=True)  # no script gets the token
    return client, {"X-CSRF-Token": r.get_json()["csrf_token"]}


def _player(app: Flask, server: dict[str, str], player_id: str = "ali") -> None:
    """A player the front end vouched for (by minting their token)."""
    r = app.test_client().post(f"/v1/players/{player_id}/tokens", headers=server,
                               json={"ttl_seconds": 60})
    assert r.status_code == 201, r.get_json()


def _actors(app: Flask, server: dict[str, str]) -> list[tuple[str, str]]:
    entries = app.test_client().get("/v1/audit", headers=server).get_json()["entries"]
    return [(e["actor"], e["action"]) for e in entries]


def test_each_role_does_what_it_may_and_no_more(keyed: Flask) -> None:
    """A viewer reads and is refused every change (403 staff_role_too_low, nothing
    changed); a moderator suspends, audited under their name, and may not administer
    webhooks; an admin makes a webhook; none mints a player's token or plays: there the
    session counts for nothing (401 missing_api_key)."""
    server = api_key(keyed, "acme")
    _player(keyed, server)
    viewer, viewing = _signed_in(keyed, _staff_key(keyed, StaffRole.VIEWER, "vera"))
    moderator, moderating = _signed_in(keyed, _staff_key(keyed, StaffRole.MODERATOR, "mona"))
    admin, administering = _signed_in(keyed, _staff_key(keyed, StaffRole.ADMIN, "adel"))
    for client in (viewer, moderator, admin):
        assert client.get("/v1/audit").status_code == 200
        assert client.get("/v1/webhooks").status_code == 200
    r = viewer.put("/v1/players/ali/suspension", json=SUSPEND, headers=viewing)
    assert r.status_code == 403 and r.get_json()["reason"] == "staff_role_too_low"
    assert "moderator" in r.get_json()["detail"]
    assert all(action != "player.suspended" for _, action in _actors(keyed, server))
    r = moderator.put("/v1/players/ali/suspension", json=SUSPEND, headers=moderating)
    assert r.status_code == 200, r.get_json()
    assert ("staff:mona", "player.suspended") in _actors(keyed, server)
    r = moderator.post("/v1/webhooks", json=HOOK, headers=moderating)
    assert r.status_code == 403 and r.get_json()["reason"] == "staff_role_too_low"
    assert admin.post("/v1/webhooks", json=HOOK, headers=administering).status_code == 201
    assert len(keyed.test_client().get("/v1/webhooks", headers=server)
               .get_json()["webhooks"]) == 1
    for client, headers in ((admin, administering), (viewer, viewing)):
        r = client.post("/v1/players/ali/tokens", json={"ttl_seconds": 60}, headers=headers)
        assert r.status_code == 401 and r.get_json()["reason"] == "missing_api_key"
        r = client.post("/v1/matches", headers=headers,
                        json={"players": [{"name": "a"}, {"bot": "greedy"}]})
        assert r.status_code == 401 and r.get_json()["reason"] == "missing_api_key"


def test_a_change_needs_the_csrf_token_and_this_site(keyed: Flask) -> None:
    """A moderator's suspension without the CSRF token, with another's, from another
    Origin or a cross-site fetch is 403 csrf_refused and changes nothing; the token is
    given again by GET /v1/staff/session."""
    server = api_key(keyed, "acme")
    _player(keyed, server)
    client, headers = _signed_in(keyed, _staff_key(keyed, StaffRole.MODERATOR, "mona"))
    _, others = _signed_in(keyed, _staff_key(keyed, StaffRole.MODERATOR, "omar"))
    for refused in ({}, others, {**headers, "Origin": "https://evil.example"},
                    {**headers, "Sec-Fetch-Site": "cross-site"}):
        r = client.put("/v1/players/ali/suspension", json=SUSPEND, headers=refused)
        assert r.status_code == 403 and r.get_json()["reason"] == "csrf_refused", refused
    assert ("staff:mona", "player.suspended") not in _actors(keyed, server)
    again = client.get("/v1/staff/session").get_json()
    assert again["csrf_token"] == headers["X-CSRF-Token"]
    assert (again["name"], again["role"], again["front_end"]) == ("mona", "moderator", "acme")
    r = client.put("/v1/players/ali/suspension", json=SUSPEND,
                   headers={**headers, "Origin": "http://localhost", "Sec-Fetch-Site":
                            "same-origin"})
    assert r.status_code == 200, r.get_json()


def test_a_session_ends_when_it_expires_signs_out_or_loses_its_key(keyed: Flask) -> None:
    """An expired session, a signed-out one, and one whose staff key was revoked are
    each 401 staff_session_invalid at once."""
    expiring, _ = _signed_in(keyed, _staff_key(keyed, StaffRole.VIEWER, "vera"))
    with keyed.app_context(), transaction(write=True):
        db.session.execute(update(StaffSession).values(expires_at=utcnow()))
    r = expiring.get("/v1/audit")
    assert r.status_code == 401 and r.get_json()["reason"] == "staff_session_invalid"
    leaving, headers = _signed_in(keyed, _staff_key(keyed, StaffRole.VIEWER, "vic"))
    assert leaving.delete("/v1/staff/session").status_code == 403  # no CSRF token
    assert leaving.delete("/v1/staff/session", headers=headers).status_code == 204
    assert leaving.get("/v1/audit").status_code == 401
    key = _staff_key(keyed, StaffRole.ADMIN, "adel")
    revoked, _ = _signed_in(keyed, key)
    assert revoked.get("/v1/audit").status_code == 200
    with keyed.app_context():
        assert tenants.revoke_keys("acme", key) == 1
    r = revoked.get("/v1/audit")
    assert r.status_code == 401 and r.get_json()["reason"] == "staff_session_invalid"
    r = keyed.test_client().post("/v1/staff/sessions", json={"key": key})
    assert r.status_code == 401 and r.get_json()["reason"] == "invalid_staff_key"


def test_a_staff_key_is_no_api_key(keyed: Flask) -> None:
    """A staff key as X-API-Key is 401 invalid_api_key saying what it is; an API key at
    sign-in is 401 invalid_staff_key; the session's cookie beside a server key changes
    nothing (the key speaks)."""
    key = _staff_key(keyed, StaffRole.ADMIN, "adel")
    client = keyed.test_client()
    r = client.get("/v1/webhooks", headers={"X-API-Key": key})
    assert r.status_code == 401 and r.get_json()["reason"] == "invalid_api_key"
    assert "staff key" in r.get_json()["detail"]
    server = api_key(keyed, "acme")
    r = client.post("/v1/staff/sessions", json={"key": server["X-API-Key"]})
    assert r.status_code == 401 and r.get_json()["reason"] == "invalid_staff_key"
    r = client.post("/v1/staff/sessions", json={})
    assert r.status_code == 422 and "key" in str(r.get_json())
    assert client.get("/v1/staff/session").status_code == 401
